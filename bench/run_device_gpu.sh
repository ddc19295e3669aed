#!/usr/bin/env bash
# run_device_gpu.sh -- the checks of the CUDA backend on the H200 host, in one
# call (under the 600 s limit of one device command): build for sm_90, run
# test_gpu_spmv (device SpMV against the CPU, bitwise for SELL and PackSELL),
# the other GPU tests (test_gpu_*: device conversion, > 2^31 words), the rest
# of the test suite, then compute-sanitizer memcheck on
# test_gpu_spmv test by test while time remains. Logs go to $OUT (and all
# of them to $OUT/0all.tgz, out_archive.sh); a short table is printed last.
# Usage (device tool): bash bench/run_device_gpu.sh
#   PSL_GPU_DEADLINE=seconds   stop starting memcheck runs after this (default 520)
#   PSL_GPU_SKIP_CTEST=1       skip the CPU tests (they run in CI anyway)
set -uo pipefail
OUT=${OUT:-/tmp/psl-out}
mkdir -p "$OUT"
DEADLINE=${PSL_GPU_DEADLINE:-520}
START=$(date +%s)
export PATH="$PATH:/usr/local/cuda/bin"
log() { echo "[$(date +%H:%M:%S)] $*" | tee -a "$OUT/log.txt"; }
elapsed() { echo $(($(date +%s) - START)); }

. "$(dirname "$0")/out_archive.sh"
ROWS=()
row() {
  ROWS+=("$(printf '%-38s %-8s %6s  %s' "$1" "$2" "$3" "$4")")
  out_archive
}

{
  echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "commit: $(git rev-parse --short HEAD 2>/dev/null || echo unknown)"
  nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>&1 || true
  nvcc --version 2>&1 | tail -2
  compute-sanitizer --version 2>&1 | head -2
  cmake --version | head -1
} >"$OUT/host.txt" 2>&1
cat "$OUT/host.txt"

# ---- build
log "build (sm_90)"
t0=$(date +%s)
if cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
     >"$OUT/build.txt" 2>&1 && cmake --build build-gpu -j "$(nproc)" >>"$OUT/build.txt" 2>&1; then
  backend=$(grep -o 'CUDA backend [A-Z]*' "$OUT/build.txt" | tail -1)
  warnings=$(grep -c -i 'warning' "$OUT/build.txt")
  row "build" "ok" "$(($(date +%s) - t0))" "$backend, $warnings warning lines"
else
  row "build" "FAILED" "$(($(date +%s) - t0))" "see build.txt"
  tail -30 "$OUT/build.txt"
  printf '\n%s\n' "${ROWS[@]}"
  exit 1
fi
T=build-gpu/tests/test_gpu_spmv

# ---- the GPU test itself
log "test_gpu_spmv"
t0=$(date +%s)
timeout 240 "$T" >"$OUT/test_gpu_spmv.txt" 2>&1
rc=$?
summary=$(grep -E 'passed, [0-9]+ failed' "$OUT/test_gpu_spmv.txt" | tail -1)
checks=$(grep -E 'checks' "$OUT/test_gpu_spmv.txt" | tail -1)
row "test_gpu_spmv" "$([ $rc -eq 0 ] && echo ok || echo "FAIL($rc)")" "$(($(date +%s) - t0))" \
  "${summary:+$summary; }$checks"
grep -E 'FAIL|SKIP' "$OUT/test_gpu_spmv.txt" | head -20

# ---- the other GPU tests (label gpu): device conversion, > 2^31 words
for t in $(cd build-gpu && ctest -N -L gpu | grep -o 'test_gpu_[a-z_0-9]*' | grep -v '^test_gpu_spmv$'); do
  log "$t"
  t0=$(date +%s)
  timeout 300 build-gpu/tests/$t >"$OUT/$t.txt" 2>&1
  rc=$?
  row "$t" "$([ $rc -eq 0 ] && echo ok || echo "FAIL($rc)")" "$(($(date +%s) - t0))" \
    "$(grep -E 'passed, [0-9]+ failed|^ok |^FAILED|SKIP' "$OUT/$t.txt" | tail -1)"
  grep -E 'FAIL|differ|row [0-9]+:' "$OUT/$t.txt" | head -10
done

# ---- the rest of the suite (CPU), against this CUDA build
if [ -z "${PSL_GPU_SKIP_CTEST:-}" ]; then
  log "ctest (all but the GPU tests)"
  t0=$(date +%s)
  (cd build-gpu && timeout 200 ctest -LE gpu -j 8 --output-on-failure) >"$OUT/ctest.txt" 2>&1
  rc=$?
  row "ctest (rest of the suite)" "$([ $rc -eq 0 ] && echo ok || echo "FAIL($rc)")" \
    "$(($(date +%s) - t0))" "$(grep -E 'tests passed' "$OUT/ctest.txt" | tail -1)"
fi

# ---- compute-sanitizer memcheck, one test at a time while time remains
CS=$(command -v compute-sanitizer || ls /usr/local/cuda/compute-sanitizer/compute-sanitizer \
       /usr/local/cuda/bin/compute-sanitizer 2>/dev/null | head -1)
for t in long_row_workspace bad_arguments graph_capture default_stream deterministic_over_runs \
         edge_matrices_match_cpu generated_matrices_match_cpu large_matrices_match_cpu; do
  left=$((DEADLINE - $(elapsed)))
  if [ -z "$CS" ]; then
    row "memcheck $t" "skipped" "-" "compute-sanitizer not found"
    continue
  fi
  if [ "$left" -lt 30 ]; then
    row "memcheck $t" "skipped" "-" "out of time (PSL_GPU_DEADLINE=$DEADLINE)"
    continue
  fi
  log "memcheck $t (at most ${left}s)"
  t0=$(date +%s)
  timeout "$left" "$CS" --tool memcheck --leak-check full --error-exitcode 99 \
    "$T" "$t" >"$OUT/memcheck_$t.txt" 2>&1
  rc=$?
  errs=$(grep -E 'ERROR SUMMARY' "$OUT/memcheck_$t.txt" | tail -1 | sed 's/=* *//')
  res=$(grep -E 'passed, [0-9]+ failed' "$OUT/memcheck_$t.txt" | tail -1)
  status=ok
  [ $rc -eq 124 ] && status=TIMEOUT
  [ $rc -ne 0 ] && [ $rc -ne 124 ] && status="FAIL($rc)"
  row "memcheck $t" "$status" "$(($(date +%s) - t0))" "${errs:-no summary}; ${res}"
done

# ---- memcheck of the other GPU tests (whole binaries) while time remains
for t in test_gpu_solver_ops test_gpu_solver test_gpu_convert; do
  [ -n "$CS" ] && [ -x build-gpu/tests/$t ] || continue
  if [ $((DEADLINE - $(elapsed))) -lt 30 ]; then
    row "memcheck $t" "skipped" "-" "out of time (PSL_GPU_DEADLINE=$DEADLINE)"
    continue
  fi
  log "memcheck $t"
  t0=$(date +%s)
  timeout $((DEADLINE - $(elapsed))) "$CS" --tool memcheck --leak-check full --error-exitcode 99 \
    build-gpu/tests/$t >"$OUT/memcheck_$t.txt" 2>&1
  rc=$?
  row "memcheck $t" "$([ $rc -eq 0 ] && echo ok || echo "FAIL($rc)")" "$(($(date +%s) - t0))" \
    "$(grep -E 'ERROR SUMMARY' "$OUT/memcheck_$t.txt" | tail -1 | sed 's/=* *//'); $(grep -E 'passed, [0-9]+ failed' "$OUT/memcheck_$t.txt" | tail -1)"
done

log "done after $(elapsed) s"
{
  echo
  printf '%-38s %-8s %6s  %s\n' "step" "result" "sec" "detail"
  printf '%s\n' "${ROWS[@]}"
} | tee "$OUT/summary.txt"
out_archive
