#!/usr/bin/env bash
# run_device_cpu_share.sh -- our CPU kernels' share of the host's read
# bandwidth on the 16-core device host (issue 17, item 3): a CPU-only build
# without MKL, then `packsell bench --device cpu` on all cores (interleaved
# rounds, the read bandwidth measured in the same run) for the matrices of
# at least 10M nonzeros. Results go to $OUT.
# Usage (device tool): bash bench/run_device_cpu_share.sh   (THREADS, SPECS: override)
set -uo pipefail
OUT=${OUT:-/tmp/psl-out}
THREADS=${THREADS:-$(nproc)}
mkdir -p "$OUT"
{
  echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "commit: $(git rev-parse --short HEAD 2>/dev/null || echo unknown)"
  lscpu
  free -g | head -2
  gcc --version | head -1
} > "$OUT/host.txt" 2>&1
cmake -S . -B build-share -DCMAKE_BUILD_TYPE=Release -DPSL_ENABLE_CUDA=OFF -DPSL_WITH_MKL=OFF \
  > "$OUT/build.txt" 2>&1 && cmake --build build-share -j "$THREADS" >> "$OUT/build.txt" 2>&1 ||
  { echo "build failed"; tail -20 "$OUT/build.txt"; exit 1; }
export OMP_PROC_BIND=close OMP_PLACES=cores OMP_WAIT_POLICY=passive
KERNELS=csr-fp64,csr-fp32,sell-fp64,sell-fp32,sell-fp16,packsell-fp16,packsell-e8m21,packsell-e8m10
SPECS=${SPECS:-gen:hpcg:7:7:7 gen:hpcg:7:6:6 gen:lap3d:128}
for spec in $SPECS; do
  name=${spec#gen:}
  name=${name//:/_}
  echo "[$(date -u +%H:%M:%S)] $name"
  build-share/packsell bench "$spec" --device cpu --threads "$THREADS" --rounds 6 --reps 30 \
    --min-time 1 --kernels "$KERNELS" --json "$OUT/${name}_t${THREADS}.json" \
    > "$OUT/${name}_t${THREADS}.txt" 2>&1
  grep -E "^(read|csr|sell|pack)" "$OUT/${name}_t${THREADS}.txt"
done
