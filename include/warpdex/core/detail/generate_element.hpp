#pragma once
/// @file The per-element functions behind generate.hpp, usable on host and device.

#include <warpdex/core/config.hpp>
#include <warpdex/core/generate.hpp>
#include <warpdex/core/hash.hpp>

#include <cmath>
#include <cstdint>

namespace warpdex::detail {

/// A uniform 64-bit word for (seed, stream, i): independent streams of one seed never share words.
WARPDEX_HOST_DEVICE constexpr std::uint64_t random_word(std::uint64_t seed, std::uint64_t stream, std::uint64_t i)
{
  return fmix64(fmix64(seed ^ (stream * 0x9e3779b97f4a7c15ULL)) + i * 0xbf58476d1ce4e5b9ULL + 1);
}

/// A uniform double in [0, 1) with 53 random bits.
WARPDEX_HOST_DEVICE inline double random_unit(std::uint64_t seed, std::uint64_t stream, std::uint64_t i)
{
  constexpr double two_to_minus_53 = 1.0 / 9007199254740992.0;
  return static_cast<double>(random_word(seed, stream, i) >> 11) * two_to_minus_53;
}

/// A keyed pseudo-random permutation of [0, domain) for any domain in [1, 2^64]: a keyed bijection on the
/// smallest power-of-two range covering the domain, applied again while the value falls outside it
/// ("cycle walking"; fewer than two rounds on average because the range is less than twice the domain).
/// `domain_minus_one` is domain - 1 so that the full 2^64 range is representable.
class index_permutation {
 public:
  WARPDEX_HOST_DEVICE index_permutation(std::uint64_t domain_minus_one, std::uint64_t seed)
      : last_(domain_minus_one), mask_(all_ones_to_cover(domain_minus_one))
  {
    int bits = 0;
    for (std::uint64_t m = mask_; m != 0; m >>= 1) { ++bits; }
    shift_ = bits > 1 ? (bits + 1) / 2 : 1;
    for (int round = 0; round < rounds; ++round) {
      round_keys_[round] = random_word(seed, 0x5eed, static_cast<std::uint64_t>(round)) & mask_;
    }
  }

  WARPDEX_HOST_DEVICE std::uint64_t operator()(std::uint64_t index) const
  {
    std::uint64_t value = index;
    do {
      value = mix(value);
    } while (value > last_);
    return value;
  }

 private:
  static constexpr int rounds = 4;

  WARPDEX_HOST_DEVICE static std::uint64_t all_ones_to_cover(std::uint64_t value)
  {
    std::uint64_t mask = value;
    for (int shift = 1; shift < 64; shift <<= 1) { mask |= mask >> shift; }
    return mask;
  }

  /// Each step (xor with a key, multiply by an odd constant modulo 2^bits, xor-shift right) is a bijection
  /// on [0, 2^bits), so the composition is one.
  WARPDEX_HOST_DEVICE std::uint64_t mix(std::uint64_t value) const
  {
    constexpr std::uint64_t odd_multipliers[rounds] = {0x9e3779b97f4a7c15ULL, 0xbf58476d1ce4e5b9ULL,
                                                       0x94d049bb133111ebULL, 0xd6e8feb86659fd93ULL};
    for (int round = 0; round < rounds; ++round) {
      value ^= round_keys_[round];
      value = (value * odd_multipliers[round]) & mask_;
      value ^= value >> shift_;
    }
    return value;
  }

  std::uint64_t last_;
  std::uint64_t mask_;
  int shift_ = 1;
  std::uint64_t round_keys_[rounds] = {};
};

/// key(i) of a key_set, and keys outside it.
template <class Key>
class key_set_view {
 public:
  WARPDEX_HOST_DEVICE explicit key_set_view(const key_set<Key>& set)
      : set_(set),
        permutation_(static_cast<std::uint64_t>(set.max_key), set.seed),
        stride_(set.size == 0 ? 1 : sorted_stride(set))
  {
  }

  WARPDEX_HOST_DEVICE Key key(std::uint64_t i) const
  {
    if (set_.order == key_order::shuffled) { return static_cast<Key>(permutation_(i)); }
    return static_cast<Key>(i * stride_ + random_word(set_.seed, 0x50e7, i) % stride_);
  }

  /// A key not in the set, chosen by the random word `r`.
  WARPDEX_HOST_DEVICE Key absent_key(std::uint64_t r) const
  {
    if (set_.order == key_order::shuffled) {
      // The permutation maps [size, max_key] onto the keys outside the set.
      const std::uint64_t outside = static_cast<std::uint64_t>(set_.max_key) - set_.size + 1;
      return static_cast<Key>(permutation_(set_.size + r % outside));
    }
    if (set_.size == 0) {  // every key is absent
      const std::uint64_t max_key = static_cast<std::uint64_t>(set_.max_key);
      return static_cast<Key>(max_key == UINT64_MAX ? r : r % (max_key + 1));
    }
    // Slot i holds one key in [i * stride, (i + 1) * stride); any other value of a slot is absent.
    const std::uint64_t slot = r % set_.size;
    const std::uint64_t present = random_word(set_.seed, 0x50e7, slot) % stride_;
    const std::uint64_t other = (present + 1 + (r / set_.size) % (stride_ - 1)) % stride_;
    return static_cast<Key>(slot * stride_ + other);
  }

  /// Keys per slot of a sorted set: floor((max_key + 1) / size), computed without overflowing. The one
  /// value that does not fit, 2^64 (a single key over all 64-bit keys), becomes 2^64 - 1: the slot loses
  /// its last key, and every stride stays non-zero.
  WARPDEX_HOST_DEVICE static std::uint64_t sorted_stride(const key_set<Key>& set)
  {
    const std::uint64_t max_key = static_cast<std::uint64_t>(set.max_key);
    const std::uint64_t stride = max_key / set.size + ((max_key % set.size) + 1 == set.size ? 1 : 0);
    return stride == 0 ? max_key : stride;
  }

 private:
  key_set<Key> set_;
  index_permutation permutation_;
  std::uint64_t stride_;
};

template <class Key>
struct set_key_element {
  key_set_view<Key> view;
  Key* out;
  WARPDEX_HOST_DEVICE void operator()(std::uint64_t i) const { out[i] = view.key(i); }
};

template <class Key>
struct duplicate_key_element {
  key_set_view<Key> distinct;  // set of `distinct_count` keys
  index_permutation position;  // over [0, n)
  std::uint64_t distinct_count;
  std::uint64_t seed;
  Key* out;
  WARPDEX_HOST_DEVICE void operator()(std::uint64_t i) const
  {
    const std::uint64_t p = position(i);
    const std::uint64_t rank = p < distinct_count ? p : random_word(seed, 0xd0b1, p) % distinct_count;
    out[i] = distinct.key(rank);
  }
};

template <class Key>
struct zipf_key_element {
  key_set_view<Key> pool;
  std::uint64_t pool_size;
  double exponent;
  std::uint64_t seed;
  Key* out;
  WARPDEX_HOST_DEVICE void operator()(std::uint64_t i) const
  {
    // Inverse CDF of the continuous density ~ x^-s on [1, N + 1): rank = floor(x).
    const double u = random_unit(seed, 0x21bf, i);
    const double n_plus_one = static_cast<double>(pool_size) + 1.0;
    double x;
    if (::fabs(exponent - 1.0) < 1e-9) {
      x = ::exp(u * ::log(n_plus_one));
    } else {
      const double one_minus_s = 1.0 - exponent;
      x = ::pow(1.0 + u * (::pow(n_plus_one, one_minus_s) - 1.0), 1.0 / one_minus_s);
    }
    std::uint64_t rank = static_cast<std::uint64_t>(x);
    rank = rank < 1 ? 1 : (rank > pool_size ? pool_size : rank);
    out[i] = pool.key(rank - 1);
  }
};

template <class Key>
struct query_element {
  key_set_view<Key> set;
  index_permutation position;  // over [0, query count)
  std::uint64_t absent_count;
  std::uint64_t set_size;
  std::uint64_t seed;
  Key* out;
  WARPDEX_HOST_DEVICE void operator()(std::uint64_t i) const
  {
    const std::uint64_t r = random_word(seed, 0x9e7, i);
    out[i] = position(i) < absent_count ? set.absent_key(r) : set.key(r % set_size);
  }
};

}  // namespace warpdex::detail
