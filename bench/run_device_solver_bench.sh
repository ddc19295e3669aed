#!/usr/bin/env bash
# run_device_solver_bench.sh -- one device call of the solver benchmark
# (bench/solver_bench.py: FP64 PCG and IO-CG with FP32/FP16 SELL, PackSELL
# FP16 and E8MY inside, SD-AINV everywhere; CuPy cg and the reference F3R
# code beside them) on the H200: build `packsell` (CUDA, sm_90, Release) on
# all cores, run one PART of the plan inside the call's time, write the
# report, pack everything into $OUT/solver-bench.tar.gz (the folder
# solvers-PART/: solves.csv, json/, hist/, log/, host.txt, build.txt,
# report/ with the figures and RESULTS-solvers.md) and print a short table last.
#
# Usage (device tool): bash bench/run_device_solver_bench.sh PART
#   1      CuPy cg + Jacobi beside our PCG + Jacobi on HPCG_7_7_7, the SpMVs
#          of HPCG_7_7_7 alone, the reference's CG + SD-AINV and FP16-F3R
#          beside our PCG stopped by its rule, the grid on HPCG_7_7_7, then
#          the grid on the SPD matrices of .dev-matrices/ (interleaved)
#   2      CuPy and our PCG + Jacobi on HPCG_8_8_8, then its grid
#   3      the SpMVs of HPCG_8_8_8 alone, the grid on HPCG_8_7_7, gen:lap3d:128,
#          HPCG_8_8_7 and gen:lap3d:192 with D in $SOLVER_D3 (default
#          12,10,8,6,4,2, so that each matrix gets a spread of D in the time)
#   key    the peers of part 1 (CuPy, the reference's CG and FP16-F3R, the SpMVs
#          alone) on HPCG_7_7_7, CG with and without its lookahead and fused
#          steps (PSL_SOLVER_LOOKAHEAD, PSL_SOLVER_FUSE), then on HPCG_8_8_8 CuPy,
#          FP64 PCG and FP32- and E8MY-IO-CG at m_in 50 (D in $SOLVER_DKEY,
#          default 10,8): the targets' cases in one call
#   grid   the grids of part 1 alone (HPCG_7_7_7, then the SPD matrices)
#   targets  in one call: on HPCG_8_8_8 FP64 PCG, FP32-, PackSELL FP16- and
#          E8MY-IO-CG (D 12,10,8) at m_in 50 and its SpMVs alone; the whole grid
#          on HPCG_7_7_7; the SPD matrices at m_in 50 (every D)
#   graph  IO-CG (E8MY) with its inner CG replayed from a CUDA graph and
#          launched kernel by kernel, FP64 PCG beside them, on the SPD
#          matrices of .dev-matrices/, HPCG_5_5_5, gen:lap3d:64 and HPCG_7_7_7
#          (graph/, bench/solver_graph_report.py; SOLVER_GRAPH_MATRICES
#          replaces the list)
#   smoke  everything on tiny matrices (about 2 minutes with the build)
#   all    1, 2 and 3 in one run (no call limit: a machine of one's own)
# Carry: .dev-matrices and .dev-f3r (part 1 reads them), made here first by
#   python3 bench/solver_bench.py --stage --bin CPU_BUILD/packsell
# (the SPD matrices of ../shared/matrices with their SD-AINV acc, and the
# reference's binaries). The three parts fill one day's 30 minutes of device
# time when called one after the other on a warm machine (which keeps the
# build, so only the first call compiles); give part 3
# SOLVER_DEADLINE=min(540, budget_left_s - 90) from the tool's status.
# Afterwards, here: unpack each call's solver-bench.tar.gz into
# bench/results/DATE-solvers/ and run
#   python3 bench/solver_report.py bench/results/DATE-solvers/solvers-* \
#     --out bench/results/DATE-solvers --publish bench/results/RESULTS-solvers.md
# Environment: SOLVER_DEADLINE (seconds from the start by which the run must
# have ended, default 540; the bench gets what the build leaves, less 40 s
# for the report and the archive), SOLVER_REPEAT (solves per run, default 3),
# SOLVER_BIN (a built packsell to use instead of building), SOLVER_ARGS
# (more solver_bench.py options, after the part's own, so they win: e.g.
# SOLVER_ARGS="--variants e8 --d 1-5" for what a part left out),
# SOLVER_OUT (results folder name, default solvers-PART), SOLVER_RESUME_FROM
# (a carried results folder of an earlier call: copied in first, and the
# solves it already holds are not run again), SOLVER_DEVICE=cpu (a CPU run),
# SOLVER_COMMIT (the commit to record, where the copy has no git).
set -uo pipefail
cd "$(dirname "$0")/.."
T0=$(date +%s)
PART=${1:-smoke}
OUT=${OUT:-/tmp/psl-out}
DEADLINE=${SOLVER_DEADLINE:-540}
REPEAT=${SOLVER_REPEAT:-3}
# the results are gathered outside $OUT, which must hold few files (the
# device tool returns at most 8): there only the archive, log.txt, summary.txt
WORK=${SOLVER_WORK:-/tmp/psl-solver}
RES=$WORK/${SOLVER_OUT:-solvers-$PART}
ARCHIVE=$OUT/solver-bench.tar.gz
rm -rf "$RES"
mkdir -p "$RES" "$OUT"
RESUME=()
if [ -n "${SOLVER_RESUME_FROM:-}" ]; then
  cp -r "$SOLVER_RESUME_FROM"/. "$RES"/ && RESUME=(--resume)
fi
export PATH="$PATH:/usr/local/cuda/bin" PYTHONUNBUFFERED=1
export PSL_RUN_COMMAND="$(env | grep -E '^SOLVER_' | sort | tr '\n' ' ')bash bench/run_device_solver_bench.sh $PART"
export OMP_NUM_THREADS=$(nproc) OMP_PROC_BIND=close OMP_PLACES=cores OMP_WAIT_POLICY=PASSIVE
log() { echo "[$(date +%H:%M:%S) +$(( $(date +%s) - T0 ))s] $*" | tee -a "$RES/log.txt"; }
# pack: rhs/ (b, rebuilt from the seed) never; the solves' logs, then their
# histories, only while the archive stays under the tool's 16 MiB a file
pack() {
  local ex
  for ex in "" "--exclude=*/log" "--exclude=*/log --exclude=*/hist"; do
    # shellcheck disable=SC2086
    tar czf "$ARCHIVE.part" --exclude="*/rhs" --exclude="*/sdainv-cache" $ex -C "$WORK" "$(basename "$RES")" 2>/dev/null || continue
    [ "$(stat -c %s "$ARCHIVE.part")" -lt 15728640 ] && break
  done
  mv -f "$ARCHIVE.part" "$ARCHIVE"
  cp "$RES/log.txt" "$OUT/log.txt" 2>/dev/null
}
left() { echo $(( DEADLINE - ($(date +%s) - T0) )); }

{
  echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  # the device copy's git is not the tree's: SOLVER_COMMIT names the commit, no diff is checked
  if [ -n "${SOLVER_COMMIT:-}" ]; then echo "commit: $SOLVER_COMMIT"
  else echo "commit: $(git rev-parse --short HEAD 2>/dev/null || echo unknown)$(git diff --quiet HEAD 2>/dev/null || echo ' (working tree differs)')"; fi
  echo "part: $PART"
  echo "host cpus: $(nproc)"
  grep -m1 "model name" /proc/cpuinfo
  nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.max.sm,clocks.mem \
    --format=csv 2>/dev/null || echo "nvidia-smi: not available"
  nvcc --version 2>/dev/null | tail -1
  python3 -c 'import cupy; print("cupy", cupy.__version__)' 2>&1 | tail -1
  python3 -c 'import matplotlib; print("matplotlib", matplotlib.__version__)' 2>&1 | tail -1
} >"$RES/host.txt" 2>&1
cat "$RES/host.txt"

BIN=${SOLVER_BIN:-build-solver/packsell}
if [ -n "${SOLVER_BIN:-}" ]; then
  log "using $BIN (SOLVER_BIN), no build"; "$BIN" --version >"$RES/build.txt" 2>&1
else
log "build (Release, CUDA sm_90, -j $(nproc))"
if ! cmake -S . -B build-solver -G Ninja -DCMAKE_BUILD_TYPE=Release -DPSL_ENABLE_CUDA=ON \
     -DCMAKE_CUDA_ARCHITECTURES=90 -DPSL_BUILD_TESTS=OFF >"$RES/build.txt" 2>&1 ||
   ! cmake --build build-solver --target packsell -j "$(nproc)" >>"$RES/build.txt" 2>&1; then
  log "build failed; the end of build.txt:"; tail -30 "$RES/build.txt"; pack; exit 1
fi
grep -q "CUDA backend ON" "$RES/build.txt" || { log "no CUDA backend in the build (see build.txt)"; pack; exit 1; }
fi
"$BIN" solve --help >"$RES/solve-help.txt" 2>&1 || { log "this build has no 'packsell solve'"; pack; exit 1; }
log "built"

DEV=cuda
[ "${SOLVER_DEVICE:-}" = cpu ] && DEV=cpu
bench() { # bench NAME BUDGET_SHARE(%) solver_bench.py options...
  local name=$1 share=$2; shift 2
  local budget=$(( ($(left) - 40) * share / 100 ))
  if [ "$budget" -lt 10 ]; then log "$name: no time left, not started"; echo "$name: not started (no time left)" >>"$RES/not-run.txt"; return; fi
  log "$name: budget $budget s"
  # shellcheck disable=SC2086
  python3 bench/solver_bench.py --out "$RES" --bin "$BIN" --device $DEV --repeat "$REPEAT" \
    --budget "$budget" --part "$name" --archive "$ARCHIVE" "${RESUME[@]}" "$@" ${SOLVER_ARGS:-} 2>&1 | tee -a "$RES/bench-log.txt" |
    grep -v '^\[[0-9:]*\]   ' || true
  pack
}
# the SpMVs of the solvers' matrices timed alone (the time-per-iteration target)
KERNELS=sell-fp64,csr-fp64,cusparse-csr-fp64,sell-fp32,sell-fp16:fp32,packsell-fp16:fp32,packsell-e8m14:fp32,packsell-e8m10:fp32
KERNELS8=sell-fp64,csr-fp64,cusparse-csr-fp64,sell-fp32,packsell-fp16:fp32,packsell-e8m14:fp32,packsell-e8m12:fp32,packsell-e8m10:fp32
# part 3: fewer D per matrix, so that each gets a spread of them
D3=${SOLVER_D3:-12,10,8,6,4,2}
spmv_alone() { # spmv_alone SPEC KERNELS
  local spec=$1 tag
  tag=$(echo "${spec#gen:}" | tr ':' '_')
  log "spmv alone: $spec"
  timeout "$(( $(left) > 100 ? 90 : 10 ))" "$BIN" bench "$spec" --device "$DEV" --json "$RES/spmv_$tag.json" \
    --kernels "$2" >"$RES/spmv_$tag.txt" 2>&1 || log "spmv bench $spec failed or was cut (exit $?)"
  pack
}

# FP64 PCG + Jacobi (scaled: Jacobi is the identity) and + SD-AINV, with the
# lookahead and the fused steps on and off, one command each (ablation/)
ablation() { # ablation SPEC
  local spec=$1 tag la fu pc
  tag=$(echo "${spec#gen:}" | tr ':' '_')
  mkdir -p "$RES/ablation"
  log "ablation: $spec"
  for pc in jacobi sdainv; do
    for la in 1 0; do
      for fu in 1 0; do
        [ "$la$fu" = 00 ] && continue
        [ "$(left)" -lt 120 ] && { log "ablation: no time left"; return; }
        PSL_SOLVER_LOOKAHEAD=$la PSL_SOLVER_FUSE=$fu timeout 90 "$BIN" solve "$spec" --device "$DEV" \
          --precond $pc --repeat 5 --json "$RES/ablation/${tag}_${pc}_la${la}_fu${fu}.json" \
          >"$RES/ablation/${tag}_${pc}_la${la}_fu${fu}.txt" 2>&1 || log "ablation $pc la$la fu$fu failed (exit $?)"
      done
    done
  done
  python3 - "$RES/ablation" <<'PYEOF' | tee "$RES/ablation/summary.txt"
import json, glob, os, sys
for f in sorted(glob.glob(os.path.join(sys.argv[1], "*.json"))):
    d = json.load(open(f))
    it = d.get("iterations") or 0
    print(f"{os.path.basename(f)[:-5]:34s} {d.get('status','?'):10s} it {it:5d} solve {d.get('solve_s',0):.5f} s "
          f"per it {1e6*d.get('solve_s',0)/max(it,1):8.1f} us relres {d.get('relres',0):.2e}")
PYEOF
  pack
}

# CG from CUDA graphs (PSL_SOLVER_GRAPH=1, the default: IO-CG's inner
# iterations, PCG's steps) against launched kernel by kernel (0), the two
# alternating: FP64 PCG + SD-AINV, and E8MY-IO-CG with D in $SOLVER_DGRAPH (default 12,8,4),
# m_in 20 and 50 (graph/; --repeat 5 after one setup: the median replays the
# graph, the maximum is the first solve, which captures it)
graphab() { # graphab SPEC...
  local spec tag acc d m g
  mkdir -p "$RES/graph" "$WORK/sdainv-cache"
  for spec in "$@"; do
    tag=$(basename "${spec#gen:}" .mtx | tr ':' '_')
    acc=$(awk -F'\t' -v n="$tag" '$1 == n {print $8}' .dev-matrices/spd.tsv 2>/dev/null)
    case "$acc" in ""|-) acc=1.0 ;; esac
    [ "$(left)" -lt 60 ] && { log "graph: no time left for $spec"; echo "graph $spec: not started" >>"$RES/not-run.txt"; continue; }
    log "graph: $spec (acc $acc)"
    local common=(solve "$spec" --device "$DEV" --precond sdainv --sdainv-tol 0.1 --sdainv-acc "$acc"
                  --sdainv-cache "$WORK/sdainv-cache" --repeat 5 --max-iters 20000)
    for g in 1 0; do
      PSL_SOLVER_GRAPH=$g timeout 120 "$BIN" "${common[@]}" --json "$RES/graph/${tag}_pcg_g${g}.json" \
        >"$RES/graph/${tag}_pcg_g${g}.txt" 2>&1 || log "graph $spec pcg g$g: exit $?"
    done
    for m in 20 50; do
      for d in $(echo "${SOLVER_DGRAPH:-12,8,4}" | tr ',' ' '); do
        for g in 1 0; do
          PSL_SOLVER_GRAPH=$g timeout 120 "$BIN" "${common[@]}" --method iocg --inner-format packsell \
            --inner-values "e8m$((22 - d))" --inner-iters "$m" --max-iters $((40000 / m)) \
            --json "$RES/graph/${tag}_e8m$((22 - d))_m${m}_g${g}.json" \
            >"$RES/graph/${tag}_e8m$((22 - d))_m${m}_g${g}.txt" 2>&1 || log "graph $spec e8m$((22 - d)) m$m g$g: exit $?"
        done
      done
    done
    pack
  done
  python3 bench/solver_graph_report.py "$RES/graph" | tee "$RES/graph/summary.txt"
  pack
}

case "$PART" in
  graph)
    mapfile -t SPD < <(awk -F'\t' 'NR > 1 && $2 == "yes" {print ".dev-matrices/" $1 ".mtx"}' .dev-matrices/spd.tsv)
    # shellcheck disable=SC2086
    graphab ${SOLVER_GRAPH_MATRICES:-"${SPD[@]}" gen:hpcg:5:5:5 gen:lap3d:64 gen:hpcg:7:7:7} ;;
  key)
    bench peers7 12 --matrices hpcg7 --variants none --peers cupy
    spmv_alone gen:hpcg:7:7:7 "$KERNELS"
    bench f3r7 25 --matrices hpcg7 --variants none --peers f3r
    ablation gen:hpcg:7:7:7
    bench peers8 25 --matrices hpcg8 --variants none --peers cupy
    bench hpcg8key 100 --matrices hpcg8 --variants pcg,fp32,e8 --m-in 50 --d "${SOLVER_DKEY:-10,8}" ;;
  targets)
    bench hpcg8t 25 --matrices hpcg8 --variants pcg,fp32,psfp16,e8 --m-in 50 --d 12,10,8
    spmv_alone gen:hpcg:8:8:8 "$KERNELS8"
    bench hpcg7 45 --matrices hpcg7
    bench spd 100 --matrices spd --interleave --m-in 50 ;;
  grid)
    bench hpcg7 35 --matrices hpcg7
    bench spd 100 --matrices spd --interleave ;;
  smoke)
    ablation gen:hpcg:5:5:5
    bench smoke-peers 30 --matrices gen:hpcg:5:5:5 --variants pcg --peers cupy,f3r --m-in 20
    bench smoke-grid 100 --matrices gen:hpcg:5:5:5,nos1,gen:lap3d:32 --m-in 20,50 --d 12,8,4 ;;
  1)
    bench peers7 12 --matrices hpcg7 --variants none --peers cupy
    spmv_alone gen:hpcg:7:7:7 "$KERNELS"
    bench f3r7 25 --matrices hpcg7 --variants none --peers f3r
    bench hpcg7 70 --matrices hpcg7
    bench spd 100 --matrices spd --interleave ;;
  2)
    bench peers8 15 --matrices hpcg8 --variants none --peers cupy
    bench hpcg8 100 --matrices hpcg8 ;;
  3)
    spmv_alone gen:hpcg:8:8:8 "$KERNELS8"
    bench hpcg877 30 --matrices hpcg877 --d "$D3"
    bench lap3d128 25 --matrices gen:lap3d:128 --d "$D3"
    bench hpcg887 60 --matrices hpcg887 --d "$D3"
    bench lap3d192 100 --matrices gen:lap3d:192 --d "$D3" ;;
  all)
    bench peers 100 --matrices hpcg7,hpcg8 --variants none --peers cupy,f3r
    spmv_alone gen:hpcg:7:7:7 "$KERNELS"; spmv_alone gen:hpcg:8:8:8 "$KERNELS"
    bench grid 100 --matrices hpcg7,hpcg877,hpcg887,hpcg8,spd,gen:lap3d:128,gen:lap3d:192 ;;
  *) echo "run_device_solver_bench.sh: unknown part $PART (1, 2, 3, key, grid, targets, graph, smoke, all)"; exit 2 ;;
esac

if [ "$PART" = graph ]; then
  cp "$RES/graph/summary.txt" "$OUT/summary.txt" 2>/dev/null
  log "done"; cp "$RES/log.txt" "$OUT/log.txt" 2>/dev/null; exit 0
fi
log "report"
python3 bench/solver_report.py "$RES" --out "$RES/report" >"$RES/report.txt" 2>&1 ||
  log "report failed (exit $?): $(tail -3 "$RES/report.txt")"
pack
log "done; $(ls "$RES/json" 2>/dev/null | wc -l) solves in $ARCHIVE ($(du -h "$ARCHIVE" | cut -f1))"
cp "$RES/log.txt" "$OUT/log.txt" 2>/dev/null
cp "$RES/report/summary.txt" "$OUT/summary.txt" 2>/dev/null
cat "$RES/report/summary.txt" 2>/dev/null || tail -40 "$RES/bench-log.txt"
