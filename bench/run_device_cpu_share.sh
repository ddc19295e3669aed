#!/usr/bin/env bash
# run_device_cpu_share.sh -- our CPU kernels' share of the host's read
# bandwidth on the 16-core device host (issue 17, item 3): a CPU-only build
# without MKL, then `packsell bench --device cpu` on all cores (interleaved
# rounds, the read bandwidth measured in the same run) for the matrices of
# at least 10M nonzeros; then, on the first matrix, the same at fewer threads
# (does a kernel still gain from more cores, or is it at the memory?), and
# `perf stat` of the PackSELL FP16 product where the host allows counters.
# With HUGEPAGES_AB=1 the first matrix also runs with PSL_HUGEPAGES=0 (small
# pages), before and after the default run. Results go to $OUT.
# Usage (device tool): bash bench/run_device_cpu_share.sh
#   THREADS (default nproc), SPECS, ROUNDS (default 6), KERNELS,
#   THREAD_LIST (default "4 8 12"; empty: no scaling runs),
#   PACKSELL (a packsell binary already built: no build), HUGEPAGES_AB
set -uo pipefail
OUT=${OUT:-/tmp/psl-out}
THREADS=${THREADS:-$(nproc)}
ROUNDS=${ROUNDS:-6}
THREAD_LIST=${THREAD_LIST-4 8 12}
mkdir -p "$OUT"
{
  echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "commit: $(git rev-parse --short HEAD 2>/dev/null || echo unknown)"
  lscpu
  free -g | head -2
  echo "transparent huge pages: $(cat /sys/kernel/mm/transparent_hugepage/enabled 2>&1)"
  gcc --version | head -1
} > "$OUT/host.txt" 2>&1
if [ -z "${PACKSELL:-}" ]; then
  cmake -S . -B build-share -DCMAKE_BUILD_TYPE=Release -DPSL_ENABLE_CUDA=OFF -DPSL_WITH_MKL=OFF \
    > "$OUT/build.txt" 2>&1 && cmake --build build-share -j "$THREADS" >> "$OUT/build.txt" 2>&1 ||
    { echo "build failed"; tail -20 "$OUT/build.txt"; exit 1; }
  PACKSELL=build-share/packsell
fi
export OMP_PROC_BIND=close OMP_PLACES=cores OMP_WAIT_POLICY=passive
KERNELS=${KERNELS:-csr-fp64,csr-fp32,sell-fp64,sell-fp32,sell-fp16,packsell-fp16,packsell-e8m21,packsell-e8m10}
SPECS=${SPECS:-gen:hpcg:7:7:7 gen:hpcg:7:6:6 gen:lap3d:128}
bench() { # spec threads rounds [file tag]
  local name=${1#gen:}
  name=${name//:/_}_t$2${4:-}
  echo "[$(date -u +%H:%M:%S)] $name, $2 threads, PSL_HUGEPAGES=${PSL_HUGEPAGES:-1}"
  "$PACKSELL" bench "$1" --device cpu --threads "$2" --rounds "$3" --reps 30 \
    --min-time 1 --kernels "$KERNELS" --json "$OUT/$name.json" > "$OUT/$name.txt" 2>&1
  grep -E "^(read|csr|sell|pack)" "$OUT/$name.txt"
}
first=${SPECS%% *}
[ "${HUGEPAGES_AB:-0}" = 1 ] && PSL_HUGEPAGES=0 bench "$first" "$THREADS" "$ROUNDS" _small_a
for spec in $SPECS; do
  bench "$spec" "$THREADS" "$ROUNDS"
done
[ "${HUGEPAGES_AB:-0}" = 1 ] && PSL_HUGEPAGES=0 bench "$first" "$THREADS" "$ROUNDS" _small_b
for t in $THREAD_LIST; do
  bench "$first" "$t" 3
done
if command -v perf > /dev/null; then
  perf stat -e cycles,instructions,task-clock -- "$PACKSELL" bench "$first" --device cpu \
    --threads "$THREADS" --rounds 2 --reps 30 --kernels packsell-fp16 > "$OUT/perf.txt" 2>&1
  tail -15 "$OUT/perf.txt"
else
  echo "perf: not installed" | tee "$OUT/perf.txt"
fi
