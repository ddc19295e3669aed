#!/usr/bin/env bash
# run_device_csrk_tune.sh -- one device call for what issue 18 asks of a
# device kind not yet measured: build (CUDA sm_90, Release, tests), the CSR-k
# and solver GPU tests (test_gpu_csrk with its reordered products), packsell
# tune-csrk --device cuda (the sweep of run_device_csrk_all.sh, with
# held-out matrices), CSR-k with and without a locality reordering (RCM,
# band-k) on hpcg 7:7:7 and lap2d 2048, then tune-csrk --device cpu on all
# host cores with matrices of 7-55M nonzeros (the default CPU list's are
# small enough for a 16-core host to time them in 100 us, within noise).
# Everything lands in $OUT/r.tgz (folder r/); figures are printed.
# Usage (device tool): CSRK_COMMIT=<commit> bash bench/run_device_csrk_tune.sh
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-/tmp/psl-out}; mkdir -p "$OUT"
export PATH=$PATH:/usr/local/cuda/bin; T0=$(date +%s); R=/tmp/r; rm -rf $R; mkdir -p $R/tune $R/cpu-tune $R/ro
{ date -u +%Y-%m-%dT%H:%M:%SZ; echo "commit: ${CSRK_COMMIT:-unknown}"; grep -m1 "model name" /proc/cpuinfo; nproc; nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader; } > $R/host.txt
cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 >$R/cmake.txt 2>&1 && cmake --build build-gpu -j16 >$R/build.txt 2>&1; echo "build rc=$? $(( $(date +%s)-T0 ))s"
(cd build-gpu && timeout 200 ctest -R "gpu_csrk|csrk_reorder|gpu_solver" --output-on-failure >$R/ctest.txt 2>&1); grep -E "tests passed|Failed|reordered products" $R/ctest.txt; echo "tests $(( $(date +%s)-T0 ))s"
timeout 110 build-gpu/packsell tune-csrk --device cuda --sr 8,16,32,64,128,256 --ssr 1,2,4,16 --holdout gen:hpcg:6:6:6,gen:hpgmp:7:7:7,gen:lap3d:100,gen:banded:2000000:8:12 --out $R/tune/csrk-fit-cuda.txt --json $R/tune/tune-cuda.json >$R/tune/run.txt 2>&1; grep -i "within 10%\|device cuda" $R/tune/run.txt; echo "tune $(( $(date +%s)-T0 ))s"
for m in gen:hpcg:7:7:7 gen:lap2d:2048; do for r in none rcm bandk; do t=$(echo ${m#gen:} | tr ':' '_')_$r; timeout 60 build-gpu/packsell bench $m --device cuda --kernels csrk-fp64,csrk-fp32 --csrk-reorder $r --json $R/ro/$t.json >$R/ro/$t.txt 2>&1; echo "$t: $(grep -E '^csrk' $R/ro/$t.txt | awk '{printf "%s %s  ", $1, $6}')"; done; done
tar czf $OUT/r.tgz -C /tmp r; L=$(( 560 - ($(date +%s)-T0) )); echo "cpu tune budget $L s"
[ $L -gt 60 ] && OMP_NUM_THREADS=16 OMP_PROC_BIND=close OMP_PLACES=cores timeout $L build-gpu/packsell tune-csrk --device cpu --matrices gen:lap2d:2048,gen:lap3d:128,gen:random:1048576:16,gen:hpcg:7:7:7,gen:banded:1048576:16:33,gen:banded:262144:64:100 --holdout gen:hpcg:6:6:6,gen:lap3d:100,gen:banded:2000000:8:12 --out $R/cpu-tune/csrk-fit-cpu.txt --json $R/cpu-tune/tune-cpu.json >$R/cpu-tune/run.txt 2>&1; grep -i "within 10%" $R/cpu-tune/run.txt
tar czf $OUT/r.tgz -C /tmp r; echo "done $(( $(date +%s)-T0 ))s"
