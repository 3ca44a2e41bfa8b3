# CCCL (CUB, Thrust, libcu++) headers. CUDA 13 ships them under <toolkit>/include/cccl, which nvcc
# searches by itself but a g++-only host build (Thrust's OpenMP system) does not. Prefer the toolkit's
# copy; a machine without a toolkit can point WARPDEX_CCCL_INCLUDE_DIR at any CCCL checkout.
set(_warpdex_cccl_hints)
if(CUDAToolkit_INCLUDE_DIRS)
  list(APPEND _warpdex_cccl_hints ${CUDAToolkit_INCLUDE_DIRS})
endif()
list(APPEND _warpdex_cccl_hints /usr/local/cuda/include $ENV{CUDA_HOME}/include $ENV{CUDA_PATH}/include)
find_path(WARPDEX_CCCL_INCLUDE_DIR thrust/version.h
  HINTS ${_warpdex_cccl_hints}
  PATH_SUFFIXES cccl
  NO_DEFAULT_PATH
  DOC "Folder holding thrust/, cub/ and cuda/ of CCCL")
if(NOT WARPDEX_CCCL_INCLUDE_DIR)
  message(STATUS "warpdex: CCCL headers not found; components that need Thrust or CUB on the host are off")
endif()
