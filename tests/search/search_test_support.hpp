#pragma once
// Shared by the search suites: the (backend, key type) configurations and fresh random seeds.

#include "support/backend_fixture.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <string>

namespace warpdex::testing {

template <class Backend, class Key>
struct search_config {
  using backend_type = Backend;
  using key_type = Key;
};

#if WARPDEX_HAS_CUDA
using search_configs = ::testing::Types<search_config<host, std::uint32_t>, search_config<host, std::uint64_t>,
                                        search_config<cuda, std::uint32_t>, search_config<cuda, std::uint64_t>>;
#else
using search_configs = ::testing::Types<search_config<host, std::uint32_t>, search_config<host, std::uint64_t>>;
#endif

struct search_config_names {
  template <class Config>
  static std::string GetName(int /*index*/)
  {
    return std::string(Config::backend_type::name) + "_u" + std::to_string(8 * sizeof(typename Config::key_type));
  }
};

template <class Config>
class search_test : public backend_test<typename Config::backend_type> {
};

/// A seed that differs from run to run; tests report it with SCOPED_TRACE so a failure can be replayed.
inline std::uint64_t fresh_seed()
{
  static std::random_device device;
  return (std::uint64_t{device()} << 32) | device();
}

}  // namespace warpdex::testing
