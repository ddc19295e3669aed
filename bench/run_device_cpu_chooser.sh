#!/usr/bin/env bash
# run_device_cpu_chooser.sh -- the CPU chooser (psl_choose_format_cpu) on the
# device host's cores: a CPU-only Release build, then per generated matrix
# `packsell bench --device cpu` of the candidates' kernels on all cores (the
# read bandwidth measured in the same rounds), `packsell choose --device cpu
# --json` (the CPU model's candidates and pick for this host) and `packsell
# choose --json` (the GPU model's), for bench/cpu_chooser_fit.py.
# Output: $OUT/cpu-chooser.tgz (folder cpu-chooser/).
# Usage (device tool): CPU_COMMIT=<commit> bash bench/run_device_cpu_chooser.sh
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-/tmp/psl-out}; mkdir -p "$OUT"
T0=$(date +%s); R=/tmp/cpu-chooser; rm -rf $R; mkdir -p $R
{ date -u +%Y-%m-%dT%H:%M:%SZ; echo "commit: ${CPU_COMMIT:-unknown}"; grep -m1 "model name" /proc/cpuinfo; echo "cores: $(nproc)"; } >$R/host.txt
cmake -S . -B build-cpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DPSL_ENABLE_CUDA=OFF -DPSL_BUILD_TESTS=OFF >$R/build.txt 2>&1 &&
  cmake --build build-cpu -j "$(nproc)" --target packsell >>$R/build.txt 2>&1 || { tail -20 $R/build.txt; exit 1; }
echo "build $(( $(date +%s) - T0 ))s"
export OMP_NUM_THREADS=$(nproc) OMP_PROC_BIND=close OMP_PLACES=cores OMP_WAIT_POLICY=PASSIVE
K=csr-fp64,csr-fp32,sell-fp64,sell-fp32,sell-fp16,packsell-fp16,packsell-e8m21,packsell-e8m20
for m in ${CPU_MATRICES:-gen:hpcg:7:7:7 gen:lap2d:2048 gen:lap3d:128 gen:banded:4000000:16:33 gen:random:2000000:16 gen:powerlaw:2000000:16:2.2 gen:hpcg:5:5:5}; do
  t=${m#gen:}; t=${t//:/_}
  timeout 120 build-cpu/packsell bench "$m" --device cpu --rounds 3 --reps 12 --min-time 0.5 --kernels $K --json $R/$t.json >$R/$t.txt 2>&1
  build-cpu/packsell choose "$m" --device cpu --json $R/$t.choose.json >/dev/null 2>&1
  build-cpu/packsell choose "$m" --json $R/$t.gpu.json >/dev/null 2>&1
  echo "$t $(( $(date +%s) - T0 ))s"
done
tar czf "$OUT/cpu-chooser.tgz" -C /tmp cpu-chooser
python3 bench/cpu_chooser_fit.py $R | tail -30
