#pragma once
/// @file Compiler portability macros shared by host-only and CUDA builds.

#if defined(__CUDACC__)
#define WARPDEX_HOST_DEVICE __host__ __device__
#define WARPDEX_DEVICE __device__
#else
#define WARPDEX_HOST_DEVICE
#define WARPDEX_DEVICE
#endif

/// 1 when the library was built with its CUDA backend (set by the CMake target), else 0.
#ifndef WARPDEX_HAS_CUDA
#define WARPDEX_HAS_CUDA 0
#endif

/// The stream type of the CUDA runtime, declared without including it so host-only code can name it.
/// Identical to `cudaStream_t`; `nullptr` is the default stream.
struct CUstream_st;
namespace warpdex {
using stream_t = CUstream_st*;
}  // namespace warpdex
