#!/usr/bin/env bash
# install-mkl.sh -- install Intel oneMKL from PyPI into a virtualenv, for the
# optional MKL baselines of "packsell bench --device cpu" (CMake option
# PSL_WITH_MKL). MKL is never needed to build, test or use packsell.
#
# Usage: scripts/install-mkl.sh [VENV]      (default VENV: .venv-mkl, git-ignored)
#        MKL_VERSION=2026.2.0 scripts/install-mkl.sh
#
# Pinned: mkl and mkl-devel 2026.2.0 (the headers come with mkl-include, a
# dependency of mkl-devel). The wheels put the headers under VENV/include and
# the libraries under VENV/lib (2026.2: libmkl_rt.so.3, libmkl_core.so.3,
# ..., libiomp5.so; 2025 releases: .so.2); mkl-devel 2026.2 adds only
# pkg-config and CMake files, no unversioned libmkl_rt.so link, which is why
# cmake/FindPslMKL.cmake also accepts the versioned names. At the end the script prints the prefix to
# give CMake as -DMKL_ROOT=...
set -euo pipefail

VENV=${1:-.venv-mkl}
MKL_VERSION=${MKL_VERSION:-2026.2.0}
PYTHON=${PYTHON:-python3}

if [ ! -x "$VENV/bin/python" ]; then
    "$PYTHON" -m venv "$VENV"
fi
"$VENV/bin/python" -m pip install --disable-pip-version-check --quiet \
    "mkl==$MKL_VERSION" "mkl-devel==$MKL_VERSION" "mkl-include==$MKL_VERSION"

PREFIX=$(cd "$VENV" && pwd)
if [ ! -f "$PREFIX/include/mkl_spblas.h" ]; then
    echo "install-mkl.sh: mkl_spblas.h not found under $PREFIX/include" >&2
    exit 1
fi
if ! ls "$PREFIX"/lib/libmkl_rt.so* >/dev/null 2>&1; then
    echo "install-mkl.sh: libmkl_rt.so* not found under $PREFIX/lib" >&2
    exit 1
fi
echo "MKL $MKL_VERSION installed in $PREFIX"
echo "configure with: cmake -S . -B build -DPSL_WITH_MKL=ON -DMKL_ROOT=$PREFIX"
