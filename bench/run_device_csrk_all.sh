#!/usr/bin/env bash
# run_device_csrk_all.sh -- one device call for issue 18 (CSR-k) on the GPU
# and on the device host's CPU cores:
#  1. build (CUDA sm_90, Release) twice: the shipped settings, and a
#     second build with CSRK_ALT_FLAGS (default: the stream kernel without
#     its prefetch, -DPSL_CSRK_STREAM_PREFETCH=0); test_gpu_csrk and its compute-sanitizer
#     memcheck on the generated matrices;
#  2. the suite's regular matrices: CSR-k FP64/FP32 and cuSPARSE CSR of the
#     same precision side by side (spmv/), the second build's CSR-k (alt/),
#     and the stream matrices with the authors' lanes kernel (the CUDA table
#     before the stream kernel, as a fit file) and with blocks of 128
#     threads (blocks/);
#  3. packsell tune-csrk --device cuda (tune/), with held-out matrices;
#  4. an Nsight Compute profile of the stream kernel on hpcg 7:7:7 FP64
#     (where ncu is installed; ncu/);
#  5. the CPU: packsell bench --device cpu on all cores for matrices of at
#     least 10M nonzeros, CSR and CSR-k FP64/FP32 with the read bandwidth
#     measured in the same rounds (cpu/), and tune-csrk --device cpu
#     (cpu-tune/).
# Everything lands in $OUT/csrk-all.tar.gz; tables are printed last.
# Usage (device tool): CSRK_COMMIT=<commit> bash bench/run_device_csrk_all.sh
# Environment: CSRK_DEADLINE (seconds, default 520), CSRK_MATRICES,
# CSRK_STREAM (the stream kernel's matrices), CSRK_HOLDOUT, CSRK_ALT_FLAGS,
# CSRK_CPU_SPECS (empty: no CPU runs, no CPU tuning), CSRK_TUNE=0 (no
# tune-csrk --device cuda), CSRK_NCU=0 (no profile).
set -uo pipefail
cd "$(dirname "$0")/.."
T0=$(date +%s)
OUT=${OUT:-/tmp/psl-out}
DEADLINE=${CSRK_DEADLINE:-520}
RES=/tmp/psl-csrk/csrk-all
rm -rf "$RES" && mkdir -p "$RES"/{spmv,alt,blocks,tune,ncu,cpu,cpu-tune} "$OUT"
export PATH="$PATH:/usr/local/cuda/bin" PYTHONUNBUFFERED=1
NP=$(nproc)
export OMP_NUM_THREADS=$NP OMP_WAIT_POLICY=PASSIVE
COMMIT=${CSRK_COMMIT:-$(git rev-parse --short HEAD 2>/dev/null || echo unknown)}
MATRICES=${CSRK_MATRICES:-gen:hpcg:6:6:6,gen:hpcg:7:7:7,gen:hpcg:8:8:7,gen:hpgmp:7:7:7,gen:lap2d:2048,gen:lap3d:128,gen:banded:4000000:16:33,gen:random:4000000:16}
STREAM=${CSRK_STREAM:-gen:hpcg:7:7:7,gen:banded:4000000:16:33,gen:random:4000000:16}
HOLDOUT=${CSRK_HOLDOUT:-gen:hpcg:6:6:6,gen:hpgmp:7:7:7,gen:lap3d:100,gen:banded:2000000:8:12}
CPU_SPECS=${CSRK_CPU_SPECS-gen:hpcg:7:7:7,gen:lap2d:2048,gen:banded:2000000:8:12}
ALT_FLAGS=${CSRK_ALT_FLAGS:--DPSL_CSRK_STREAM_PREFETCH=0}
KERNELS=csrk-fp64,cusparse-csr-fp64,csrk-fp32,cusparse-csr-fp32
log() { echo "[$(date +%H:%M:%S) +$(( $(date +%s) - T0 ))s] $*" | tee -a "$RES/log.txt"; }
left() { echo $(( DEADLINE - ($(date +%s) - T0) )); }
pack() { tar czf "$OUT/csrk-all.tar.gz" -C /tmp/psl-csrk csrk-all; cp "$RES/log.txt" "$OUT/"; }
tag_of() { echo "${1#gen:}" | tr ':' '_'; }
{
  echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"; echo "commit: $COMMIT"; echo "second build: $ALT_FLAGS"
  grep -m1 "model name" /proc/cpuinfo; echo "cores: $NP"
  nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm,clocks.max.mem --format=csv,noheader
} >"$RES/host.txt" 2>&1
log "build"
(cmake -S . -B build-nopf -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 -DPSL_BUILD_TESTS=OFF \
   "-DCMAKE_CUDA_FLAGS=$ALT_FLAGS" && cmake --build build-nopf -j "$((NP / 2))" --target packsell) \
  >"$RES/build-nopf.txt" 2>&1 &
if ! { cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 &&
       cmake --build build-gpu -j "$((NP / 2))" --target packsell test_gpu_csrk; } >"$RES/build.txt" 2>&1; then
  log "build failed"; tail -30 "$RES/build.txt"; pack; exit 1
fi
wait
log "built (second build: $([ -x build-nopf/packsell ] && echo ok || echo failed))"
(cd build-gpu/tests && timeout 150 ./test_gpu_csrk) >"$RES/test_gpu_csrk.txt" 2>&1
log "test_gpu_csrk: exit $? ($(tail -1 "$RES/test_gpu_csrk.txt"))"
(cd build-gpu/tests && timeout 120 compute-sanitizer --tool memcheck --error-exitcode 99 ./test_gpu_csrk generated) >"$RES/memcheck_csrk.txt" 2>&1
log "memcheck test_gpu_csrk generated: exit $? ($(grep -m1 'ERROR SUMMARY' "$RES/memcheck_csrk.txt"))"
pack
for m in ${MATRICES//,/ }; do
  [ "$(left)" -lt 300 ] && { log "spmv: no time left for $m"; break; }
  t=$(tag_of "$m")
  timeout 60 build-gpu/packsell bench "$m" --device cuda --kernels $KERNELS --json "$RES/spmv/$t.json" >"$RES/spmv/$t.txt" 2>&1
  e1=$?
  [ -x build-nopf/packsell ] &&
    timeout 60 build-nopf/packsell bench "$m" --device cuda --kernels csrk-fp64,csrk-fp32 --json "$RES/alt/$t.json" >"$RES/alt/$t.txt" 2>&1
  log "spmv $m: exit $e1 / $?"
done
pack
# the authors' lanes kernel (4, 8, 16 lanes a row between d = 8 and 64: the
# table before the stream kernel) and stream blocks of 128 threads
printf '# packsell csrk fit v1\ncuda 8 14 3 20.5 3.5 1 8 12\ncuda 16 9.175 1.32 36.7 5.28 4 8 12\ncuda 32 22.9375 3.3 68.8125 9.9 8 8 8\ncuda 64 18.35 2.64 36.7 5.28 16 8 4\ncuda inf 24.7725 3.564 6.193125 0.891 32 8 2\n' >"$RES/blocks/fit_lanes.txt"
printf '# packsell csrk fit v1\ncuda 8 14 3 20.5 3.5 1 8 12\ncuda 64 128 0 8 0 0 32 4\ncuda inf 24.7725 3.564 6.193125 0.891 32 8 2\n' >"$RES/blocks/fit_t128.txt"
for m in ${STREAM//,/ }; do
  [ "$(left)" -lt 240 ] && { log "blocks: no time left for $m"; break; }
  t=$(tag_of "$m")
  for f in lanes t128; do
    timeout 60 build-gpu/packsell bench "$m" --device cuda --kernels csrk-fp64,csrk-fp32 --csrk-fit "$RES/blocks/fit_$f.txt" \
      --json "$RES/blocks/${t}_$f.json" >"$RES/blocks/${t}_$f.txt" 2>&1
  done
  log "blocks $m: exit $?"
done
pack
[ "${CSRK_TUNE:-1}" = 0 ] || { log "tune-csrk --device cuda"
timeout $(( $(left) > 260 ? 110 : 60 )) build-gpu/packsell tune-csrk --device cuda --sr 8,16,32,64,128,256 --ssr 1,2,4,16 \
  --holdout "$HOLDOUT" --out "$RES/tune/csrk-fit-cuda.txt" --json "$RES/tune/tune-cuda.json" >"$RES/tune/run.txt" 2>&1
log "tune-csrk cuda: exit $? ($(grep -m1 -i 'within 10%' "$RES/tune/run.txt"))"; }
pack
if [ "${CSRK_NCU:-1}" != 0 ] && command -v ncu >/dev/null && [ "$(left)" -gt 200 ]; then
  timeout 90 ncu --kernel-name regex:psl_csrk_stream_kernel --launch-skip 5 --launch-count 1 \
    --section SpeedOfLight --section Occupancy --section WarpStateStats --section MemoryWorkloadAnalysis \
    build-gpu/packsell bench gen:hpcg:7:7:7 --device cuda --kernels csrk-fp64 --reps 10 --warmup 2 \
    >"$RES/ncu/hpcg_7_7_7_fp64.txt" 2>&1
  log "ncu: exit $?"
else
  log "ncu: $(command -v ncu || echo 'not installed')"
fi
pack
for m in ${CPU_SPECS//,/ }; do
  [ "$(left)" -lt 70 ] && { log "cpu: no time left for $m"; break; }
  t=$(tag_of "$m")
  OMP_PROC_BIND=close OMP_PLACES=cores timeout 90 build-gpu/packsell bench "$m" --device cpu --threads "$NP" --rounds 4 --reps 20 --min-time 1 \
    --kernels csr-fp64,csrk-fp64,csr-fp32,csrk-fp32 --json "$RES/cpu/${t}_run1.json" >"$RES/cpu/${t}_run1.txt" 2>&1
  log "cpu $m: exit $?"
done
pack
if [ -n "$CPU_SPECS" ] && [ "$(left)" -gt 40 ]; then
  OMP_PROC_BIND=close OMP_PLACES=cores timeout $(( $(left) - 10 )) build-gpu/packsell tune-csrk --device cpu \
    --holdout gen:hpcg:6:6:6,gen:lap3d:100,gen:banded:2000000:8:12 \
    --out "$RES/cpu-tune/csrk-fit-cpu.txt" --json "$RES/cpu-tune/tune-cpu.json" >"$RES/cpu-tune/run.txt" 2>&1
  log "tune-csrk cpu: exit $? ($(grep -m1 -i 'within 10%' "$RES/cpu-tune/run.txt"))"
fi
pack
python3 bench/csrk_gpu_report.py "$RES" >/dev/null 2>&1; cp "$RES/summary.md" "$OUT/" 2>/dev/null
grep -h "geometric" "$RES/summary.md" 2>/dev/null
for f in "$RES"/blocks/*.json; do
  python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(sys.argv[1].split('/')[-1], ' '.join('%s %.1f' % (k['kernel'], k['median_us']) for k in d['kernels'] if 'median_us' in k))" "$f"
done
grep -E "^(read|csr)" "$RES"/cpu/*.txt
tail -3 "$RES/log.txt"
