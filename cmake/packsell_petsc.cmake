# packsell_petsc.cmake -- the PETSc plugin libpacksell_petsc (src/petsc/):
# matrix types seqpacksell/mpipacksell for -mat_type. Built when PETSc (its
# pkg-config file PETSc.pc or petsc.pc) and MPI are found; PSL_WITH_PETSC
# AUTO (default), ON (required) or OFF. Debian's petsc-dev puts the .pc in
# /usr/lib/petsc/lib/pkgconfig (also searched: $PETSC_DIR[/$PETSC_ARCH]/lib/pkgconfig).
set(PSL_HAVE_PETSC OFF)
if(NOT PSL_WITH_PETSC STREQUAL "OFF")
  find_package(PkgConfig QUIET)
  find_package(MPI QUIET COMPONENTS C)
  if(PkgConfig_FOUND AND MPI_C_FOUND)
    set(_psl_pc_path_save "$ENV{PKG_CONFIG_PATH}")
    set(_psl_pc_dirs /usr/lib/petsc/lib/pkgconfig)
    if(DEFINED ENV{PETSC_DIR})
      list(PREPEND _psl_pc_dirs "$ENV{PETSC_DIR}/lib/pkgconfig" "$ENV{PETSC_DIR}/$ENV{PETSC_ARCH}/lib/pkgconfig")
    endif()
    string(REPLACE ";" ":" _psl_pc_dirs "${_psl_pc_dirs}")
    set(ENV{PKG_CONFIG_PATH} "$ENV{PKG_CONFIG_PATH}:${_psl_pc_dirs}")
    pkg_search_module(PSL_PETSC QUIET IMPORTED_TARGET PETSc petsc)
    set(ENV{PKG_CONFIG_PATH} "${_psl_pc_path_save}")
    if(PSL_PETSC_FOUND)
      set(PSL_HAVE_PETSC ON)
    endif()
  endif()
  if(PSL_WITH_PETSC STREQUAL "ON" AND NOT PSL_HAVE_PETSC)
    message(FATAL_ERROR "PSL_WITH_PETSC=ON but PETSc (pkg-config PETSc) or MPI was not found")
  endif()
endif()
message(STATUS "packsell: PETSc plugin ${PSL_HAVE_PETSC} ${PSL_PETSC_VERSION}")

if(PSL_HAVE_PETSC)
  file(GLOB PSL_PETSC_SOURCES CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/src/petsc/*.c)
  add_library(packsell_petsc SHARED ${PSL_PETSC_SOURCES})
  # INSTALL_RPATH $ORIGIN: loaded by PETSc (-dll_append) it finds libpacksell beside it
  set_target_properties(packsell_petsc PROPERTIES VERSION ${PROJECT_VERSION} SOVERSION 0
    INSTALL_RPATH "$ORIGIN")
  target_compile_options(packsell_petsc PRIVATE ${PSL_C_WARNINGS})
  target_include_directories(packsell_petsc PUBLIC
    $<BUILD_INTERFACE:${CMAKE_CURRENT_SOURCE_DIR}/include>
    $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
  target_link_libraries(packsell_petsc PUBLIC PkgConfig::PSL_PETSC MPI::MPI_C PRIVATE packsell_shared)
  install(TARGETS packsell_petsc LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
  install(FILES include/packsell_petsc.h DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
  if(EXISTS ${CMAKE_CURRENT_SOURCE_DIR}/examples/petsc_ksp_example.c)
    add_executable(petsc_ksp_example examples/petsc_ksp_example.c)
    target_compile_options(petsc_ksp_example PRIVATE ${PSL_C_WARNINGS})
    target_link_libraries(petsc_ksp_example PRIVATE packsell_petsc m)
  endif()
endif()
