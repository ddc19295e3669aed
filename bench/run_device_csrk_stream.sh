#!/usr/bin/env bash
# run_device_csrk_stream.sh -- one device call for CSR-k's GPU kernels
# against cuSPARSE CSR: build (CUDA sm_90, Release), test_gpu_csrk and its
# compute-sanitizer memcheck on the generated matrices, then
#  1. the suite's regular matrices with the CUDA tuning model's grouping:
#     CSR-k FP64/FP32 and cuSPARSE CSR of the same precision, side by side
#     (`packsell bench --device cuda`, CUDA events, median; one JSON each);
#  2. packsell tune-csrk --device cuda: the sweep of the device grouping,
#     its fit, and the fit's pick against the best swept pick (with
#     matrices held out of the fit);
#  3. the same suite with a second build whose stream kernel loads
#     CSRK_ELEMS_ALT entries a thread per window (PSL_CSRK_STREAM_ELEMS).
# Everything lands in $OUT/csrk-stream.tar.gz; a table is printed last
# (bench/csrk_gpu_report.py).
#
# Usage (device tool): bash bench/run_device_csrk_stream.sh
# Environment: CSRK_DEADLINE (seconds, default 370), CSRK_COMMIT (recorded),
# CSRK_MATRICES (suite), CSRK_HOLDOUT (tune-csrk's held-out matrices),
# CSRK_TUNE_SR / CSRK_TUNE_SSR (its grid), CSRK_ELEMS_ALT (4).
set -uo pipefail
cd "$(dirname "$0")/.."
T0=$(date +%s)
OUT=${OUT:-/tmp/psl-out}
DEADLINE=${CSRK_DEADLINE:-370}
RES=/tmp/psl-csrk/csrk-stream
rm -rf "$RES" && mkdir -p "$RES/spmv" "$RES/tune" "$RES/alt" "$OUT"
export PATH="$PATH:/usr/local/cuda/bin" PYTHONUNBUFFERED=1
export OMP_NUM_THREADS=$(nproc) OMP_WAIT_POLICY=PASSIVE
COMMIT=${CSRK_COMMIT:-$(git rev-parse --short HEAD 2>/dev/null || echo unknown)}
MATRICES=${CSRK_MATRICES:-gen:hpcg:6:6:6,gen:hpcg:7:7:7,gen:hpcg:8:8:7,gen:hpgmp:7:7:7,gen:lap2d:2048,gen:lap3d:128,gen:banded:4000000:16:33,gen:random:4000000:16}
HOLDOUT=${CSRK_HOLDOUT:-gen:hpcg:6:6:6,gen:hpgmp:7:7:7,gen:lap3d:100,gen:banded:2000000:8:12}
TUNE_SR=${CSRK_TUNE_SR:-8,16,32,64,128,256}
TUNE_SSR=${CSRK_TUNE_SSR:-1,2,4,16}
ALT=${CSRK_ELEMS_ALT:-4}
KERNELS=csrk-fp64,cusparse-csr-fp64,csrk-fp32,cusparse-csr-fp32
log() { echo "[$(date +%H:%M:%S) +$(( $(date +%s) - T0 ))s] $*" | tee -a "$RES/log.txt"; }
left() { echo $(( DEADLINE - ($(date +%s) - T0) )); }
pack() { tar czf "$OUT/csrk-stream.tar.gz" -C /tmp/psl-csrk csrk-stream; cp "$RES/log.txt" "$OUT/"; }
tag_of() { echo "${1#gen:}" | tr ':' '_'; }
{
  echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"; echo "commit: $COMMIT"
  grep -m1 "model name" /proc/cpuinfo; nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm,clocks.max.mem --format=csv,noheader
} >"$RES/host.txt" 2>&1
log "build"
if ! { cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 &&
       cmake --build build-gpu -j "$(nproc)" --target packsell test_gpu_csrk; } >"$RES/build.txt" 2>&1; then
  log "build failed"; tail -30 "$RES/build.txt"; pack; exit 1
fi
log "built"
(cmake -S . -B build-alt -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
   -DCMAKE_CUDA_FLAGS="-DPSL_CSRK_STREAM_ELEMS=$ALT" && cmake --build build-alt -j "$(nproc)" --target packsell) \
  >"$RES/build-alt.txt" 2>&1 &
ALT_PID=$!
(cd build-gpu/tests && timeout 150 ./test_gpu_csrk) >"$RES/test_gpu_csrk.txt" 2>&1
log "test_gpu_csrk: exit $? ($(tail -1 "$RES/test_gpu_csrk.txt"))"
(cd build-gpu/tests && timeout 120 compute-sanitizer --tool memcheck --error-exitcode 99 ./test_gpu_csrk generated) >"$RES/memcheck_csrk.txt" 2>&1
log "memcheck test_gpu_csrk generated: exit $? ($(grep -m1 'ERROR SUMMARY' "$RES/memcheck_csrk.txt"))"
pack
for m in ${MATRICES//,/ }; do
  [ "$(left)" -lt 200 ] && { log "spmv: no time left for $m"; break; }
  t=$(tag_of "$m")
  timeout 60 build-gpu/packsell bench "$m" --device cuda --kernels $KERNELS --json "$RES/spmv/$t.json" >"$RES/spmv/$t.txt" 2>&1
  log "spmv $m: exit $?"
done
pack
log "tune-csrk --device cuda"
timeout $(( $(left) > 200 ? $(left) - 90 : 110 )) build-gpu/packsell tune-csrk --device cuda --sr "$TUNE_SR" --ssr "$TUNE_SSR" \
  --holdout "$HOLDOUT" --out "$RES/tune/csrk-fit-cuda.txt" --json "$RES/tune/tune-cuda.json" >"$RES/tune/run.txt" 2>&1
log "tune-csrk: exit $? ($(grep -m1 -i 'within 10%' "$RES/tune/run.txt"))"
pack
wait $ALT_PID; log "alt build (elems $ALT): exit $?"
if [ -x build-alt/packsell ]; then
  for m in ${MATRICES//,/ }; do
    [ "$(left)" -lt 30 ] && { log "alt: no time left for $m"; break; }
    t=$(tag_of "$m")
    timeout 40 build-alt/packsell bench "$m" --device cuda --kernels csrk-fp64,csrk-fp32 --json "$RES/alt/$t.json" >"$RES/alt/$t.txt" 2>&1
  done
  log "alt done"
fi
pack
python3 bench/csrk_gpu_report.py "$RES" 2>&1 | tee "$RES/table.txt" | tail -40
pack
