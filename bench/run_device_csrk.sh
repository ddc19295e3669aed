#!/usr/bin/env bash
# run_device_csrk.sh -- one device call for CSR-k on the GPU and the GPU
# solver tests: build (CUDA sm_90, Release, with the tests), run
# test_gpu_csrk (and its compute-sanitizer memcheck on the generated
# matrices), test_gpu_krylov and test_gpu_solver, then time CSR-k FP64/FP32
# against cuSPARSE CSR of the same precision on the suite's regular matrices
# (`packsell bench --device cuda`, one JSON each), and PackSELL-F3R with its
# codec pinned to FP16 and chosen automatically on HPGMP_5/6_6_6 and the
# nonsymmetric matrices (bench/f3r_bench.py). Everything lands in
# $OUT/csrk-check.tar.gz, with a table printed last.
#
# Usage (device tool, carry .dev-matrices holding ../shared/matrices/*.mtx and
# INDEX.tsv, and .dev-f3r): bash bench/run_device_csrk.sh
# Environment: CSRK_DEADLINE (seconds, default 540), CSRK_COMMIT (recorded),
# CSRK_MATRICES (bench sources, default the list below).
set -uo pipefail
cd "$(dirname "$0")/.."
T0=$(date +%s)
OUT=${OUT:-/tmp/psl-out}
DEADLINE=${CSRK_DEADLINE:-540}
RES=/tmp/psl-csrk/csrk-check
rm -rf "$RES" && mkdir -p "$RES" "$OUT"
export PATH="$PATH:/usr/local/cuda/bin" PSL_MATRIX_DIR=$PWD/.dev-matrices PYTHONUNBUFFERED=1
export OMP_NUM_THREADS=$(nproc) OMP_PROC_BIND=close OMP_PLACES=cores OMP_WAIT_POLICY=PASSIVE
export SOLVER_COMMIT=${CSRK_COMMIT:-$(git rev-parse --short HEAD 2>/dev/null || echo unknown)}
MATRICES=${CSRK_MATRICES:-gen:hpcg:6:6:6,gen:hpcg:7:7:7,gen:hpcg:8:8:7,gen:hpgmp:7:7:7,gen:lap2d:2048,gen:lap3d:128,gen:banded:4000000:16:33,gen:random:4000000:16}
log() { echo "[$(date +%H:%M:%S) +$(( $(date +%s) - T0 ))s] $*" | tee -a "$RES/log.txt"; }
left() { echo $(( DEADLINE - ($(date +%s) - T0) )); }
pack() { tar czf "$OUT/csrk-check.tar.gz" --exclude="*/sdainv-cache" -C /tmp/psl-csrk csrk-check; cp "$RES/log.txt" "$OUT/"; }
{
  echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"; echo "commit: $SOLVER_COMMIT"
  grep -m1 "model name" /proc/cpuinfo; nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
} >"$RES/host.txt" 2>&1
log "build"
if ! { cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 &&
       cmake --build build-gpu -j "$(nproc)" --target packsell test_gpu_csrk test_gpu_krylov test_gpu_solver; } >"$RES/build.txt" 2>&1; then
  log "build failed"; tail -30 "$RES/build.txt"; pack; exit 1
fi
log "built"
for t in test_gpu_csrk test_gpu_krylov test_gpu_solver; do
  (cd build-gpu/tests && timeout 150 "./$t") >"$RES/$t.txt" 2>&1
  log "$t: exit $? ($(tail -1 "$RES/$t.txt"))"
done
(cd build-gpu/tests && timeout 90 compute-sanitizer --tool memcheck --error-exitcode 99 ./test_gpu_csrk generated) >"$RES/memcheck_csrk.txt" 2>&1
log "memcheck test_gpu_csrk generated: exit $? ($(grep -m1 'ERROR SUMMARY' "$RES/memcheck_csrk.txt"))"
pack
mkdir -p "$RES/spmv"
for m in ${MATRICES//,/ }; do
  [ "$(left)" -lt 150 ] && { log "spmv: no time left for $m"; break; }
  tag=$(echo "${m#gen:}" | tr ':' '_')
  timeout 60 build-gpu/packsell bench "$m" --device cuda --kernels csrk-fp64,cusparse-csr-fp64,csrk-fp32,cusparse-csr-fp32 \
    --json "$RES/spmv/$tag.json" >"$RES/spmv/$tag.txt" 2>&1
  log "spmv $m: exit $?"
done
pack
log "f3r codec: budget $(( $(left) - 30 )) s"
python3 bench/f3r_bench.py --out "$RES/f3r" --bin build-gpu/packsell --repeat 3 --budget $(( $(left) - 30 )) \
  --solvers f3r-packsell,f3r-auto,f3r-fp64 --rule "" --peers "" --part codec \
  --matrices gen:hpgmp:5:5:5,gen:hpgmp:6:6:6,memplus,sherman3,orsirr_1,add32,cage10 >"$RES/f3r-log.txt" 2>&1
pack
log "table:"
python3 - "$RES" <<'EOF' | tee -a "$RES/log.txt"
import csv, glob, json, os, sys
res = sys.argv[1]
for f in sorted(glob.glob(os.path.join(res, "spmv", "*.json"))):
    try:
        d = json.load(open(f))
    except ValueError:
        print(os.path.basename(f), "bad json"); continue
    ks = {k.get("name") or k.get("kernel"): k for k in d.get("kernels", d.get("results", []))}
    def us(n):
        k = ks.get(n) or {}
        return k.get("median_us") or k.get("time_us") or k.get("us")
    row = [os.path.basename(f)[:-5]]
    for a, b in (("csrk-fp64", "cusparse-csr-fp64"), ("csrk-fp32", "cusparse-csr-fp32")):
        ta, tb = us(a), us(b)
        row.append(f"{a} {ta} us vs {tb} us = {tb / ta:.3f}x" if ta and tb else f"{a}: {ta} / {tb}")
    print(" | ".join(row))
p = os.path.join(res, "f3r", "solves.csv")
if os.path.isfile(p):
    for r in csv.DictReader(open(p)):
        print(f"{r['key'][:34]:34s} {r['status'][:10]:10s} it {r['iterations']:>5s} solve {r['solve_s'][:8]:8s} s relres {r['relres'][:9]}")
EOF
pack
