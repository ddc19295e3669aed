#!/usr/bin/env bash
# run_device_dist_f3r.sh -- one device call: the library's F3R and block
# SD-AINV through the distributed layer on the H200, beside the serial
# command in the same run. Builds packsell (Release, CUDA sm_90, MPI), then
#   packsell solve gen:hpcg:8:8:8 --method f3r --device cuda        (serial)
#   mpirun -np 1 / -np 2 packsell solve ... --method f3r --device cuda
#   the same for PCG + SD-AINV on gen:hpcg:7:7:7 (serial and np 1, 2),
#   and PCG on gen:lap3d:256 (generated per rank for its rows) at np 1, 2,
# each with --json (setup apart from the solve, the median of --repeat).
# Two ranks share the one GPU (host-staged halos): the plumbing, not scaling.
# Results under $OUT/distf3r; a short table is printed last.
# Usage (device tool): DIST_COMMIT=<commit> bash bench/run_device_dist_f3r.sh
# Afterwards, here: copy $OUT/distf3r into bench/results/DATE-gpu-dist-f3r/ and run
#   python3 bench/dist_f3r_report.py bench/results/DATE-gpu-dist-f3r
set -uo pipefail
cd "$(dirname "$0")/.."
T0=$(date +%s)
OUT=${OUT:-/tmp/psl-out}
RES=$OUT/distf3r
mkdir -p "$RES"
export PATH="$PATH:/usr/local/cuda/bin" OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export NCCL_NVLS_ENABLE=0 OMP_WAIT_POLICY=PASSIVE
DEADLINE=${DIST_DEADLINE:-570}
REPEAT=${DIST_REPEAT:-3}
log() { echo "[$(date +%H:%M:%S) +$(( $(date +%s) - T0 ))s] $*" | tee -a "$RES/log.txt"; }
cap() { local l=$(( DEADLINE - ($(date +%s) - T0) )); [ "$l" -lt "$1" ] && echo $(( l > 5 ? l : 5 )) || echo "$1"; }
{
  echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "commit: ${DIST_COMMIT:-$(git rev-parse --short HEAD 2>/dev/null || echo unknown)}"
  echo "host cpus: $(nproc)"
  grep -m1 "model name" /proc/cpuinfo
  nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>&1
  mpirun --version 2>&1 | head -1
} >"$RES/host.txt" 2>&1
cat "$RES/host.txt"
log "build"
if ! cmake -S . -B build-dist -G Ninja -DCMAKE_BUILD_TYPE=Release -DPSL_ENABLE_CUDA=ON \
     -DCMAKE_CUDA_ARCHITECTURES=90 -DPSL_WITH_MPI=ON >"$RES/build.txt" 2>&1 ||
   ! cmake --build build-dist -j "$(nproc)" --target packsell >>"$RES/build.txt" 2>&1; then
  log "build failed"; tail -30 "$RES/build.txt"; exit 1
fi
log "built"
P=build-dist/packsell
MPIRUN="mpirun --oversubscribe --bind-to none"
# run NAME NP(0: serial) ARGS...
run() {
  local name=$1 np=$2; shift 2
  log "$name: np $np: $*"
  if [ "$np" = 0 ]; then
    OMP_NUM_THREADS=16 timeout $(cap 200) $P solve "$@" --device cuda --repeat "$REPEAT" \
      --json "$RES/$name.json" >"$RES/$name.txt" 2>&1
  else
    timeout $(cap 200) $MPIRUN -np "$np" -x OMP_NUM_THREADS=$((16 / np)) $P solve "$@" \
      --device cuda --repeat "$REPEAT" --json "$RES/$name.json" >"$RES/$name.txt" 2>&1
  fi
  log "  exit $?: $(grep -E '^(iterations|solve) ' "$RES/$name.txt" | tr -s ' ' | tr '\n' ' ')"
}
run f3r_hpcg888_serial 0 gen:hpcg:8:8:8 --method f3r
run f3r_hpcg888_np1 1 gen:hpcg:8:8:8 --method f3r
run f3r_hpcg888_np2 2 gen:hpcg:8:8:8 --method f3r
run sdainv_hpcg777_serial 0 gen:hpcg:7:7:7 --method pcg --precond sdainv
run sdainv_hpcg777_np1 1 gen:hpcg:7:7:7 --method pcg --precond sdainv
run sdainv_hpcg777_np2 2 gen:hpcg:7:7:7 --method pcg --precond sdainv
run pcg_lap3d256_serial 0 gen:lap3d:256 --method pcg --no-scale
run pcg_lap3d256_np1 1 gen:lap3d:256 --method pcg
run pcg_lap3d256_np2 2 gen:lap3d:256 --method pcg
log "table:"
python3 bench/dist_f3r_report.py "$RES" 2>&1 | tee -a "$RES/log.txt"
