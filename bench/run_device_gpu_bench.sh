#!/usr/bin/env bash
# run_device_gpu_bench.sh -- the GPU SpMV measurements of issue 3 on the H200
# device host, in one call: build (CMake Release, CUDA on), then
# `packsell bench MATRIX --device cuda` for each matrix: our PackSELL/SELL
# kernels through psl_dspmv, the cuSPARSE baselines on the same sigma-sorted
# rows and the device-to-device copy bandwidth, all in one run per matrix.
# Each kernel's matrix is converted, uploaded, timed and freed before the
# next, so HPCG_8_8_8 (449M nonzeros) never has two variants on the device.
# Results: $OUT/bench_gpu_<matrix>.{json,txt}, host.txt, build.txt, log.txt;
# a compact summary of all matrices is printed last.
#
# Usage (device tool): bash bench/run_device_gpu_bench.sh [--memcheck] [SPEC...]
#   SPEC defaults to: gen:hpcg:7:7:7 gen:hpcg:6:6:6 gen:lap2d:2048 gen:hpcg:8:8:8
#   --memcheck  first run compute-sanitizer memcheck on a small matrix
#   Extra bench options go in $BENCH_OPTS (e.g. BENCH_OPTS="--permute explicit").
set -uo pipefail
OUT=${OUT:-/tmp/psl-out}
mkdir -p "$OUT"
log() { echo "[$(date +%H:%M:%S)] $*" | tee -a "$OUT/log.txt"; }

MEMCHECK=0
SPECS=()
for arg in "$@"; do
  case "$arg" in
    --memcheck) MEMCHECK=1 ;;
    *) SPECS+=("$arg") ;;
  esac
done
[ ${#SPECS[@]} -eq 0 ] && SPECS=(gen:hpcg:7:7:7 gen:hpcg:6:6:6 gen:lap2d:2048 gen:hpcg:8:8:8)

export PATH="$PATH:/usr/local/cuda/bin"
{
  echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "commit: $(git rev-parse --short HEAD 2>/dev/null || echo unknown)"
  echo "host cpus: $(nproc)"
  grep -m1 "model name" /proc/cpuinfo
  free -g | head -2
  nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.max.sm,clocks.mem,power.limit,persistence_mode \
    --format=csv 2>/dev/null || echo "nvidia-smi: not available"
  nvcc --version 2>/dev/null | tail -1 || echo "nvcc: not found"
  gcc --version | head -1
} | tee "$OUT/host.txt"

log "build (Release, CUDA)"
GEN=()
command -v ninja >/dev/null && GEN=(-G Ninja)
if ! cmake -S . -B build-gpu "${GEN[@]}" -DCMAKE_BUILD_TYPE=Release -DPSL_ENABLE_CUDA=ON \
     -DCMAKE_CUDA_ARCHITECTURES=90 >"$OUT/build.txt" 2>&1 ||
   ! cmake --build build-gpu --target packsell -j "$(nproc)" >>"$OUT/build.txt" 2>&1; then
  log "build failed; the end of build.txt:"
  tail -30 "$OUT/build.txt"
  exit 1
fi
if ! grep -q "CUDA backend ON" "$OUT/build.txt"; then
  log "the build has no CUDA backend (nvcc not found?); see build.txt"
  exit 1
fi
BIN=build-gpu/packsell
export OMP_NUM_THREADS=$(nproc) OMP_PROC_BIND=close OMP_PLACES=cores

if [ "$MEMCHECK" = 1 ]; then
  log "compute-sanitizer memcheck, gen:hpcg:4:4:4, every kernel, 2 runs each"
  compute-sanitizer --tool memcheck --leak-check full "$BIN" bench gen:hpcg:4:4:4 \
    --device cuda --reps 2 --warmup 1 >"$OUT/memcheck.txt" 2>&1
  log "memcheck exit $?: $(grep -E 'ERROR SUMMARY|LEAK SUMMARY' "$OUT/memcheck.txt" | tr '\n' ' ')"
fi

for spec in "${SPECS[@]}"; do
  tag=$(echo "${spec#gen:}" | tr ':/' '__')
  log "bench $spec --device cuda ${BENCH_OPTS:-}"
  t0=$(date +%s)
  # shellcheck disable=SC2086
  "$BIN" bench "$spec" --device cuda --json "$OUT/bench_gpu_$tag.json" ${BENCH_OPTS:-} \
    >"$OUT/bench_gpu_$tag.txt" 2>"$OUT/bench_gpu_$tag.err"
  rc=$?
  log "$spec: exit $rc in $(( $(date +%s) - t0 )) s"
  grep -v " done$" "$OUT/bench_gpu_$tag.err" | head -20
done
nvidia-smi --query-gpu=clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv \
  2>/dev/null | tee -a "$OUT/host.txt"

log "summary (full tables in $OUT/bench_gpu_*.txt)"
if command -v python3 >/dev/null; then
  python3 - "$OUT" "${SPECS[@]}" <<'EOF'
import json, os, sys
out, specs = sys.argv[1], sys.argv[2:]
for spec in specs:
    tag = spec[4:] if spec.startswith("gen:") else spec
    tag = tag.replace(":", "_").replace("/", "_")
    path = os.path.join(out, f"bench_gpu_{tag}.json")
    try:
        d = json.load(open(path))
    except Exception as e:
        print(f"\n{spec}: no results ({e})")
        continue
    print(f"\n{spec}: {d['rows']} rows, {d['nnz']} nnz; {d.get('gpu')}; "
          f"copy {d.get('copy_gbs') or 0:.0f} GB/s")
    print(f"{'kernel':20s} {'impl':12s} {'us':>9s} {'GFLOPS':>8s} {'GB/s':>7s} "
          f"{'%copy':>6s} {'ratio':>6s} {'bwd_err':>9s}")
    for k in d["kernels"]:
        if k.get("auto"):  # the --format auto rows: their pick is listed under its own name
            continue
        if not k["ok"]:
            print(f"{k['kernel']:20s} error: {k['error'][:90]}")
            continue
        r = k.get("ratio_sell")
        print(f"{k['kernel']:20s} {k['impl']:12s} {k['median_us']:9.2f} {k['gflops']:8.1f} "
              f"{k['gbs']:7.0f} {k.get('pct_copy', 0):6.1f} "
              f"{'-' if r is None else format(r, '.3f'):>6s} {k['backward_error']:9.2e}")
EOF
else
  for spec in "${SPECS[@]}"; do
    tag=$(echo "${spec#gen:}" | tr ':/' '__')
    tail -n +6 "$OUT/bench_gpu_$tag.txt"
  done
fi
log "done"
