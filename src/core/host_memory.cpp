#include <warpdex/core/error.hpp>
#include <warpdex/core/host_memory.hpp>

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <limits>

namespace warpdex {
namespace {

std::string gigabytes(std::uint64_t bytes)
{
  char text[32];
  std::snprintf(text, sizeof text, "%.1f GB", static_cast<double>(bytes) / 1e9);
  return text;
}

}  // namespace

std::uint64_t host_memory_bytes()
{
  std::uint64_t bytes = std::numeric_limits<std::uint64_t>::max();
  const long pages = sysconf(_SC_PHYS_PAGES);
  const long page_bytes = sysconf(_SC_PAGESIZE);
  if (pages > 0 && page_bytes > 0) {
    bytes = static_cast<std::uint64_t>(pages) * static_cast<std::uint64_t>(page_bytes);
  }
  rlimit limit{};
  if (getrlimit(RLIMIT_AS, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY) {
    // What the limit leaves beside the address space already mapped (statm's first field, in pages).
    std::uint64_t mapped_pages = 0;
    std::ifstream statm("/proc/self/statm");
    statm >> mapped_pages;
    const std::uint64_t mapped = mapped_pages * static_cast<std::uint64_t>(page_bytes > 0 ? page_bytes : 4096);
    bytes = std::min<std::uint64_t>(bytes, limit.rlim_cur > mapped ? limit.rlim_cur - mapped : 0);
  }
  return bytes;
}

void expect_host_memory(std::uint64_t bytes, const std::string& what)
{
  const std::uint64_t available = host_memory_bytes();
  WARPDEX_EXPECTS(bytes <= available, what + " needs about " + gigabytes(bytes) + " of host memory, more than the " +
                                          gigabytes(available) + " of this machine");
}

}  // namespace warpdex
