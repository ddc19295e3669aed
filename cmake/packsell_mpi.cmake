# packsell_mpi.cmake -- the distributed layer (src/dist, include/packsell_mpi.h)
# as its own library, libpacksell_mpi (packsell + MPI), built when
# PSL_WITH_MPI is ON, or AUTO and find_package(MPI) finds a C MPI. The core
# libpacksell never links MPI. Sets PSL_HAVE_MPI for tests/ and the install.
set(PSL_WITH_MPI AUTO CACHE STRING
  "Distributed layer libpacksell_mpi: AUTO (when MPI is found), ON (required), OFF")
set_property(CACHE PSL_WITH_MPI PROPERTY STRINGS AUTO ON OFF)
set(PSL_WITH_NCCL AUTO CACHE STRING
  "NCCL transport of the distributed layer on GPUs: AUTO (when nccl.h and libnccl are found), ON (required), OFF")
set_property(CACHE PSL_WITH_NCCL PROPERTY STRINGS AUTO ON OFF)

set(PSL_HAVE_MPI OFF)
if(NOT PSL_WITH_MPI STREQUAL "OFF")
  if(PSL_WITH_MPI STREQUAL "ON")
    find_package(MPI REQUIRED COMPONENTS C)
  else()
    find_package(MPI QUIET COMPONENTS C)
  endif()
  if(MPI_C_FOUND)
    set(PSL_HAVE_MPI ON)
  endif()
endif()
message(STATUS "packsell: distributed layer (MPI) ${PSL_HAVE_MPI}")

if(PSL_HAVE_MPI)
  file(GLOB PSL_DIST_SOURCES CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/src/dist/*.c)
  # the device copy (src/dist/cuda/, its CUDA calls through libpacksell's
  # kernels/cuda/dist_cuda.h), or the stubs saying it is not built
  if(PSL_HAVE_CUDA)
    file(GLOB PSL_DIST_DEVICE_SOURCES CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/src/dist/cuda/*.c)
  else()
    file(GLOB PSL_DIST_DEVICE_SOURCES CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/src/dist/nocuda/*.c)
  endif()
  list(APPEND PSL_DIST_SOURCES ${PSL_DIST_DEVICE_SOURCES})
  add_library(packsell_mpi SHARED ${PSL_DIST_SOURCES})
  set_target_properties(packsell_mpi PROPERTIES VERSION ${PROJECT_VERSION} SOVERSION 0
    EXPORT_NAME packsell_mpi INSTALL_RPATH "$ORIGIN")  # finds libpacksell beside it
  target_include_directories(packsell_mpi PUBLIC
    $<BUILD_INTERFACE:${CMAKE_CURRENT_SOURCE_DIR}/include>
    $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
  # the library's internal headers (error reporting, allocation, half.h)
  target_include_directories(packsell_mpi PRIVATE
    ${CMAKE_CURRENT_SOURCE_DIR}/src/core ${CMAKE_CURRENT_SOURCE_DIR}/src)
  target_compile_options(packsell_mpi PRIVATE ${PSL_C_WARNINGS})
  target_link_libraries(packsell_mpi PUBLIC packsell_shared MPI::MPI_C)
  add_library(packsell::packsell_mpi ALIAS packsell_mpi)
  # the same sources over the static libpacksell, for the packsell command
  # (which links libpacksell statically: one copy of the library's state)
  add_library(packsell_mpi_static STATIC EXCLUDE_FROM_ALL ${PSL_DIST_SOURCES})
  target_include_directories(packsell_mpi_static PUBLIC ${CMAKE_CURRENT_SOURCE_DIR}/include
    PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/src/core ${CMAKE_CURRENT_SOURCE_DIR}/src)
  target_compile_options(packsell_mpi_static PRIVATE ${PSL_C_WARNINGS})
  target_link_libraries(packsell_mpi_static PUBLIC packsell_static MPI::MPI_C)
  # NCCL (the transport for the GPUs of one node): nccl.h and libnccl in the
  # CUDA toolkit or NCCL_HOME
  set(PSL_HAVE_NCCL OFF)
  if(PSL_HAVE_CUDA AND NOT PSL_WITH_NCCL STREQUAL "OFF")
    find_path(PSL_NCCL_INCLUDE_DIR nccl.h HINTS ${CUDAToolkit_INCLUDE_DIRS} $ENV{NCCL_HOME}/include)
    find_library(PSL_NCCL_LIBRARY nccl HINTS ${CUDAToolkit_LIBRARY_DIR} $ENV{NCCL_HOME}/lib)
    if(PSL_NCCL_INCLUDE_DIR AND PSL_NCCL_LIBRARY)
      set(PSL_HAVE_NCCL ON)
      foreach(t packsell_mpi packsell_mpi_static)
        target_compile_definitions(${t} PRIVATE PSL_HAVE_NCCL=1)
        target_include_directories(${t} PRIVATE ${PSL_NCCL_INCLUDE_DIR} ${CUDAToolkit_INCLUDE_DIRS})
        target_link_libraries(${t} PRIVATE ${PSL_NCCL_LIBRARY})
      endforeach()
    elseif(PSL_WITH_NCCL STREQUAL "ON")
      message(FATAL_ERROR "PSL_WITH_NCCL=ON but nccl.h or libnccl was not found (set NCCL_HOME)")
    endif()
  elseif(PSL_WITH_NCCL STREQUAL "ON")
    message(FATAL_ERROR "PSL_WITH_NCCL=ON needs the CUDA backend (PSL_ENABLE_CUDA and nvcc)")
  endif()
  message(STATUS "packsell: NCCL transport of the distributed layer ${PSL_HAVE_NCCL}")
  install(FILES include/packsell_mpi.h DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
  install(TARGETS packsell_mpi EXPORT packsellTargets
    LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
    ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
    RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR}
    INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
endif()
