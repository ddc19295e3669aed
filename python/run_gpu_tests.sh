#!/usr/bin/env bash
# run_gpu_tests.sh -- the Python package's tests (GPU ones included) and the
# GPU timings of python/bench_gpu.py beside `packsell bench`, on a machine with
# a GPU and CuPy and no network: the extension is built with CUDA by CMake
# directly (no pip, no build isolation; cffi, numpy, scipy, pytest and CuPy must
# be importable), staged in build-py/stage and imported from there.
# With network access the same is `pip install ./python` and
# `cd python && python -m pytest tests`.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PATH:/usr/local/cuda/bin"
py=${PYTHON:-python3}
# a machine without cffi (the H200 image has CuPy, NumPy, SciPy but not cffi):
# PSL_WHEELHOUSE names a carried folder of wheels (pip download cffi pycparser
# pytest for its Python), installed from there without the network
if [ -n "${PSL_WHEELHOUSE:-}" ]; then
  "$py" -m pip install --no-index --find-links "$PSL_WHEELHOUSE" cffi pytest
fi
b=build-py
cmake -S python -B "$b" -DCMAKE_BUILD_TYPE=Release -DPSL_ENABLE_CUDA=ON \
  -DPython_EXECUTABLE="$(command -v "$py")"
cmake --build "$b" -j "$(nproc)" --target _packsell_cffi packsell
rm -rf "$b/stage"
cmake --install "$b" --component python --prefix "$b/stage"
cp python/src/packsell/*.py "$b/stage/packsell/"
export PYTHONPATH="$PWD/$b/stage"
# a failing test is reported by the exit status, after the figures
rc=0
(cd python && PACKSELL_EXE="$PWD/../$b/libpacksell/packsell" "$py" -m pytest -q -rs tests) || rc=$?
"$py" python/bench_gpu.py
"$b/libpacksell/packsell" bench gen:hpcg:7:7:7 --device cuda \
  --kernels packsell-fp16,packsell-e8m20,sell-fp64
exit $rc
