# petsc_tests.cmake -- the PETSc plugin's test (test_petsc_mat.c) under
# mpiexec --oversubscribe at 1, 2, 3 and 4 processes, label petsc. Open MPI
# refuses root unless told (CI runs as root). Under the sanitizers, LeakSanitizer
# reports allocations that Open MPI and PETSc keep until exit (not ours):
# petsc_lsan.supp suppresses those libraries' frames only.
add_executable(test_petsc_mat ${CMAKE_CURRENT_SOURCE_DIR}/test_petsc_mat.c)
target_compile_options(test_petsc_mat PRIVATE ${PSL_C_WARNINGS})
target_link_libraries(test_petsc_mat PRIVATE packsell_petsc m)
set(PSL_MPIEXEC ${MPIEXEC_EXECUTABLE})
if(NOT PSL_MPIEXEC)
  set(PSL_MPIEXEC mpiexec)
endif()
foreach(np 1 2 3 4)
  add_test(NAME petsc_mat_np${np}
    COMMAND ${PSL_MPIEXEC} --oversubscribe -np ${np} $<TARGET_FILE:test_petsc_mat> -no_signal_handler)
  set_tests_properties(petsc_mat_np${np} PROPERTIES LABELS petsc TIMEOUT 600
    ENVIRONMENT "OMPI_ALLOW_RUN_AS_ROOT=1;OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1;OMP_NUM_THREADS=1;OMPI_MCA_btl_vader_single_copy_mechanism=none;OMPI_MCA_rmaps_base_oversubscribe=1;LSAN_OPTIONS=suppressions=${CMAKE_CURRENT_SOURCE_DIR}/petsc_lsan.supp:fast_unwind_on_malloc=0")
endforeach()
