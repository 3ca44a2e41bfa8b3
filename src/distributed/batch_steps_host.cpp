// The per-rank steps of a distributed batch on the host backend (OpenMP).

#include <warpdex/distributed/detail/batch_steps.hpp>
#include <warpdex/split/multisplit_host.hpp>

#include <algorithm>
#include <cstddef>
#include <numeric>

namespace warpdex::distributed::detail {

std::vector<std::uint64_t> split_by_owner(const host& backend, std::span<const std::uint32_t> keys,
                                          std::span<std::uint32_t> keys_out, std::span<std::uint32_t> positions_out,
                                          owner_buckets owners)
{
  std::vector<std::uint32_t> positions(keys.size());
  std::iota(positions.begin(), positions.end(), std::uint32_t{0});
  return multisplit_pairs<std::uint32_t, std::uint32_t>(backend, keys, positions, keys_out, positions_out, owners);
}

std::vector<std::uint64_t> split_pairs_by_owner(const host& backend, std::span<const std::uint32_t> keys,
                                                std::span<const std::uint32_t> values,
                                                std::span<std::uint32_t> keys_out, std::span<std::uint32_t> values_out,
                                                owner_buckets owners)
{
  return multisplit_pairs<std::uint32_t, std::uint32_t>(backend, keys, values, keys_out, values_out, owners);
}

namespace {
template <class T>
void gather_on_host(std::span<const T> source, std::span<const std::uint32_t> positions, std::span<T> out)
{
  const auto count = static_cast<std::ptrdiff_t>(out.size());
#pragma omp parallel for schedule(static)
  for (std::ptrdiff_t j = 0; j < count; ++j) { out[j] = source[positions[j]]; }
}
}  // namespace

void gather(const host& /*backend*/, std::span<const std::uint32_t> source, std::span<const std::uint32_t> positions,
            std::span<std::uint32_t> out)
{
  gather_on_host(source, positions, out);
}

void gather(const host& /*backend*/, std::span<const hash::operation> source, std::span<const std::uint32_t> positions,
            std::span<hash::operation> out)
{
  gather_on_host(source, positions, out);
}

std::uint64_t count_invalid_operations(const host& /*backend*/, std::span<const hash::operation> operations)
{
  std::uint64_t invalid = 0;
  const auto count = static_cast<std::ptrdiff_t>(operations.size());
#pragma omp parallel for schedule(static) reduction(+ : invalid)
  for (std::ptrdiff_t j = 0; j < count; ++j) {
    invalid += static_cast<std::uint32_t>(operations[j]) >= hash::operation_count ? 1 : 0;
  }
  return invalid;
}

void scatter(const host& /*backend*/, std::span<const hash::operation_status> source,
             std::span<const std::uint32_t> positions, std::span<hash::operation_status> out)
{
  const auto count = static_cast<std::ptrdiff_t>(source.size());
#pragma omp parallel for schedule(static)
  for (std::ptrdiff_t j = 0; j < count; ++j) { out[positions[j]] = source[j]; }
}

void scatter_found(const host& /*backend*/, std::span<const std::uint32_t> values,
                   std::span<const hash::operation_status> statuses, std::span<const std::uint32_t> positions,
                   std::span<std::uint32_t> out, std::span<hash::operation_status> statuses_out)
{
  const auto count = static_cast<std::ptrdiff_t>(values.size());
  const bool with_statuses = !statuses_out.empty();
#pragma omp parallel for schedule(static)
  for (std::ptrdiff_t j = 0; j < count; ++j) {
    if (with_statuses) { statuses_out[positions[j]] = statuses[j]; }
    if (statuses[j] == hash::operation_status::found) { out[positions[j]] = values[j]; }
  }
}

void copy_segments(const host& /*backend*/, std::span<const std::uint32_t> source, std::span<std::uint32_t> out,
                   const std::vector<std::uint64_t>& out_starts, const std::vector<std::uint64_t>& source_starts)
{
  const auto segments = static_cast<std::ptrdiff_t>(out_starts.size());
#pragma omp parallel for schedule(dynamic, 16)
  for (std::ptrdiff_t k = 0; k < segments; ++k) {
    const std::uint64_t end = k + 1 < segments ? out_starts[k + 1] : out.size();
    std::copy_n(source.begin() + static_cast<std::ptrdiff_t>(source_starts[k]), end - out_starts[k],
                out.begin() + static_cast<std::ptrdiff_t>(out_starts[k]));
  }
}

}  // namespace warpdex::distributed::detail
