# dist_build.sh -- sourced (from the repository root) by the device scripts of
# the distributed layer (run_device_dist.sh, run_device_multigpu.sh):
# dist_build LOG builds build-dist (Release, CUDA sm_90, MPI, Ninja) with
# packsell, dist_pcg_bench and, where CMake defines them, the distributed GPU
# tests and dist_gpu_bench, writing the log to LOG; non-zero on failure.
dist_build() {
  cmake -S . -B build-dist -G Ninja -DCMAKE_BUILD_TYPE=Release -DPSL_ENABLE_CUDA=ON \
    -DCMAKE_CUDA_ARCHITECTURES=90 -DPSL_WITH_MPI=ON >"$1" 2>&1 &&
    cmake --build build-dist -j "$(nproc)" --target packsell dist_pcg_bench \
      $(ninja -C build-dist -t targets all 2>/dev/null |
        grep -oE '^(test_dist_gpu[a-z_]*|dist_gpu_bench):' | tr -d : | sort -u) >>"$1" 2>&1
}

# The build as a step of such a script: uses its log function and RES folder,
# and ends the script with the log's tail when the build fails.
dist_build_step() {
  log "build (Release, CUDA sm_90, MPI)"
  if ! dist_build "$RES/build.txt"; then
    log "build failed:"
    tail -30 "$RES/build.txt"
    exit 1
  fi
  log "built"
}
