#!/usr/bin/env bash
# run_suite.sh -- run the benchmark suite (bench/suite.tsv) through
# `packsell bench --json`, one JSON per matrix, resumable and splittable so
# that each device call stays inside its time limit.
#
#   bash bench/run_suite.sh [--device cuda|cpu] [--part K/N] [--done DIR] [--limit SEC]
#                           [--only NAME,NAME,...]
#
# --part K/N   only lines whose index % N == K (0-based)
# --done DIR   skip matrices whose NAME.json is already in DIR (the results
#              committed from earlier calls, e.g. bench/results/DATE-suite-vN)
# --limit SEC  start no new matrix after SEC seconds (default 540)
# --only LIST  only the matrices named in the comma-separated LIST
# PSL_BENCH_BIN: a packsell binary already built (default: build-suite/packsell,
#              built here when missing)
# Every matrix is benchmarked row-scaled (--scale rows: G^-1 A, so that FP16
# holds any matrix, as in the paper's accuracy setting), and our kernels with
# explicit permutation (--permute explicit: the same sigma-sorted rows and
# the same output order as the cuSPARSE kernels, so both do the same work;
# PSL_SUITE_PERMUTE=implicit for the library's default, which also scatters
# y back to the original order).
# Output: $OUT/NAME.json and $OUT/NAME.txt per matrix, $OUT/suite-log.txt,
# and all of them in $OUT/0all.tgz (out_archive.sh: the device tool returns
# at most 8 files).
# Real matrices: matrices/NAME.mtx is looked up in $PSL_MATRIX_DIR, then
# ../shared/matrices, then .suite-matrices/ (copy them there, git-ignored,
# and name it in the device tool's `carry`: `bash bench/run_suite.sh --stage`).
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-/tmp/psl-suite}
DEVICE=cuda PART=0/1 DONE="" LIMIT=540 ONLY=""
while [ $# -gt 0 ]; do
  case "$1" in
    --device) DEVICE=$2; shift 2 ;;
    --part) PART=$2; shift 2 ;;
    --done) DONE=$2; shift 2 ;;
    --limit) LIMIT=$2; shift 2 ;;
    --only) ONLY=",$2,"; shift 2 ;;
    --stage) mkdir -p .suite-matrices && cp "${PSL_MATRIX_DIR:-../shared/matrices}"/*.mtx .suite-matrices/ &&
             echo "staged $(ls .suite-matrices | wc -l) matrices in .suite-matrices/"; exit $? ;;
    *) echo "run_suite.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
K=${PART%/*} N=${PART#*/}
mkdir -p "$OUT"
. "$(dirname "$0")/out_archive.sh"
export PATH="$PATH:/usr/local/cuda/bin"
# idle OpenMP workers (the CPU reference between kernels) sleep instead of
# spinning next to the thread that enqueues the timed runs
export OMP_WAIT_POLICY=${OMP_WAIT_POLICY:-PASSIVE}
BIN=${PSL_BENCH_BIN:-build-suite/packsell}
if [ ! -x "$BIN" ]; then
  cmake -S . -B build-suite -G Ninja -DCMAKE_BUILD_TYPE=Release -DPSL_BUILD_TESTS=OFF >"$OUT/build.txt" 2>&1 &&
    cmake --build build-suite --target packsell -j "$(nproc)" >>"$OUT/build.txt" 2>&1 ||
    { echo "build failed"; tail -20 "$OUT/build.txt"; exit 1; }
fi
matrix_path() {
  local f=${1#matrices/}
  for d in "${PSL_MATRIX_DIR:-}" ../shared/matrices .suite-matrices; do
    [ -n "$d" ] && [ -f "$d/$f" ] && { echo "$d/$f"; return; }
  done
  echo "$1"
}
START=$(date +%s) i=-1 ran=0 skipped=0 failed=0
while IFS=$'\t' read -r name source kind; do
  case "$name" in ''|'#'*) continue ;; esac
  i=$((i + 1))
  [ $((i % N)) -eq "$K" ] || continue
  [ -z "$ONLY" ] || [[ "$ONLY" == *",$name,"* ]] || continue
  if [ -n "$DONE" ] && [ -f "$DONE/$name.json" ]; then skipped=$((skipped + 1)); continue; fi
  if [ $(($(date +%s) - START)) -ge "$LIMIT" ]; then echo "time limit: stopping before $name" | tee -a "$OUT/suite-log.txt"; break; fi
  src=$source
  case "$source" in matrices/*) src=$(matrix_path "$source") ;; esac
  t0=$(date +%s)
  if "$BIN" bench "$src" --device "$DEVICE" --scale rows --permute "${PSL_SUITE_PERMUTE:-explicit}" --json "$OUT/$name.json" >"$OUT/$name.txt" 2>&1; then
    echo "$name ($kind): ok in $(($(date +%s) - t0)) s" | tee -a "$OUT/suite-log.txt"
  else
    failed=$((failed + 1))
    echo "$name ($kind): FAILED (exit $?), see $name.txt" | tee -a "$OUT/suite-log.txt"
  fi
  ran=$((ran + 1))
  out_archive
done <bench/suite.tsv
echo "part $PART: ran $ran, skipped $skipped (already done), failed $failed" | tee -a "$OUT/suite-log.txt"
out_archive
