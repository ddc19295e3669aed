#!/usr/bin/env bash
# run_device_csrk_variants.sh -- one device call: CSR-k's stream kernel in
# several builds (compile-time knobs of dmatrix.cuh: entries a thread per
# window, the blocks an SM must hold per accumulation type, the prefetch)
# and several device groupings (fit files: threads a block, rows a
# super-row, super-rows a block), FP64 and FP32, against cuSPARSE CSR of
# the same precision in the same run, on the stream kernel's matrices.
# Output: $OUT/variants.txt (one line per build x grouping x matrix) and
# the bench JSON in $OUT/variants.tar.gz.
# Usage (device tool): CSRK_COMMIT=<commit> bash bench/run_device_csrk_variants.sh
# Environment: VAR_BUILDS ("name=flags" lines), VAR_FITS ("name=fit row for
# 8 < d <= 64" lines), VAR_MATRICES.
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-/tmp/psl-out}; RES=/tmp/psl-var/variants; rm -rf "$RES"; mkdir -p "$RES" "$OUT"
export PATH="$PATH:/usr/local/cuda/bin"
M=${VAR_MATRICES:-gen:hpcg:7:7:7,gen:hpcg:6:6:6,gen:banded:4000000:16:33,gen:random:4000000:16}
BUILDS=${VAR_BUILDS:-"e4mb3=-DPSL_CSRK_STREAM_ELEMS=4 -DPSL_CSRK_STREAM_MIN_BLOCKS=3
e4mb45=-DPSL_CSRK_STREAM_ELEMS=4 -DPSL_CSRK_STREAM_MIN_BLOCKS=4 -DPSL_CSRK_STREAM_MIN_BLOCKS_F32=5
e4mb55=-DPSL_CSRK_STREAM_ELEMS=4 -DPSL_CSRK_STREAM_MIN_BLOCKS=5 -DPSL_CSRK_STREAM_MIN_BLOCKS_F32=5
e2mb66=-DPSL_CSRK_STREAM_ELEMS=2 -DPSL_CSRK_STREAM_MIN_BLOCKS=6 -DPSL_CSRK_STREAM_MIN_BLOCKS_F32=6
e8mb44=-DPSL_CSRK_STREAM_ELEMS=8 -DPSL_CSRK_STREAM_MIN_BLOCKS=4 -DPSL_CSRK_STREAM_MIN_BLOCKS_F32=4"}
FITS=${VAR_FITS:-"table=
t256sr256=cuda 64 256 0 4 0 0 32 8
t128sr128=cuda 64 128 0 8 0 0 32 4
t128sr64=cuda 64 64 0 8 0 0 32 4"}
COMMIT=${CSRK_COMMIT:-unknown}
{ echo "date: $(date -u +%FT%TZ)"; echo "commit: $COMMIT"; nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader; } >"$RES/host.txt"
declare -A BF=()
while IFS= read -r l; do [ -n "$l" ] && BF[${l%%=*}]="${l#*=}"; done <<<"$BUILDS"
NB=${#BF[@]}; J=$(( $(nproc) / NB )); [ "$J" -ge 2 ] || J=2
for b in "${!BF[@]}"; do
  (cmake -S . -B build-v-$b -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 -DPSL_BUILD_TESTS=OFF \
     "-DCMAKE_CUDA_FLAGS=${BF[$b]}" && cmake --build build-v-$b -j $J --target packsell) >"$RES/build-$b.txt" 2>&1 &
done
wait
echo "built at ${SECONDS}s: $(for b in "${!BF[@]}"; do [ -x build-v-$b/packsell ] && echo -n "$b " ; done)" | tee "$RES/log.txt"
FIRST=$(for b in "${!BF[@]}"; do echo $b; done | sort | head -1)
while IFS= read -r l; do
  [ -n "$l" ] || continue
  f=${l%%=*}; row=${l#*=}
  if [ -n "$row" ]; then
    printf '# packsell csrk fit v1\ncuda 8 14 3 20.5 3.5 1 8 12\n%s\ncuda inf 24.7725 3.564 6.193125 0.891 32 8 2\n' "$row" >"$RES/fit_$f.txt"
  fi
done <<<"$FITS"
for m in ${M//,/ }; do
  t=$(echo "${m#gen:}" | tr ':' '_')
  build-v-$FIRST/packsell bench "$m" --device cuda --kernels cusparse-csr-fp64,cusparse-csr-fp32 --json "$RES/${t}__cusparse.json" >/dev/null 2>&1
  for b in $(for b in "${!BF[@]}"; do echo $b; done | sort); do
    [ -x build-v-$b/packsell ] || continue
    while IFS= read -r l; do
      [ -n "$l" ] || continue
      f=${l%%=*}; fa=(); [ -f "$RES/fit_$f.txt" ] && fa=(--csrk-fit "$RES/fit_$f.txt")
      timeout 60 build-v-$b/packsell bench "$m" --device cuda --kernels csrk-fp64,csrk-fp32 "${fa[@]}" \
        --json "$RES/${t}__${b}__$f.json" >"$RES/${t}__${b}__$f.txt" 2>&1
    done <<<"$FITS"
  done
  echo "$m done at ${SECONDS}s" | tee -a "$RES/log.txt"
done
python3 - "$RES" <<'PY' | tee "$OUT/variants.txt"
import glob, json, os, sys
r = sys.argv[1]
def t(f):
    try: return {k["kernel"]: (k["median_us"], k["ok"]) for k in json.load(open(f))["kernels"] if "median_us" in k}
    except Exception: return {}
print(open(os.path.join(r, "host.txt")).read().strip())
print("%-22s %-8s %-10s %12s %7s %12s %7s" % ("matrix", "build", "grouping", "fp64 us", "cus/x", "fp32 us", "cus/x"))
for f in sorted(glob.glob(os.path.join(r, "*__cusparse.json"))):
    tag = os.path.basename(f)[:-len("__cusparse.json")]
    c = t(f)
    print("%-22s %-8s %-10s %12.1f %7s %12.1f %7s" % (tag, "cusparse", "-", c.get("cusparse-csr-fp64", (0,))[0], "", c.get("cusparse-csr-fp32", (0,))[0], ""))
    for g in sorted(glob.glob(os.path.join(r, tag + "__*__*.json"))):
        _, b, fit = os.path.basename(g)[:-5].split("__")
        k = t(g); row = ["%-22s %-8s %-10s" % (tag, b, fit)]
        for p in ("fp64", "fp32"):
            a, cc = k.get("csrk-" + p), c.get("cusparse-csr-" + p)
            row.append("%12.1f %7.3f" % (a[0], cc[0] / a[0]) if a and cc else "%12s %7s" % ("-", "-"))
        print(" ".join(row))
PY
tar czf "$OUT/variants.tar.gz" -C /tmp/psl-var variants
