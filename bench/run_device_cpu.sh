#!/usr/bin/env bash
# run_device_cpu.sh -- the CPU-side measurements of issue 2 on the 16-core
# device host, in one call: build, `packsell bench gen:hpcg:7:7:7 --device
# cpu` on all cores, Matrix Market read throughput on a 100M-nonzero file,
# and (optionally) the exhaustive E8MY codec check. Results go to $OUT.
# Usage (device tool): bash bench/run_device_cpu.sh [--exhaustive]
set -uo pipefail
OUT=${OUT:-/tmp/psl-out}
mkdir -p "$OUT"
log() { echo "[$(date +%H:%M:%S)] $*" | tee -a "$OUT/log.txt"; }
{
  echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "commit: $(git rev-parse --short HEAD 2>/dev/null || echo unknown)"
  echo "host cpus: $(nproc)"
  grep -m1 "model name" /proc/cpuinfo
  grep -m1 flags /proc/cpuinfo | tr ' ' '\n' | grep -E '^(avx2|avx512f|f16c|fma)$' | tr '\n' ' '; echo
  nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null || true
  free -g | head -2
  gcc --version | head -1
} | tee "$OUT/host.txt"

log "build"
export PATH="$PATH:/usr/local/cuda/bin"
if cmake -S . -B build-dev -G Ninja -DCMAKE_BUILD_TYPE=Release >"$OUT/build.txt" 2>&1 &&
   cmake --build build-dev -j 16 >>"$OUT/build.txt" 2>&1; then
  BIN=build-dev
else
  log "build failed (see build.txt); using carried binaries in build-carry/"
  BIN=build-carry
  export LD_LIBRARY_PATH="$PWD/build-carry/lib:${LD_LIBRARY_PATH:-}"
fi
export OMP_NUM_THREADS=16 OMP_PROC_BIND=close OMP_PLACES=cores

log "bench hpcg 7:7:7, 16 threads"
"$BIN/packsell" bench gen:hpcg:7:7:7 --device cpu --json "$OUT/bench_cpu_hpcg777.json" \
  2>&1 | tee "$OUT/bench_cpu_hpcg777.txt"
log "bench hpcg 7:7:7, 8 threads"
OMP_NUM_THREADS=8 "$BIN/packsell" bench gen:hpcg:7:7:7 --device cpu 2>&1 | tee "$OUT/bench_cpu_hpcg777_t8.txt"

log "Matrix Market: make a 100M-nonzero file, then read it"
"$BIN/bench/mm_read_bench" --make 100000000 /tmp/mm100m.mtx 2>&1 | tail -3 | tee "$OUT/mm_make.txt"
"$BIN/bench/mm_read_bench" --reps 3 /tmp/mm100m.mtx 2>&1 | tee "$OUT/mm_read.txt"
rm -f /tmp/mm100m.mtx

if [ "${1:-}" = "--exhaustive" ] && [ -x "$BIN/tests/exhaustive_e8my" ]; then
  log "exhaustive E8MY, all Y"
  "$BIN/tests/exhaustive_e8my" --all 2>&1 | tee "$OUT/exhaustive_e8my.txt"
fi
log "done"
