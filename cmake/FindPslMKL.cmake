# FindPslMKL.cmake -- find Intel oneMKL for the optional MKL baselines of
# "packsell bench --device cpu" (the library never uses MKL).
#
# Input:  MKL_ROOT (CMake or environment variable; also MKLROOT), e.g. the
#         virtualenv of scripts/install-mkl.sh; that virtualenv at its default
#         place (.venv-mkl in the source tree) is searched too.
# Output: PslMKL_FOUND, PslMKL_INCLUDE_DIR, PslMKL_LIBRARIES, PslMKL_LIBRARY_DIR,
#         PslMKL_LINK ("mkl_rt" or "split"), and the imported target PslMKL::mkl.
#
# Preferred: the single dynamic library mkl_rt (threading layer chosen at run
# time, Intel OpenMP by default; MKL_THREADING_LAYER=GNU|INTEL|SEQUENTIAL).
# Else the split libraries mkl_intel_lp64 + mkl_intel_thread + mkl_core +
# iomp5. The PyPI wheels ship only versioned files (libmkl_rt.so.3,
# libmkl_core.so.3, ...) without the unversioned link, so those names are
# searched too.
set(_psl_mkl_hints)  # MKL_ROOT, then the virtualenv of scripts/install-mkl.sh
foreach(_root "${MKL_ROOT}" "$ENV{MKL_ROOT}" "$ENV{MKLROOT}")
  if(_root)
    list(APPEND _psl_mkl_hints "${_root}")
  endif()
endforeach()
list(APPEND _psl_mkl_hints "${PROJECT_SOURCE_DIR}/.venv-mkl")

find_path(PslMKL_INCLUDE_DIR mkl_spblas.h
  HINTS ${_psl_mkl_hints} PATH_SUFFIXES include include/mkl)

# One MKL library by base name: the unversioned .so, else the newest .so.N.
function(_psl_find_mkl_lib var name)
  find_library(${var} NAMES ${name} HINTS ${_psl_mkl_hints}
    PATH_SUFFIXES lib lib/intel64 lib64)
  if(NOT ${var})
    set(_cands)
    foreach(_root ${_psl_mkl_hints})
      foreach(_sub lib lib/intel64 lib64)
        file(GLOB _g "${_root}/${_sub}/lib${name}.so.[0-9]*")
        list(APPEND _cands ${_g})
      endforeach()
    endforeach()
    if(_cands)
      list(SORT _cands COMPARE NATURAL ORDER DESCENDING)
      list(GET _cands 0 _first)
      set(${var} "${_first}" CACHE FILEPATH "MKL library ${name}" FORCE)
    endif()
  endif()
endfunction()

_psl_find_mkl_lib(PslMKL_RT_LIBRARY mkl_rt)
set(PslMKL_LINK "")
if(PslMKL_RT_LIBRARY)
  set(PslMKL_LIBRARIES "${PslMKL_RT_LIBRARY}")
  set(PslMKL_LINK mkl_rt)
else()
  _psl_find_mkl_lib(PslMKL_LP64_LIBRARY mkl_intel_lp64)
  _psl_find_mkl_lib(PslMKL_THREAD_LIBRARY mkl_intel_thread)
  _psl_find_mkl_lib(PslMKL_CORE_LIBRARY mkl_core)
  _psl_find_mkl_lib(PslMKL_IOMP_LIBRARY iomp5)
  if(PslMKL_LP64_LIBRARY AND PslMKL_THREAD_LIBRARY AND PslMKL_CORE_LIBRARY AND PslMKL_IOMP_LIBRARY)
    set(PslMKL_LIBRARIES "${PslMKL_LP64_LIBRARY}" "${PslMKL_THREAD_LIBRARY}"
      "${PslMKL_CORE_LIBRARY}" "${PslMKL_IOMP_LIBRARY}")
    set(PslMKL_LINK split)
  endif()
endif()

include(FindPackageHandleStandardArgs)
find_package_handle_standard_args(PslMKL REQUIRED_VARS PslMKL_LIBRARIES PslMKL_INCLUDE_DIR)

if(PslMKL_FOUND AND NOT TARGET PslMKL::mkl)
  list(GET PslMKL_LIBRARIES 0 _first)
  get_filename_component(PslMKL_LIBRARY_DIR "${_first}" DIRECTORY)
  add_library(PslMKL::mkl INTERFACE IMPORTED)
  set_target_properties(PslMKL::mkl PROPERTIES
    INTERFACE_INCLUDE_DIRECTORIES "${PslMKL_INCLUDE_DIR}"
    INTERFACE_LINK_LIBRARIES "${PslMKL_LIBRARIES};${CMAKE_DL_LIBS}")
endif()
mark_as_advanced(PslMKL_INCLUDE_DIR PslMKL_RT_LIBRARY PslMKL_LP64_LIBRARY
  PslMKL_THREAD_LIBRARY PslMKL_CORE_LIBRARY PslMKL_IOMP_LIBRARY)
