// Hyperscan's literal mode behind the host backend's fixed-string matching (see literal_engine.hpp).
#include "literal_engine.hpp"

#include <warpdex/core/error.hpp>
#include <warpdex/search/string_match.hpp>

#include <algorithm>
#include <memory>
#include <string>

namespace warpdex::detail {

#if WARPDEX_HAS_HYPERSCAN

std::string host_literal_engine()
{
  return "hyperscan " + std::string(hs_version());
}

namespace {

/// Compiles patterns [first, last) (ids are their indexes) into one block-mode database.
hs_database_t* compile_group(std::span<const std::string_view> patterns, std::size_t first, std::size_t last,
                             bool caseless, std::string& error)
{
  std::vector<const char*> expressions;
  std::vector<std::size_t> lengths;
  std::vector<unsigned> ids;
  for (std::size_t i = first; i < last; ++i) {
    expressions.push_back(patterns[i].data());
    lengths.push_back(patterns[i].size());
    ids.push_back(static_cast<unsigned>(i));
  }
  const std::vector<unsigned> flags(expressions.size(), caseless ? HS_FLAG_CASELESS : 0U);
  hs_database_t* database = nullptr;
  hs_compile_error_t* compile_error = nullptr;
  if (hs_compile_lit_multi(expressions.data(), flags.data(), ids.data(), lengths.data(),
                           static_cast<unsigned>(expressions.size()), HS_MODE_BLOCK, nullptr, &database,
                           &compile_error) != HS_SUCCESS) {
    error = compile_error != nullptr ? compile_error->message : "unknown error";
    hs_free_compile_error(compile_error);
    return nullptr;
  }
  return database;
}

}  // namespace

hyperscan_literals::hyperscan_literals(std::span<const std::string_view> patterns, bool caseless, int threads)
{
  WARPDEX_EXPECTS(!patterns.empty(), "hyperscan_literals: no patterns");
  for (const std::string_view pattern : patterns) {
    WARPDEX_EXPECTS(!pattern.empty(), "hyperscan_literals: an empty pattern");
    lengths_.push_back(static_cast<std::uint32_t>(pattern.size()));
    longest_ = std::max<std::uint64_t>(longest_, pattern.size());
  }
  const std::size_t groups = (patterns.size() + hyperscan_group_patterns - 1) / hyperscan_group_patterns;
  databases_.assign(groups, nullptr);
  std::vector<std::string> errors(groups);
#pragma omp parallel for schedule(dynamic) if (groups > 1)
  for (std::size_t group = 0; group < groups; ++group) {
    const std::size_t first = group * patterns.size() / groups;
    const std::size_t last = (group + 1) * patterns.size() / groups;
    databases_[group] = compile_group(patterns, first, last, caseless, errors[group]);
  }
  const auto release = [this] {
    for (hs_scratch_t* scratch : scratch_) { hs_free_scratch(scratch); }
    for (hs_database_t* database : databases_) { hs_free_database(database); }
  };
  for (std::size_t group = 0; group < groups; ++group) {
    if (databases_[group] == nullptr) {
      release();
      WARPDEX_FAIL("Hyperscan cannot compile the patterns: " + errors[group]);
    }
  }
  hs_scratch_t* first = nullptr;
  for (hs_database_t* database : databases_) {
    if (hs_alloc_scratch(database, &first) != HS_SUCCESS) {
      hs_free_scratch(first);
      release();
      WARPDEX_FAIL("Hyperscan cannot allocate its scratch space");
    }
  }
  scratch_.push_back(first);
  for (int thread = 1; thread < std::max(threads, 1); ++thread) {
    hs_scratch_t* clone = nullptr;
    if (hs_clone_scratch(first, &clone) != HS_SUCCESS) {
      release();
      WARPDEX_FAIL("Hyperscan cannot allocate its scratch space");
    }
    scratch_.push_back(clone);
  }
}

hyperscan_literals::~hyperscan_literals()
{
  for (hs_scratch_t* scratch : scratch_) { hs_free_scratch(scratch); }
  for (hs_database_t* database : databases_) { hs_free_database(database); }
}

void hyperscan_literals::fail_scan(hs_error_t status)
{
  WARPDEX_FAIL("Hyperscan scan failed (error " + std::to_string(status) + ")");
}

#else

std::string host_literal_engine()
{
  return "built-in";
}

#endif

}  // namespace warpdex::detail

namespace warpdex {

std::string host_string_matcher()
{
  return detail::host_literal_engine();
}

}  // namespace warpdex
