#pragma once
/// @file The host memory a run can count on, for checks made before a large allocation: a request that
/// cannot fit is refused with a message instead of being killed by the kernel part way through.

#include <cstdint>
#include <string>

namespace warpdex {

/// Bytes of host memory this process may still allocate: the smaller of MemAvailable (/proc/meminfo) and
/// what the address-space limit (ulimit -v) leaves; UINT64_MAX when neither is known.
[[nodiscard]] std::uint64_t host_memory_bytes();

/// Throws `warpdex::error` ("WHAT needs about X GB of host memory, more than the Y GB available")
/// when `bytes` exceed `host_memory_bytes()`.
void expect_host_memory(std::uint64_t bytes, const std::string& what);

}  // namespace warpdex
