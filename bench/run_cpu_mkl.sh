#!/usr/bin/env bash
# run_cpu_mkl.sh -- our CPU kernels against Intel MKL's CSR SpMV, interleaved
# in one `packsell bench --device cpu` run per matrix (issue 17's table):
# CSR/SELL FP64/FP32, SELL FP16, PackSELL FP16 and E8M21 beside
# mkl-csr-fp64/fp32, with the host's read bandwidth measured in the same
# rounds. Needs a build with MKL (scripts/install-mkl.sh, then CMake
# -DPSL_WITH_MKL=ON -DMKL_ROOT=.venv-mkl). One JSON and one text file per
# matrix go to OUTDIR; bench/cpu_mkl_report.py makes the ratio table.
# Usage: bash bench/run_cpu_mkl.sh OUTDIR [BUILD_DIR] [TAG]
#   THREADS (default 2), ROUNDS (10), REPS (50), MIN_TIME (2), KERNELS, PSL_MATRIX_DIR
#   (default ../shared/matrices) and SPECS (the matrices) in the environment.
set -euo pipefail
OUTDIR=${1:?usage: run_cpu_mkl.sh OUTDIR [BUILD_DIR] [TAG]}
BUILD=${2:-build-mkl}
TAG=${3:-run1}
THREADS=${THREADS:-2}
ROUNDS=${ROUNDS:-10}
REPS=${REPS:-50}
MIN_TIME=${MIN_TIME:-2}
MATRICES=${PSL_MATRIX_DIR:-../shared/matrices}  # the shared real matrices
KERNELS=${KERNELS:-csr-fp64,csr-fp32,csrk-fp64,csrk-fp32,sell-fp64,sell-fp32,sell-fp16,packsell-fp16,packsell-e8m21,mkl-csr-fp64,mkl-csr-fp32}
export OMP_WAIT_POLICY=passive  # neither OpenMP runtime (libgomp, MKL's) spins into the other
mkdir -p "$OUTDIR"
SPECS=${SPECS:-gen:hpcg:6:6:6 gen:hpcg:7:6:6 gen:lap3d:96 $MATRICES/bcsstk29.mtx $MATRICES/Dubcova1.mtx}
for spec in $SPECS; do
  name=$(basename "$spec" .mtx)
  name=${name#gen:}
  name=${name//:/_}
  echo "[$(date -u +%H:%M:%S)] $name"
  "$BUILD/packsell" bench "$spec" --device cpu --threads "$THREADS" --rounds "$ROUNDS" \
    --reps "$REPS" --min-time "$MIN_TIME" --kernels "$KERNELS" \
    --json "$OUTDIR/${name}_${TAG}.json" > "$OUTDIR/${name}_${TAG}.txt"
done
