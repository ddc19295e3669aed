#!/usr/bin/env bash
# run_device_multigpu.sh -- issue 22's scaling run on a machine with G GPUs
# (one rank per GPU, G = 1, 2, 4, 8 as the machine has): build libpacksell_mpi
# with CUDA, check every G against one GPU (the distributed GPU tests at G
# ranks: SpMV bitwise on integer-valued matrices, PCG/Jacobi iteration counts
# equal), then time, for each G,
#   weak scaling: HPCG_7_7_7 rows per GPU (a 128^3 box a rank, 3D process grid);
#   strong scaling: HPCG_8_8_8 (256^3 split over the grid) and HPGMP_8_8_8;
#   SpMV per format and transport (host-staged MPI, NCCL), split into pack,
#     local SpMV, halo wait, remote SpMV, with the ghosts per rank
#     (bench/dist_gpu_bench: PackSELL FP16, SELL FP64), and PackSELL FP16,
#     E8M21 and SELL FP64 through `mpirun packsell bench`;
#   PCG + Jacobi per iteration with the allreduces (bench/dist_pcg_bench);
#   IO-CG (HPCG_8_8_8) and F3R (HPGMP_8_8_8) to 1e-9 (mpirun packsell solve).
# On a machine with one GPU it runs G = 1 and, for the plumbing, 2 ranks on
# that GPU (host-staged only: NCCL refuses two ranks on one GPU).
# NCCL_NVLS_ENABLE=0 and NVSHMEM_DISABLE_NVLS=1 are set for every run.
# Everything lands in $OUT/multigpu (one JSON line per case in *.jsonl, logs,
# host.txt); a short table is printed last.
# Usage (device tool): bash bench/run_device_multigpu.sh
#   env: G_LIST (default: 1 2 4 8 up to the GPU count), MG_DEADLINE (s, 570),
#        MG_REPEAT (solves per PCG case, 3), MG_COMMIT (recorded; the device
#        copy's git metadata may be stale)
set -uo pipefail
cd "$(dirname "$0")/.."
T0=$(date +%s)
OUT=${OUT:-/tmp/psl-out}
RES=$OUT/multigpu
mkdir -p "$RES"
export PATH="$PATH:/usr/local/cuda/bin" OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1 OMP_WAIT_POLICY=PASSIVE
DEADLINE=${MG_DEADLINE:-570}
REPEAT=${MG_REPEAT:-3}
log() { echo "[$(date +%H:%M:%S) +$(($(date +%s) - T0))s] $*" | tee -a "$RES/log.txt"; }
# timeout for a step: at most $1 s, and no later than the deadline
cap() { local l=$((DEADLINE - ($(date +%s) - T0))); [ "$l" -lt "$1" ] && echo $((l > 5 ? l : 5)) || echo "$1"; }
NGPU=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU' || true)
[ "${NGPU:-0}" -ge 1 ] || { echo "no GPU"; exit 1; }
if [ -z "${G_LIST:-}" ]; then
  G_LIST=""
  for g in 1 2 4 8; do [ "$g" -le "$NGPU" ] && G_LIST="$G_LIST $g"; done
  [ "$NGPU" = 1 ] && G_LIST="1 2" # two ranks on the one GPU: the plumbing
fi
{
  echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "commit: ${MG_COMMIT:-$(git rev-parse --short HEAD 2>/dev/null || echo unknown)}"
  echo "gpus: $NGPU; G: $G_LIST"
  nvidia-smi --query-gpu=name,memory.total,clocks.max.sm --format=csv 2>&1
  nvidia-smi topo -m 2>&1 | head -12
  mpirun --version 2>&1 | head -1
} >"$RES/host.txt" 2>&1
cat "$RES/host.txt"

. bench/dist_build.sh
dist_build_step

MPIRUN="mpirun --oversubscribe --bind-to none"
# the generators' 3D process grid for g ranks (psl_dist_process_grid: the
# smallest dims sum, ties most along z), for g a power of two up to 8
dims() { case $1 in 1) echo "1 1 1" ;; 2) echo "1 1 2" ;; 4) echo "1 2 2" ;; 8) echo "2 2 2" ;; *) echo "" ;; esac; }
threads() { echo $(($(nproc) / $1 > 0 ? $(nproc) / $1 : 1)); }

for g in $G_LIST; do
  read -r dx dy dz <<<"$(dims "$g")"
  [ -n "$dx" ] || { log "G = $g: not a power of two up to 8, skipped"; continue; }
  t=$(threads "$g")
  # checks: every distributed GPU test at g ranks (bitwise SpMV, equal PCG counts)
  for tst in build-dist/tests/test_dist_gpu*; do
    [ -x "$tst" ] || continue
    log "G $g: $(basename "$tst")"
    timeout "$(cap 120)" $MPIRUN -np "$g" -x OMP_NUM_THREADS="$t" "$tst" \
      >"$RES/check_$(basename "$tst")_g$g.txt" 2>&1
    log "  exit $? ($(tail -1 "$RES/check_$(basename "$tst")_g$g.txt"))"
  done
  # SpMV per format and transport, with the phase split: weak (128^3 a rank)
  # and strong (256^3 over the grid)
  if [ -x build-dist/bench/dist_gpu_bench ]; then
    for scale in weak strong; do
      if [ "$scale" = weak ]; then box="128 128 128"; else box="$((256 / dx)) $((256 / dy)) $((256 / dz))"; fi
      log "G $g: dist_gpu_bench $scale, box $box a rank"
      timeout "$(cap 120)" $MPIRUN -np "$g" -x OMP_NUM_THREADS="$t" build-dist/bench/dist_gpu_bench \
        $box 100 2>"$RES/spmv_${scale}_g$g.err" |
        sed "s/^{/{\"scale\": \"$scale\", \"G\": $g, /" >>"$RES/spmv.jsonl"
      log "  exit ${PIPESTATUS[0]}"
    done
  fi
  # PCG + Jacobi per iteration (the allreduces included), weak and strong
  for scale in weak strong; do
    if [ "$scale" = weak ]; then box="128 128 128"; else box="$((256 / dx)) $((256 / dy)) $((256 / dz))"; fi
    log "G $g: dist_pcg_bench $scale, box $box a rank"
    timeout "$(cap 150)" $MPIRUN -np "$g" -x OMP_NUM_THREADS="$t" build-dist/bench/dist_pcg_bench \
      --device cuda --box $box --repeat "$REPEAT" 2>"$RES/pcg_${scale}_g$g.err" |
      grep '^{' | sed "s/^{/{\"scale\": \"$scale\", \"G\": $g, /" >>"$RES/pcg.jsonl"
    log "  exit ${PIPESTATUS[0]}"
  done
  # SpMV of the three formats through the command (E8M21 has no dist_gpu_bench
  # case): weak, HPCG with G times HPCG_7_7_7's rows; strong, HPCG_8_8_8
  for scale in weak strong; do
    case "$scale:$g" in
      weak:1) spec=gen:hpcg:7:7:7 ;; weak:2) spec=gen:hpcg:7:7:8 ;; weak:4) spec=gen:hpcg:7:8:8 ;;
      *) spec=gen:hpcg:8:8:8 ;;
    esac
    log "G $g: packsell bench $spec ($scale)"
    timeout "$(cap 120)" $MPIRUN -np "$g" -x OMP_NUM_THREADS="$t" build-dist/packsell bench "$spec" \
      --device cuda --kernels packsell-fp16,packsell-e8m21,sell-fp64 --reps 50 \
      --json "$RES/cli_bench_${scale}_g$g.json" >"$RES/cli_bench_${scale}_g$g.txt" 2>&1
    log "  exit $?"
  done
  # the solvers to 1e-9 through the command (strong scaling: one global matrix)
  for run in "iocg gen:hpcg:8:8:8 --method iocg --inner-values e8m21" \
             "f3r gen:hpgmp:8:8:8 --method f3r"; do
    read -r name spec rest <<<"$run"
    log "G $g: packsell solve $spec $rest"
    timeout "$(cap 150)" $MPIRUN -np "$g" -x OMP_NUM_THREADS="$t" build-dist/packsell solve "$spec" \
      --device cuda --tol 1e-9 $rest --json "$RES/solve_${name}_g$g.json" \
      >"$RES/solve_${name}_g$g.txt" 2>&1
    log "  exit $? ($(grep -m1 -E 'converged|iterations' "$RES/solve_${name}_g$g.txt"))"
  done
done

log "table:"
python3 - "$RES" <<'PY' | tee -a "$RES/log.txt"
import json, os, sys
res = sys.argv[1]
def lines(name):
    p = os.path.join(res, name)
    return [json.loads(l) for l in open(p) if l.startswith("{")] if os.path.exists(p) else []
sp = [d for d in lines("spmv.jsonl") if "median_us" in d]
base = {(d["scale"], d["format"], d["vec"], d["transport"]): d["median_us"] for d in sp if d["G"] == 1}
print("SpMV (us; efficiency weak t1/tG, speed-up strong t1/tG):")
for d in sp:
    b = base.get((d["scale"], d["format"], d["vec"], d["transport"]))
    r = b / d["median_us"] if b else float("nan")
    s = d.get("timed_split_us", {})
    split = " ".join(f"{k} {max(v):.1f}" for k, v in s.items())
    print(f"  {d['scale']:6s} G {d['G']} {d['format']:14s} {d['vec']:4s} {d['transport']:10s} "
          f"{d['median_us']:9.1f} ratio {r:5.2f} ghosts {d.get('max_ghosts')} | {split}")
pc = [d for d in lines("pcg.jsonl") if "per_iteration_s" in d]
pbase = {(d["scale"], d.get("path")): d["per_iteration_s"] for d in pc if d["G"] == 1}
print("PCG + Jacobi (ms an iteration):")
for d in pc:
    b = pbase.get((d["scale"], d.get("path")))
    r = b / d["per_iteration_s"] if b else float("nan")
    print(f"  {d['scale']:6s} G {d['G']} {d.get('path', '-'):12s} {d['pcg_iterations']} it "
          f"{d['per_iteration_s'] * 1e3:8.3f} ms ratio {r:5.2f}")
PY
