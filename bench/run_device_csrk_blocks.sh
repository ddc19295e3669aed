#!/usr/bin/env bash
# run_device_csrk_blocks.sh -- one device call: CSR-k's stream kernel with
# blocks of 32..256 threads (a fit file per block, --csrk-fit; the device
# grouping forced to one chunk of rows a super-row, PSL_CUDA_CSRK_SR_ROWS =
# threads) in two builds (PSL_CSRK_STREAM_ELEMS 8 and 4), against cuSPARSE
# CSR and the authors' lanes kernel (the table before the stream kernel, as
# a fit file) in the same run, FP64 and FP32, on the stream kernel's
# matrices.
# Output: $OUT/blocks.txt (one line per run) and the bench JSON as a tarball.
# Environment: BLK_MATRICES, BLK_THREADS, BLK_ELEMS, BLK_SSR.
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-/tmp/psl-out}; RES=/tmp/psl-blk; rm -rf "$RES"; mkdir -p "$RES" "$OUT"
export PATH="$PATH:/usr/local/cuda/bin"
M=${BLK_MATRICES:-gen:hpcg:7:7:7,gen:banded:4000000:16:33,gen:random:4000000:16}
THREADS=${BLK_THREADS:-32 128 256}; ELEMS=${BLK_ELEMS:-4}; SSR=${BLK_SSR:-8}
for e in $ELEMS; do
  (cmake -S . -B build-e$e -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
     -DCMAKE_CUDA_FLAGS="-DPSL_CSRK_STREAM_ELEMS=$e" && cmake --build build-e$e -j 8 --target packsell) >"$RES/build-e$e.txt" 2>&1 &
done
wait
{ date -u +%FT%TZ; nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader; } >"$RES/host.txt"
for m in ${M//,/ }; do
  t=$(echo "${m#gen:}" | tr ':' '_')
  e0=${ELEMS%% *}
  build-e$e0/packsell bench "$m" --device cuda --kernels cusparse-csr-fp64,cusparse-csr-fp32 --json "$RES/${t}_cusparse.json" >/dev/null 2>&1
  # the authors' lanes kernel (4, 8, 16 lanes a row: the default table before
  # the stream kernel), as a fit file, t0
  printf '# packsell csrk fit v1\ncuda 8 9.175 1.32 20.5 3.5 1 8 12\ncuda 16 9.175 1.32 36.7 5.28 4 8 12\ncuda 32 22.9375 3.3 68.8125 9.9 8 8 8\ncuda 64 18.35 2.64 36.7 5.28 16 8 4\ncuda inf 24.7725 3.564 6.193125 0.891 32 8 2\n' >"$RES/fit_0.txt"
  build-e$e0/packsell bench "$m" --device cuda --kernels csrk-fp64,csrk-fp32 --csrk-fit "$RES/fit_0.txt" \
    --json "$RES/${t}_lanes_t0.json" >"$RES/${t}_lanes_t0.txt" 2>&1
  for e in $ELEMS; do for th in $THREADS; do
    printf '# packsell csrk fit v1\ncuda 8 9.175 1.32 20.5 3.5 1 8 12\ncuda 64 %d 0 %d 0 0 %d 1\ncuda inf 24.7725 3.564 6.193125 0.891 32 8 2\n' \
      "$th" "$SSR" "$th" >"$RES/fit_$th.txt"
    build-e$e/packsell bench "$m" --device cuda --kernels csrk-fp64,csrk-fp32 --csrk-fit "$RES/fit_$th.txt" \
      --json "$RES/${t}_e${e}_t$th.json" >"$RES/${t}_e${e}_t$th.txt" 2>&1
  done; done
done
python3 - "$RES" <<'PY' | tee "$OUT/blocks.txt"
import glob, json, os, sys
r = sys.argv[1]
def t(f):
    try: return {k["kernel"]: (k["median_us"], k["ok"]) for k in json.load(open(f))["kernels"]}
    except Exception as ex: return {}
print(open(os.path.join(r, "host.txt")).read().strip())
for f in sorted(glob.glob(os.path.join(r, "*_cusparse.json"))):
    tag = os.path.basename(f)[:-len("_cusparse.json")]
    c = t(f)
    for g in sorted(glob.glob(os.path.join(r, tag + "_*_t*.json"))):
        k = t(g); v = os.path.basename(g)[len(tag) + 1:-5]
        row = [tag, v]
        for p in ("fp64", "fp32"):
            a, b = k.get("csrk-" + p), c.get("cusparse-csr-" + p)
            row.append(f"{p} {a[0]:.1f} us ok={a[1]} vs {b[0]:.1f} = {b[0]/a[0]:.3f}x" if a and b else f"{p} -")
        print(" | ".join(row))
PY
tar czf "$OUT/blocks.tar.gz" -C /tmp psl-blk
