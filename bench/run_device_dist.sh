#!/usr/bin/env bash
# run_device_dist.sh -- one device call for the distributed layer on the
# H200: build libpacksell_mpi with CUDA (Release, sm_90), run the MPI GPU
# tests (tests/test_dist_gpu*) at 1 and 2 ranks (two ranks share the one GPU:
# host-staged halos; NCCL refuses that), then time the distributed layer:
#   bench/dist_pcg_bench --device cuda: PCG + Jacobi and SpMV (SELL FP64) on
#     HPCG_8_8_8 at one rank, beside the plain single-GPU operator (issue 21's
#     one-rank overhead), and at two ranks on one GPU (the plumbing);
#   bench/dist_gpu_bench, when built: the SpMV per transport and format;
#   mpirun packsell bench|solve --device cuda (1 and 2 ranks).
# Before them, when F3R_PART is set, that part of bench/run_device_f3r_bench.sh
# (F3R_SECONDS, default 200) with the packsell just built. Everything lands in $OUT (dist/: logs, JSON lines,
# host.txt, build.txt); a short table is printed last.
# Usage (device tool): bash bench/run_device_dist.sh
#   env: DIST_BOX (HPCG box per rank at one rank, default "256 256 256"),
#        DIST_REPEAT (solves per case, default 5), F3R_PART, F3R_SECONDS, DIST_COMMIT
#        (the commit recorded; the device copy's git metadata may be stale)
# Afterwards, here: copy $OUT/dist into bench/results/DATE-gpu-dist/ and run
#   python3 bench/dist_report.py bench/results/DATE-gpu-dist
set -uo pipefail
cd "$(dirname "$0")/.."
T0=$(date +%s)
OUT=${OUT:-/tmp/psl-out}
RES=$OUT/dist
mkdir -p "$RES"
export PATH="$PATH:/usr/local/cuda/bin" OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1 OMP_WAIT_POLICY=PASSIVE
BOX=${DIST_BOX:-256 256 256}
REPEAT=${DIST_REPEAT:-5}
DEADLINE=${DIST_DEADLINE:-570}
log() { echo "[$(date +%H:%M:%S) +$(( $(date +%s) - T0 ))s] $*" | tee -a "$RES/log.txt"; }
# timeout for a step: at most $1 s, and no later than the deadline
cap() { local l=$(( DEADLINE - ($(date +%s) - T0) )); [ "$l" -lt "$1" ] && echo $(( l > 5 ? l : 5 )) || echo "$1"; }
{
  echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "commit: ${DIST_COMMIT:-$(git rev-parse --short HEAD 2>/dev/null || echo unknown)}"
  echo "host cpus: $(nproc)"
  grep -m1 "model name" /proc/cpuinfo
  nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv 2>&1
  nvcc --version 2>/dev/null | tail -1
  mpirun --version 2>&1 | head -1
  ompi_info --parsable --all 2>/dev/null | grep -m1 "mpi_built_with_cuda_support:value" || true
} >"$RES/host.txt" 2>&1
cat "$RES/host.txt"
. bench/dist_build.sh
dist_build_step
if [ -n "${F3R_PART:-}" ]; then
  log "F3R part $F3R_PART in ${F3R_SECONDS:-200} s"
  F3R_BIN=build-dist/packsell F3R_DEADLINE=${F3R_SECONDS:-200} F3R_REPEAT=${F3R_REPEAT:-2} OUT=$OUT \
    F3R_COMMIT=${DIST_COMMIT:-unknown} bash bench/run_device_f3r_bench.sh "$F3R_PART" 2>&1 | tail -6
fi
MPIRUN="mpirun --oversubscribe --bind-to none"
for t in build-dist/tests/test_dist_gpu*; do
  [ -x "$t" ] || continue
  for np in 1 2; do
    log "$(basename "$t") np $np"
    timeout $(cap 90) $MPIRUN -np $np "$t" >"$RES/$(basename "$t")_np$np.txt" 2>&1
    log "  exit $? ($(tail -1 "$RES/$(basename "$t")_np$np.txt"))"
  done
done
log "dist_pcg_bench: one rank, box $BOX"
timeout $(cap 150) $MPIRUN -np 1 -x OMP_NUM_THREADS=16 build-dist/bench/dist_pcg_bench --device cuda \
  --box $BOX --repeat "$REPEAT" 2>&1 | tee "$RES/dist_pcg_np1.txt" | tail -4
read -r bx by bz <<<"$BOX"
log "dist_pcg_bench: two ranks on the GPU, box $bx $by $((bz / 2))"
timeout $(cap 90) $MPIRUN -np 2 -x OMP_NUM_THREADS=8 build-dist/bench/dist_pcg_bench --device cuda \
  --box "$bx" "$by" "$((bz / 2))" --repeat 3 2>&1 | tee "$RES/dist_pcg_np2.txt" | tail -3
if [ -x build-dist/bench/dist_gpu_bench ]; then
  for np in 1 2; do
    args="$BOX"
    [ "$np" = 2 ] && args="$bx $by $((bz / 2))"
    log "dist_gpu_bench np $np: box $args"
    timeout $(cap 90) $MPIRUN -np $np build-dist/bench/dist_gpu_bench $args \
      >"$RES/dist_gpu_bench_np$np.txt" 2>&1
    log "  exit $?"; tail -12 "$RES/dist_gpu_bench_np$np.txt"
  done
fi
# the command under mpirun on the GPU: bench and solve, one and two ranks
for np in 1 2; do
  log "mpirun -np $np packsell bench gen:hpcg:8:8:8 --device cuda"
  timeout $(cap 90) $MPIRUN -np $np build-dist/packsell bench gen:hpcg:8:8:8 --device cuda \
    --kernels packsell-fp16,packsell-e8m21,sell-fp64 --reps 50 --json "$RES/cli_bench_np$np.json" \
    >"$RES/cli_bench_np$np.txt" 2>&1
  log "  exit $?"; head -12 "$RES/cli_bench_np$np.txt"
done
log "mpirun -np 2 packsell solve gen:hpcg:7:7:7 --device cuda --method pcg"
timeout $(cap 60) $MPIRUN -np 2 build-dist/packsell solve gen:hpcg:7:7:7 --device cuda --method pcg \
  >"$RES/cli_solve_np2.txt" 2>&1
log "  exit $?"; head -12 "$RES/cli_solve_np2.txt"
log "table:"
grep -h '"bench": "dist_pcg"' "$RES"/dist_pcg_np*.txt | python3 -c '
import json, sys
for l in sys.stdin:
    d = json.loads(l)
    print(f"{d[\"path\"]:12s} np {d[\"ranks\"]} PCG {d[\"pcg_iterations\"]} it {d[\"solve_s\"]:.4f} s "
          f"({d[\"per_iteration_s\"]*1e3:.3f} ms/it) SpMV {d[\"spmv_s\"]*1e6:.1f} us")
' | tee -a "$RES/log.txt"
grep -h "over the plain path" "$RES"/dist_pcg_np1.txt | tee -a "$RES/log.txt"
