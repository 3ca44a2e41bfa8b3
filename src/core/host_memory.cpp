#include <warpdex/core/error.hpp>
#include <warpdex/core/host_memory.hpp>

#include <sys/resource.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <string>

namespace warpdex {
namespace {

std::string gigabytes(std::uint64_t bytes)
{
  char text[32];
  std::snprintf(text, sizeof text, "%.1f GB", static_cast<double>(bytes) / 1e9);
  return text;
}

/// A field of /proc/self/status or /proc/meminfo ("Name:   123 kB") in bytes, or UINT64_MAX.
std::uint64_t kilobyte_field(const char* file, const std::string& name)
{
  std::ifstream in(file);
  std::string line;
  while (std::getline(in, line)) {
    if (line.compare(0, name.size() + 1, name + ":") == 0) {
      return std::strtoull(line.c_str() + name.size() + 1, nullptr, 10) * 1024;
    }
  }
  return std::numeric_limits<std::uint64_t>::max();
}

}  // namespace

std::uint64_t host_memory_bytes()
{
  std::uint64_t available = kilobyte_field("/proc/meminfo", "MemAvailable");
  rlimit limit{};
  if (getrlimit(RLIMIT_AS, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY) {
    const std::uint64_t used = kilobyte_field("/proc/self/status", "VmSize");
    const std::uint64_t left =
        used == std::numeric_limits<std::uint64_t>::max() || used >= limit.rlim_cur ? 0 : limit.rlim_cur - used;
    available = std::min(available, left);
  }
  return available;
}

void expect_host_memory(std::uint64_t bytes, const std::string& what)
{
  const std::uint64_t available = host_memory_bytes();
  WARPDEX_EXPECTS(bytes <= available, what + " needs about " + gigabytes(bytes) + " of host memory, more than the " +
                                          gigabytes(available) + " available");
}

}  // namespace warpdex
