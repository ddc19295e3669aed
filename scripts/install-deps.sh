#!/usr/bin/env bash
# install-deps.sh -- installs what the build needs when the machine lacks it
# (Debian/Ubuntu packages): a C11 compiler with OpenMP, CMake >= 3.18, make,
# zlib headers, pkg-config, Open MPI (libopenmpi-dev, openmpi-bin: the
# distributed layer libpacksell_mpi and its tests) and PETSc (petsc-dev: the
# PETSc plugin). CUDA is optional: the build uses nvcc when it is
# on PATH (or in /usr/local/cuda/bin) and builds without it otherwise.
set -euo pipefail
need=()
command -v cc >/dev/null 2>&1 || need+=(gcc)
command -v cmake >/dev/null 2>&1 || need+=(cmake)
command -v make >/dev/null 2>&1 || need+=(make)
command -v pkg-config >/dev/null 2>&1 || need+=(pkg-config)
[ -f /usr/include/zlib.h ] || need+=(zlib1g-dev)
# MPI and PETSc (Debian 12: Open MPI 4.1, PETSc 3.18): the distributed layer
# and the PETSc matrix types
command -v mpicc >/dev/null 2>&1 || need+=(libopenmpi-dev)
command -v mpiexec >/dev/null 2>&1 || need+=(openmpi-bin)
[ -d /usr/lib/petsc/lib/pkgconfig ] || need+=(petsc-dev)
if [ ${#need[@]} -gt 0 ]; then
  echo "install-deps: installing ${need[*]}"
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${need[@]}"
fi
if ! command -v nvcc >/dev/null 2>&1 && [ -x /usr/local/cuda/bin/nvcc ]; then
  echo "install-deps: nvcc found in /usr/local/cuda/bin (add it to PATH to build the CUDA backend)"
fi
exit 0
