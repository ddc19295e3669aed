#!/usr/bin/env bash
# tune_cuda.sh -- build the CUDA kernels with several settings of the tuning
# knobs of src/kernels/cuda/dmatrix.cuh and the unroll depths, and time our
# SELL/PackSELL kernels next to cuSPARSE SELL on a few matrices, one call.
# Usage (device tool): bash bench/tune_cuda.sh [SPEC...]
set -uo pipefail
OUT=${OUT:-/tmp/psl-out}
mkdir -p "$OUT"
export PATH="$PATH:/usr/local/cuda/bin"
SPECS=("$@")
[ ${#SPECS[@]} -eq 0 ] && SPECS=(gen:hpcg:7:7:7 gen:lap2d:2048)
KERNELS=packsell-fp16,packsell-e8m21,sell-fp16,sell-fp32,cusparse-sell-fp16,cusparse-sell-fp32
# Variants: name=flags pairs, one per line (override with $TUNE_VARIANTS).
VARIANTS=${TUNE_VARIANTS:-"v0-default=
v4-full-minb8-u16=-DPSL_CUDA_GRID_FULL=1 -DPSL_CUDA_MINB=8 -DPSL_PACK_UNROLL=16 -DPSL_SELL_UNROLL=8"}
declare -A V=()
while IFS= read -r line; do
  [ -n "$line" ] && V[${line%%=*}]="${line#*=}"
done <<<"$VARIANTS"
for v in $(echo "${!V[@]}" | tr ' ' '\n' | sort); do
  d=build-tune-$v
  cmake -S . -B $d -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
    -DPSL_BUILD_TESTS=OFF "-DCMAKE_CUDA_FLAGS=${V[$v]}" >"$OUT/build-$v.txt" 2>&1 &&
    cmake --build $d --target packsell -j "$(nproc)" >>"$OUT/build-$v.txt" 2>&1 ||
    { echo "$v: build failed"; tail -5 "$OUT/build-$v.txt"; continue; }
  cuobjdump --dump-resource-usage $d/CMakeFiles/psl_objects.dir/src/kernels/cuda/spmv_packsell.cu.o 2>/dev/null |
    grep -o 'REG:[0-9]*\|STACK:[0-9]*' | sort | uniq -c | tr '\n' ' ' >"$OUT/regs-$v.txt"
  for s in "${SPECS[@]}"; do
    echo "== $v ${V[$v]} $s (packsell regs: $(cat "$OUT/regs-$v.txt"))" | tee -a "$OUT/tune.txt"
    $d/packsell bench "$s" --device cuda --kernels $KERNELS 2>&1 |
      grep -E '^(packsell-|sell-|cusparse-)[a-z0-9-]+ ' | awk '{printf "  %-20s %9s us\n", $1, $6}' | tee -a "$OUT/tune.txt"
  done
done
