#!/usr/bin/env bash
# run_device_compare.sh -- check that a change of the code keeps results and
# speed: build two source trees (BEFORE, an exported older commit, and the
# working tree) for sm_90, compute y = A x with both builds for a grid of
# matrices x formats x vector types on the CPU and on the GPU and compare the
# output files byte for byte, then time `packsell bench --device cuda` on the
# given matrices with the two builds, alternating, in the same call.
# Results: $OUT/compare.txt (one line per product), $OUT/bench_<tag>_<n>.json,
# host.txt, build_*.txt; a short table is printed last.
#
# Usage (device tool), after `git archive COMMIT | tar -x -C .before` here:
#   bash bench/run_device_compare.sh [BEFORE_DIR] [SPEC...]
#   BEFORE_DIR defaults to .before; SPEC to gen:hpcg:7:7:7 gen:hpcg:8:8:8
#   COMPARE_ROUNDS=N   bench rounds per build (default 2, alternating)
#   SHARED_MATRICES="a.mtx b.mtx"   more matrices for the bit comparison
#   COMPARE_BEFORE_BIN, COMPARE_AFTER_BIN   two built `packsell` to use instead
#                      of building (no GPU: the cuda products compare errors)
#   COMPARE_SPECS_ONLY_BITS=1   skip the timing; COMPARE_SKIP_BITS=1 the bits
set -uo pipefail
OUT=${OUT:-/tmp/psl-out}
mkdir -p "$OUT"
BEFORE=${1:-.before}
shift || true
SPECS=("$@")
[ ${#SPECS[@]} -eq 0 ] && SPECS=(gen:hpcg:7:7:7 gen:hpcg:8:8:8)
ROUNDS=${COMPARE_ROUNDS:-2}
export PATH="$PATH:/usr/local/cuda/bin"
log() { echo "[$(date +%H:%M:%S)] $*" | tee -a "$OUT/log.txt"; }

{
  echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "after: the working tree (git there: $(git rev-parse --short HEAD 2>/dev/null || echo none); commit it first to name it)"
  echo "before: $(cat "$BEFORE/.commit" 2>/dev/null || echo "$BEFORE")"
  nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>&1 || true
  nvcc --version 2>/dev/null | tail -1
} | tee "$OUT/host.txt"

build() { # build SRC DIR TAG
  log "build $3"
  cmake -S "$1" -B "$2" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
    -DPSL_BUILD_TESTS=OFF >"$OUT/build_$3.txt" 2>&1 &&
    cmake --build "$2" --target packsell -j "$(nproc)" >>"$OUT/build_$3.txt" 2>&1
}
B=${COMPARE_BEFORE_BIN:-}
A=${COMPARE_AFTER_BIN:-}
if [ -z "$B" ] || [ -z "$A" ]; then
  build "$BEFORE" /tmp/build-before before & pb=$!
  build . /tmp/build-after after & pa=$!
  wait $pb || { log "before build failed"; tail -20 "$OUT/build_before.txt"; exit 1; }
  wait $pa || { log "after build failed"; tail -20 "$OUT/build_after.txt"; exit 1; }
  B=/tmp/build-before/packsell
  A=/tmp/build-after/packsell
fi
export OMP_NUM_THREADS=$(nproc)

# ---- bits: every product with both builds, compared byte for byte
MATS=(gen:hpcg:5:5:5 gen:lap2d:300 gen:powerlaw:20000:12:1.8 gen:banded:30000:400:9
      gen:random:5000:7 gen:hpgmp:4:4:4)
for m in ${SHARED_MATRICES:-}; do MATS+=("$m"); done
FORMS=("--format csr" "--format csr --values fp32" "--format sell --values fp64"
       "--format sell --values fp32" "--format sell --values fp16" "--format sell --values bf16"
       "--format packsell --values fp16" "--format packsell --values bf16"
       "--format packsell --values e8m21" "--format packsell --values e8m10"
       "--format packsell --values e5m4 --overflow saturate"
       "--format packsell --values fp16 --permute explicit"
       "--format sell --values fp32 --sigma 0" "--format auto --precision fp16"
       "--format auto --precision fp32")
same=0 differ=0 failed=0
W=/tmp/cmp; mkdir -p $W
[ -n "${COMPARE_SKIP_BITS:-}" ] && MATS=()
for m in "${MATS[@]}"; do
  for f in "${FORMS[@]}"; do
    for v in fp64 fp32 fp16; do
      for dev in cpu cuda; do
        vopt="--vectors $v"
        case "$f" in *auto*) vopt="" ;; esac
        args="$m --x random:3 --alpha 1.5 $vopt --device $dev $f"
        rb=0; ra=0
        $B spmv $args -o $W/b.mtx >$W/b.log 2>&1 || rb=$?
        $A spmv $args -o $W/a.mtx >$W/a.log 2>&1 || ra=$?
        if [ $rb -ne 0 ] || [ $ra -ne 0 ]; then
          if [ $rb -eq $ra ] && cmp -s $W/b.log $W/a.log; then r="same-error($rb)"; same=$((same+1))
          else r="FAIL(before $rb, after $ra)"; failed=$((failed+1)); fi
        elif cmp -s $W/b.mtx $W/a.mtx; then r=same; same=$((same+1))
        else r=DIFFER; differ=$((differ+1)); fi
        echo "$r  $args" >>"$OUT/compare.txt"
      done
    done
  done
done
log "bits: $same identical, $differ differ, $failed failed"
grep -v '^same' "$OUT/compare.txt" | head -20

[ -n "${COMPARE_SPECS_ONLY_BITS:-}" ] && exit $((differ + failed > 0))
# ---- speed: the same bench with both builds, alternating
K=packsell-fp16,packsell-e8m21,sell-fp16,sell-fp32,cusparse-sell-fp16,cusparse-sell-fp32
for s in "${SPECS[@]}"; do
  n=$(echo "$s" | tr ':' '_' | sed 's/^gen_//')
  for r in $(seq 1 "$ROUNDS"); do
    for tag in before after; do
      bin=$B; [ $tag = after ] && bin=$A
      log "bench $s $tag round $r"
      $bin bench "$s" --device cuda --scale rows --permute explicit --kernels $K \
        --json "$OUT/bench_${tag}_${n}_$r.json" >"$OUT/bench_${tag}_${n}_$r.txt" 2>&1 ||
        log "bench failed: $(tail -2 "$OUT/bench_${tag}_${n}_$r.txt")"
    done
  done
done

python3 - "$OUT" <<'EOF' | tee "$OUT/summary.txt"
import glob, json, os, sys, collections
out = sys.argv[1]
t = collections.defaultdict(list)
for f in sorted(glob.glob(os.path.join(out, "bench_*.json"))):
    tag, rest = os.path.basename(f)[6:-5].split("_", 1)
    mat = rest.rsplit("_", 1)[0]
    for k in json.load(open(f)).get("kernels", []):
        if "median_us" in k:
            t[(mat, k["kernel"], tag)].append(k["median_us"])
print("%-10s %-20s %18s %18s %7s" % ("matrix", "kernel", "before us", "after us", "ratio"))
for (mat, name) in sorted({(m, n) for m, n, _ in t}):
    b, a = t.get((mat, name, "before"), []), t.get((mat, name, "after"), [])
    fb = "/".join("%.1f" % x for x in b); fa = "/".join("%.1f" % x for x in a)
    r = (min(a) / min(b)) if a and b else float("nan")
    print("%-10s %-20s %18s %18s %7.3f" % (mat, name, fb, fa, r))
EOF
