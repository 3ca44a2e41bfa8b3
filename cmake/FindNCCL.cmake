# FindNCCL: the NVIDIA Collective Communications Library (nccl.h and libnccl.so.2).
#
# Looks, in this order, in NCCL_ROOT (a CMake or environment variable naming a folder with include/ and
# lib/), in the project's own virtual environment (.venv/, where `tools/python-env.sh --nccl` installs the
# `nvidia-nccl-cu13` wheel: site-packages/nvidia/nccl/{include,lib}), in the CUDA toolkit's folders, and
# in the system's, the first folder holding either name winning (NAMES_PER_DIR: the header and the library come from
# one place). The wheel ships only libnccl.so.2 (no unversioned libnccl.so), hence both names.
#
# Defines NCCL_FOUND, NCCL_INCLUDE_DIR, NCCL_LIBRARY, NCCL_VERSION (from nccl.h) and the imported
# target NCCL::nccl.

set(_nccl_hints)
foreach(_nccl_root IN ITEMS "${NCCL_ROOT}" "$ENV{NCCL_ROOT}" "$ENV{NCCL_HOME}")
  if(_nccl_root)
    list(APPEND _nccl_hints "${_nccl_root}")
  endif()
endforeach()
file(GLOB _nccl_wheels "${PROJECT_SOURCE_DIR}/.venv/lib/python3*/site-packages/nvidia/nccl")
list(APPEND _nccl_hints ${_nccl_wheels})
if(CUDAToolkit_LIBRARY_DIR)
  get_filename_component(_nccl_toolkit "${CUDAToolkit_LIBRARY_DIR}/.." ABSOLUTE)
  list(APPEND _nccl_hints "${_nccl_toolkit}")
endif()
if(CUDAToolkit_INCLUDE_DIRS)
  foreach(_nccl_include IN LISTS CUDAToolkit_INCLUDE_DIRS)
    get_filename_component(_nccl_toolkit "${_nccl_include}/.." ABSOLUTE)
    list(APPEND _nccl_hints "${_nccl_toolkit}")
  endforeach()
endif()

find_path(NCCL_INCLUDE_DIR nccl.h HINTS ${_nccl_hints} PATH_SUFFIXES include DOC "Folder holding nccl.h")
find_library(NCCL_LIBRARY NAMES nccl libnccl.so.2 NAMES_PER_DIR HINTS ${_nccl_hints} PATH_SUFFIXES lib lib64
             DOC "libnccl (shared)")

if(NCCL_INCLUDE_DIR AND EXISTS "${NCCL_INCLUDE_DIR}/nccl.h")
  file(STRINGS "${NCCL_INCLUDE_DIR}/nccl.h" _nccl_version_lines REGEX "^#define NCCL_(MAJOR|MINOR|PATCH) ")
  foreach(_nccl_part MAJOR MINOR PATCH)
    string(REGEX MATCH "NCCL_${_nccl_part} ([0-9]+)" _nccl_match "${_nccl_version_lines}")
    set(_nccl_${_nccl_part} "${CMAKE_MATCH_1}")
  endforeach()
  set(NCCL_VERSION "${_nccl_MAJOR}.${_nccl_MINOR}.${_nccl_PATCH}")
endif()

include(FindPackageHandleStandardArgs)
find_package_handle_standard_args(NCCL REQUIRED_VARS NCCL_LIBRARY NCCL_INCLUDE_DIR VERSION_VAR NCCL_VERSION)

if(NCCL_FOUND AND NOT TARGET NCCL::nccl)
  add_library(NCCL::nccl SHARED IMPORTED)
  set_target_properties(NCCL::nccl PROPERTIES IMPORTED_LOCATION "${NCCL_LIBRARY}"
                                              INTERFACE_INCLUDE_DIRECTORIES "${NCCL_INCLUDE_DIR}")
endif()
mark_as_advanced(NCCL_INCLUDE_DIR NCCL_LIBRARY)
