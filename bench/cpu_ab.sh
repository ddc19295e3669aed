#!/usr/bin/env bash
# cpu_ab.sh -- compare the CPU SpMV kernels of two or more builds on a
# machine shared with other work: the builds' bench/spmv_min_time take turns
# (AB_ALTERNATIONS times, default 3) on each matrix, and the table gives per
# kernel and build the fastest run of all (microseconds, GB/s on the
# format's own bytes plus x and y), the figure that the load disturbs least;
# AB_CPU_TIME=1 times by CPU time per thread (spmv_min_time --cpu-time).
#
# Usage: AB_BINS="old/bench/spmv_min_time build/bench/spmv_min_time" \
#          [AB_THREADS=2] [AB_KERNELS="csr-fp32 sell-fp32 ..."] [AB_CPU_TIME=1] \
#          bash bench/cpu_ab.sh MATRIX...
# An older build: git archive COMMIT | tar -x -C /tmp/old (then cmake with
# -DPSL_ENABLE_CUDA=OFF and `--target spmv_min_time`; spmv_min_time.c can be
# copied into a tree from before it existed).
set -uo pipefail
read -r -a BINS <<<"${AB_BINS:?set AB_BINS to two or more spmv_min_time binaries}"
K=${AB_KERNELS:-csr-fp64 csr-fp32 sell-fp64 sell-fp32 sell-fp16 packsell-fp16 packsell-bf16 packsell-e8m21 packsell-e8m10}
N=${AB_ALTERNATIONS:-3}
RAW=$(mktemp)
trap 'rm -f "$RAW"' EXIT
for m in "$@"; do
  for _ in $(seq "$N"); do
    for b in "${BINS[@]}"; do
      # shellcheck disable=SC2086
      OMP_NUM_THREADS=${AB_THREADS:-2} OMP_WAIT_POLICY=passive "$b" "$m" --rounds 2 --reps 15 ${AB_CPU_TIME:+--cpu-time} $K |
        awk -v b="$b" -v m="$m" 'NF == 4 && $2 ~ /^[0-9.]+$/ {print m, b, $1, $2, $4}' >>"$RAW"
    done
  done
done
python3 - "$RAW" <<'PY'
import collections, sys
best = {}
order = []
for line in open(sys.argv[1]):
    m, b, k, us, gbs = line.split()
    if (m, k) not in order:
        order.append((m, k))
    key = (m, k, b)
    if key not in best or float(us) < best[key][0]:
        best[key] = (float(us), float(gbs))
bins = list(dict.fromkeys(l.split()[1] for l in open(sys.argv[1])))
print("matrix kernel " + " ".join("min_us:%d GB/s:%d" % (i, i) for i in range(len(bins)))
      + " " + " ".join("speedup:%d" % i for i in range(1, len(bins))))
for m, k in order:
    v = [best.get((m, k, b)) for b in bins]
    cells = " ".join("%.0f %.1f" % x if x else "- -" for x in v)
    sp = " ".join("%.2f" % (v[0][0] / x[0]) if x and v[0] else "-" for x in v[1:])
    print(m, k, cells, sp)
for i, b in enumerate(bins):
    print("build %d: %s" % (i, b))
PY
