#!/usr/bin/env bash
# tune_cuda.sh -- build the CUDA kernels with several settings of the
# compile-time knobs (dmatrix.cuh, src/format/gpu_rules.h, the unroll and
# pipelining depths of spmv_*.cu), all builds in parallel, then time our
# SELL/PackSELL kernels next to cuSPARSE SELL on a few matrices (row-scaled),
# one call.
# Usage (device tool): bash bench/tune_cuda.sh [SPEC...]
#   TUNE_VARIANTS   name=flags lines (default: the shipped settings and one other)
#   TUNE_KERNELS    comma list for --kernels
#   TUNE_ARGS       more packsell bench options (default: --permute explicit,
#                   the suite's setting: the same rows as cuSPARSE)
#   TUNE_ENVS       name=VAR=value ... lines: run-time variants (environment
#                   knobs of the library, e.g. PSL_CUDA_WIDE_CLUSTER), each run
#                   by every build; the table's columns are build/env
#   TUNE_PLAN       instead of every build x env x spec: "variant|name=VAR=val|spec|kernels"
#                   lines (env part may be empty), run in that order
#   TUNE_DEADLINE   seconds of this script after which the remaining runs are skipped
set -uo pipefail
OUT=${OUT:-/tmp/psl-out}
mkdir -p "$OUT"
. "$(dirname "$0")/out_archive.sh"
export PATH="$PATH:/usr/local/cuda/bin"
SPECS=("$@")
[ ${#SPECS[@]} -eq 0 ] && SPECS=(gen:hpcg:7:7:7 gen:lap2d:2048)
KERNELS=${TUNE_KERNELS:-packsell-fp16,packsell-e8m21,sell-fp16,sell-fp32,cusparse-sell-fp16,cusparse-sell-fp32}
VARIANTS=${TUNE_VARIANTS:-"v0-default=
v1-unroll8=-DPSL_PACK_UNROLL=8 -DPSL_SELL_UNROLL=8"}
declare -A V=()
while IFS= read -r line; do
  [ -n "$line" ] && V[${line%%=*}]="${line#*=}"
done <<<"$VARIANTS"
NAMES=$(echo "${!V[@]}" | tr ' ' '\n' | sort)
JOBS=$(( $(nproc) / $(echo "$NAMES" | wc -l) ))
[ "$JOBS" -ge 1 ] || JOBS=1
for v in $NAMES; do
  (d=build-tune-$v
   cmake -S . -B $d -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
     -DPSL_BUILD_TESTS=OFF "-DCMAKE_CUDA_FLAGS=${V[$v]}" >"$OUT/build-$v.txt" 2>&1 &&
     cmake --build $d --target packsell -j "$JOBS" >>"$OUT/build-$v.txt" 2>&1 ||
     echo "$v: build failed" >>"$OUT/build-$v.txt") &
done
wait
# the runs: "variant|env|spec|kernels" lines, from TUNE_PLAN or every
# variant x env x spec with $KERNELS
if [ -n "${TUNE_PLAN:-}" ]; then
  RUNS=$TUNE_PLAN
else
  RUNS=$(for v in $NAMES; do
    while IFS= read -r e; do
      for s in "${SPECS[@]}"; do echo "$v|$e|$s|$KERNELS"; done
    done <<<"${TUNE_ENVS:-}"
  done)
fi
for v in $NAMES; do
  d=build-tune-$v
  [ -x $d/packsell ] || { echo "$v: build failed"; tail -5 "$OUT/build-$v.txt"; continue; }
  cuobjdump --dump-resource-usage $d/CMakeFiles/psl_objects.dir/src/kernels/cuda/spmv_packsell.cu.o 2>/dev/null |
    grep -o 'REG:[0-9]*\|STACK:[0-9]*' | sort | uniq -c | tr '\n' ' ' >"$OUT/regs-$v.txt"
done
while IFS='|' read -r v e s k; do
  [ -n "$v" ] || continue
  if [ -n "${TUNE_DEADLINE:-}" ] && [ "$SECONDS" -ge "$TUNE_DEADLINE" ]; then
    echo "deadline: skipped $v $e $s"; continue
  fi
  d=build-tune-$v
  [ -x $d/packsell ] || continue
  en=${e%%=*}; ev=${e#*=}; [ "$en" = "$e" ] && ev=
  c=$v${en:+/$en}
  echo "== $c ${V[$v]} $ev $s (packsell regs: $(cat "$OUT/regs-$v.txt")) at ${SECONDS}s" >>"$OUT/tune.txt"
  env $ev $d/packsell bench "$s" --device cuda --scale rows ${TUNE_ARGS:---permute explicit} --kernels "$k" </dev/null 2>&1 |
    tee -a "$OUT/raw-${c//\//-}.txt" | grep -E '^(packsell-|sell-|cusparse-)[a-z0-9-]+ ' |
    awk -v v="$c" -v s="$(basename "$s")" '{printf "%s\t%s\t%s\t%s\n", v, s, $1, $6}' | tee -a "$OUT/tune.tsv"
  out_archive
done <<<"$RUNS" >"$OUT/tune-progress.txt"
# table: one row per matrix x kernel, one column per variant
python3 - "$OUT/tune.tsv" <<'PY'
import sys, collections
rows = [l.rstrip("\n").split("\t") for l in open(sys.argv[1]) if l.strip()]
vs = sorted({r[0] for r in rows})
t = collections.OrderedDict()
for v, s, k, us in rows:
    t.setdefault((s, k), {})[v] = us
print("%-24s %-20s" % ("matrix", "kernel") + "".join("%14s" % v[:14] for v in vs))
for (s, k), d in t.items():
    print("%-24s %-20s" % (s[:24], k) + "".join("%14s" % d.get(v, "-") for v in vs))
PY
out_archive
