#!/usr/bin/env bash
# run_device_f3r_bench.sh -- one device call of the nonsymmetric-solver
# benchmark (bench/f3r_bench.py: FP64-, FP16- and PackSELL-F3R, BiCGStab and
# GMRES(100) with SD-AINV, and the reference code's F3R, FGMRES and BiCGStab
# beside them) on the H200: build `packsell` and the GPU solver tests (CUDA,
# sm_90, Release), run one PART inside the call's time, and pack the results
# into $OUT/f3r-bench.tar.gz (folder f3r-PART/: solves.csv, json/, hist/,
# log/, meta.json, host.txt, build.txt, tests.txt), printing a table last.
#
# Usage (device tool): bash bench/run_device_f3r_bench.sh PART
#   7      the GPU Krylov tests, then HPGMP_7_7_7 and HPCG_7_7_7 (every solver,
#          at both stopping rules, and the four peers), the nonsymmetric
#          matrices of .dev-matrices/ (ours; the reference's FP16-F3R and
#          BiCGStab) and gen:lap3d:128 (ours)
#   8      HPGMP_8_8_8 (every solver, the peers' FP16-F3R and BiCGStab), then
#          PackSELL- and FP16-F3R on HPCG_8_8_8
#   rest   what part 7, 8 and grid left out: PackSELL-F3R with the inner cycles'
#          reads deferred and not (PSL_SOLVER_DEFER_READS), the SPD matrices of
#          .dev-matrices/ (F3R_SPD; every solver, the reference's FP16-F3R and
#          BiCGStab), HPGMP/HPCG 8_7_7 and 8_8_7, GMRES and BiCGStab on HPCG_8_8_8,
#          the reference's FP64-F3R and FGMRES on HPGMP_8_8_8
#   rest2  what rest ran out of time for: the SPD matrices, the reference's
#          FGMRES(64) on HPGMP_8_8_8
#   last8  FP64-F3R and the reference's four solvers on HPCG_8_8_8
#   lastmid  the reference's BiCGStab on HPCG_8_8_8, its FP16-F3R and BiCGStab on
#          HPGMP/HPCG 8_7_7 and 8_8_7, its FGMRES(64) on HPCG_7_7_7
#   last887  the reference's FP16-F3R and BiCGStab on HPCG_8_8_7
#   grid   test_gpu_csrk, then PackSELL-F3R at the reference's rule on HPGMP_7_7_7
#          with other inner step counts (m2:m3:m4), the case where the reference's
#          BiCGStab is its fastest solver
#   smoke  every solver and peer on HPGMP_5_5_5 and sherman3
# Carry: .dev-matrices (the Matrix Market files of NONSYM below, copied from
# ../shared/matrices) and .dev-f3r (f3r-gpu-bins.tar.xz and SHA256SUMS from
# ../shared/peers/f3r). Environment: F3R_DEADLINE (seconds from the start by
# which the run ends, default 560), F3R_REPEAT (solves per command, default
# 3), F3R_BIN (a built packsell: no build), F3R_COMMIT (the commit recorded),
# F3R_DEVICE (cuda, or cpu to try the script out here).
# Afterwards, here: unpack the archive into bench/results/DATE-gpu-f3r/ and run
#   python3 bench/f3r_report.py bench/results/DATE-gpu-f3r/f3r-*
set -uo pipefail
cd "$(dirname "$0")/.."
T0=$(date +%s)
PART=${1:-smoke}
OUT=${OUT:-/tmp/psl-out}
DEADLINE=${F3R_DEADLINE:-560}
REPEAT=${F3R_REPEAT:-3}
NONSYM=${F3R_NONSYM:-sherman3,orsirr_1,add32,cage10,memplus,ex6}
WORK=/tmp/psl-f3r
RES=$WORK/f3r-$PART
ARCHIVE=$OUT/f3r-bench.tar.gz
rm -rf "$RES"
mkdir -p "$RES" "$OUT"
export PATH="$PATH:/usr/local/cuda/bin" PYTHONUNBUFFERED=1 PSL_MATRIX_DIR=$PWD/.dev-matrices
export OMP_NUM_THREADS=$(nproc) OMP_PROC_BIND=close OMP_PLACES=cores OMP_WAIT_POLICY=PASSIVE
export SOLVER_COMMIT=${F3R_COMMIT:-$(git rev-parse --short HEAD 2>/dev/null || echo unknown)}
log() { echo "[$(date +%H:%M:%S) +$(( $(date +%s) - T0 ))s] $*" | tee -a "$RES/log.txt"; }
left() { echo $(( DEADLINE - ($(date +%s) - T0) )); }
pack() {
  tar czf "$ARCHIVE.part" --exclude="*/sdainv-cache" -C "$WORK" "$(basename "$RES")" && mv -f "$ARCHIVE.part" "$ARCHIVE"
  cp "$RES/log.txt" "$OUT/log.txt" 2>/dev/null
}
{
  echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "commit: $SOLVER_COMMIT"
  echo "part: $PART"
  echo "host cpus: $(nproc)"
  grep -m1 "model name" /proc/cpuinfo
  nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv 2>&1
  nvcc --version 2>/dev/null | tail -1
} >"$RES/host.txt" 2>&1
cat "$RES/host.txt"

BIN=${F3R_BIN:-build-gpu/packsell}
TESTS=(test_gpu_krylov test_gpu_solver)
[ "$PART" = grid ] && TESTS=(test_gpu_csrk)
[ "$PART" = rest ] && TESTS=(test_gpu_krylov)
if [ -z "${F3R_BIN:-}" ]; then
  log "build (Release, CUDA sm_90, -j $(nproc))"
  if ! cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DPSL_ENABLE_CUDA=ON \
       -DCMAKE_CUDA_ARCHITECTURES=90 >"$RES/build.txt" 2>&1 ||
     ! cmake --build build-gpu --target packsell "${TESTS[@]}" -j "$(nproc)" >>"$RES/build.txt" 2>&1; then
    log "build failed; the end of build.txt:"; tail -30 "$RES/build.txt"; pack; exit 1
  fi
  log "built"
fi

bench() { # bench NAME SHARE(% of the time left) f3r_bench.py options...
  local name=$1 share=$2; shift 2
  local budget=$(( ($(left) - 30) * share / 100 ))
  [ "$budget" -lt 15 ] && { log "$name: no time left, not started"; return; }
  log "$name: budget $budget s"
  python3 bench/f3r_bench.py --out "$RES" --bin "$BIN" --repeat "$REPEAT" --budget "$budget" \
    --device "${F3R_DEVICE:-cuda}" --part "$name" --archive "$ARCHIVE" "$@" 2>&1 | tee -a "$RES/bench-log.txt" | grep -v '^\[[0-9:]*\]   ' || true
  pack
}
run_tests() {
  local t
  for t in "${TESTS[@]}"; do
    [ -x "build-gpu/tests/$t" ] || { log "$t: not built"; continue; }
    log "test $t"
    (cd build-gpu/tests && timeout 120 "./$t") >"$RES/test_$t.txt" 2>&1
    log "$t: exit $? ($(tail -1 "$RES/test_$t.txt"))"
  done
  pack
}
# bcsstk13 last: its FP64 solves run to the iteration limit and would take the
# others' time
SPD=${F3R_SPD:-bcsstk16,Dubcova1,gr_30_30,1138_bus,nos1,lund_a,bcsstm25,bcsstk13}
spd() { local m out=""; for m in ${SPD//,/ }; do out+="$PSL_MATRIX_DIR/$m.mtx,"; done; echo "${out%,}"; }
# PackSELL-F3R with the inner cycles' reads deferred (PSL_SOLVER_DEFER_READS=1,
# the default) and per step (0), alternating, on HPGMP_6_6_6 and 7_7_7: defer/
defer_ab() {
  mkdir -p "$RES/defer"
  local m d r
  for m in ${F3R_DEFER_MATRICES:-gen:hpgmp:6:6:6 gen:hpgmp:7:7:7}; do
    for r in 1 2; do
      for d in 1 0; do
        PSL_SOLVER_DEFER_READS=$d timeout 120 "$BIN" solve "$m" --device "${F3R_DEVICE:-cuda}" --method f3r \
          --f3r-values fp16 --repeat 5 --json "$RES/defer/$(echo "${m#gen:}" | tr ':' '_')_d${d}_r$r.json" \
          >/dev/null 2>&1 || log "defer $m d=$d failed"
      done
    done
  done
  python3 - "$RES/defer" <<'PYEOF' | tee -a "$RES/log.txt"
import glob, json, os, sys
for f in sorted(glob.glob(os.path.join(sys.argv[1], "*.json"))):
    d = json.load(open(f))
    print(f"defer {os.path.basename(f)[:-5]:22s} {d.get('status')} outer {d.get('iterations')} "
          f"solve {d.get('solve_s', 0):.4f} s ({d.get('solve_s_min', 0):.4f}..{d.get('solve_s_max', 0):.4f})")
PYEOF
  pack
}
nonsym() { local m out=""; for m in ${NONSYM//,/ }; do out+="$PSL_MATRIX_DIR/$m.mtx,"; done; echo "${out%,}"; }

case "$PART" in
  7)
    run_tests
    bench hpgmp7 40 --matrices gen:hpgmp:7:7:7
    bench hpcg7 50 --matrices gen:hpcg:7:7:7 --peers f3r16,f3r64,bicg64
    bench real 70 --matrices "$(nonsym)" --rule "" --peers f3r16,bicg64
    bench lap3d 100 --matrices gen:lap3d:128 --rule "" --peers "" ;;
  8)
    bench hpgmp8 85 --matrices gen:hpgmp:8:8:8 --repeat 2 --peers f3r16,bicg64 \
      --solvers f3r-packsell,f3r-fp16,f3r-fp64,bicgstab,gmres100 --rule f3r-packsell,bicgstab
    bench hpcg8 100 --matrices gen:hpcg:8:8:8 --repeat 2 --solvers f3r-packsell,f3r-fp16 --rule "" --peers "" ;;
  rest)
    run_tests
    defer_ab
    bench spd 30 --matrices "$(spd)" --rule "" --peers f3r16,bicg64
    bench mid 45 --matrices gen:hpgmp:8:7:7,gen:hpcg:8:7:7,gen:hpgmp:8:8:7,gen:hpcg:8:8:7 --repeat 2 \
      --solvers f3r-packsell,f3r-fp16,f3r-fp64,bicgstab,gmres100 --rule "" --peers ""
    bench hpcg8rest 50 --matrices gen:hpcg:8:8:8 --repeat 2 --solvers bicgstab,gmres100 --rule "" --peers ""
    bench peers8 100 --matrices gen:hpgmp:8:8:8 --solvers "" --rule "" --peers f3r64,gm64 ;;
  rest2)
    # what part rest ran out of time for: the SPD matrices after bcsstk13, the
    # reference's FGMRES(64) on HPGMP_8_8_8
    bench spd 45 --matrices "$(spd)" --rule "" --peers f3r16,bicg64
    bench peers8 100 --matrices gen:hpgmp:8:8:8 --solvers "" --rule "" --peers gm64 ;;
  last8)
    # Figure 10's last gaps at 8_8_8: FP64-F3R and the reference's four solvers
    # on HPCG_8_8_8, ours at its rule beside them
    bench hpcg8last 100 --matrices gen:hpcg:8:8:8 --repeat 2 --solvers f3r-fp64 \
      --rule f3r-packsell,bicgstab --peers f3r16,f3r64,gm64,bicg64 ;;
  lastmid)
    # the reference's BiCGStab on HPCG_8_8_8 (what last8 ran out of time for)
    bench hpcg8-bicg 25 --matrices gen:hpcg:8:8:8 --solvers "" --rule "" --peers bicg64
    # the reference's FP16-F3R and BiCGStab on the sizes between 7_7_7 and 8_8_8,
    # and its FGMRES(64) on HPCG_7_7_7, ours at its rule beside them
    bench mid-ref 80 --matrices gen:hpgmp:8:7:7,gen:hpcg:8:7:7,gen:hpgmp:8:8:7,gen:hpcg:8:8:7 \
      --repeat 2 --solvers "" --rule f3r-packsell,bicgstab --peers f3r16,bicg64
    bench hpcg7-gm 100 --matrices gen:hpcg:7:7:7 --solvers "" --rule "" --peers gm64 ;;
  last887)
    # the reference's FP16-F3R and BiCGStab on HPCG_8_8_7 (what lastmid ran out of time for)
    bench hpcg887-ref 100 --matrices gen:hpcg:8:8:7 --solvers "" --rule "" --peers f3r16,bicg64 ;;
  grid)
    run_tests
    bench grid7 100 --matrices gen:hpgmp:7:7:7 --peers "" --solvers "" \
      --rule "f3r-packsell@8:2:2,f3r-packsell@8:3:2,f3r-packsell@6:4:2,f3r-packsell@8:4:1,f3r-packsell@4:4:2,f3r-packsell@8:2:3,f3r-packsell" ;;
  smoke)
    run_tests
    bench smoke 100 --matrices "gen:hpgmp:5:5:5,$PSL_MATRIX_DIR/sherman3.mtx" --repeat 2 ;;
  *) echo "run_device_f3r_bench.sh: unknown part '$PART' (7, 8, grid, rest, rest2, last8, lastmid, last887, smoke)" >&2; exit 2 ;;
esac
pack
log "table:"
python3 - "$RES/solves.csv" <<'EOF' | tee -a "$RES/log.txt"
import csv, sys
for r in csv.DictReader(open(sys.argv[1])):
    print(f"{r['key'][:40]:40s} {r['status'][:10]:10s} it {r['iterations']:>6s} ref-it {r['iters_ref']:>6s} "
          f"solve {float(r['solve_s'] or 'nan'):9.4f} s relres {float(r['relres'] or 'nan'):.2e} "
          f"rec {float(r['relres_recursive'] or 'nan'):.2e}")
EOF
pack
