# packsell_mpi_tests.cmake -- registers tests/test_dist_*.c (included from
# tests/CMakeLists.txt when the distributed layer is built): one executable
# each, run as `mpiexec --oversubscribe -np N` for N = 1..4 (and 8 for the
# generator's 3D process grid), label mpi.
# As root Open MPI needs OMPI_ALLOW_RUN_AS_ROOT(_CONFIRM); under
# AddressSanitizer, tests/mpi_lsan.supp hides the leaks inside Open MPI.
file(GLOB PSL_DIST_TEST_SOURCES CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/tests/test_dist_*.c)
set(PSL_MPIEXEC_FLAGS "")
execute_process(COMMAND ${MPIEXEC_EXECUTABLE} --version OUTPUT_VARIABLE _psl_mpiexec_version
  ERROR_QUIET)
if(_psl_mpiexec_version MATCHES "Open MPI|OpenRTE")
  set(PSL_MPIEXEC_FLAGS --oversubscribe)
endif()
set(PSL_MPI_TEST_ENV
  "OMPI_ALLOW_RUN_AS_ROOT=1" "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1"
  "OMPI_MCA_rmaps_base_oversubscribe=1" "OMP_NUM_THREADS=1"
  "LSAN_OPTIONS=suppressions=${PROJECT_SOURCE_DIR}/tests/mpi_lsan.supp:fast_unwind_on_malloc=0")
foreach(src ${PSL_DIST_TEST_SOURCES})
  get_filename_component(name ${src} NAME_WE)
  add_executable(${name} ${src})
  target_compile_options(${name} PRIVATE ${PSL_C_WARNINGS})
  target_compile_definitions(${name} PRIVATE PSL_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
  target_link_libraries(${name} PRIVATE packsell_mpi)
  set(nps 1 2 3 4)
  if(name STREQUAL "test_dist_gen")
    list(APPEND nps 8)  # a 2 x 2 x 2 process grid: every axis split
  elseif(name STREQUAL "test_dist_gpu")
    set(nps 1 2)  # GPUs (skips without one): one rank, and two sharing or not a GPU
  endif()
  foreach(np IN LISTS nps)
    add_test(NAME ${name}_np${np} COMMAND ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} ${np}
      ${PSL_MPIEXEC_FLAGS} ${MPIEXEC_PREFLAGS} $<TARGET_FILE:${name}> ${MPIEXEC_POSTFLAGS})
    set_tests_properties(${name}_np${np} PROPERTIES TIMEOUT 300 LABELS mpi PROCESSORS ${np}
      SKIP_RETURN_CODE 77 ENVIRONMENT "${PSL_MPI_TEST_ENV}")
    if(name STREQUAL "test_dist_gpu")
      set_tests_properties(${name}_np${np} PROPERTIES LABELS "mpi;gpu")
    endif()
  endforeach()
endforeach()

# The packsell command under mpirun (tests/test_cli_mpi.sh): bench and
# solve on 1, 2 and 3 ranks against the serial command.
foreach(np 1 2 3)
  add_test(NAME test_cli_mpi_np${np} COMMAND bash ${PROJECT_SOURCE_DIR}/tests/test_cli_mpi.sh
    $<TARGET_FILE:packsell> ${MPIEXEC_EXECUTABLE} "${PSL_MPIEXEC_FLAGS}" ${np})
  set_tests_properties(test_cli_mpi_np${np} PROPERTIES TIMEOUT 900 LABELS mpi PROCESSORS ${np}
    ENVIRONMENT "${PSL_MPI_TEST_ENV}")
endforeach()
