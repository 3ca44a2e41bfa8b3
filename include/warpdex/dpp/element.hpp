#pragma once
/// @file The element types of the dpp family's duplicate search: 32- and 64-bit unsigned integers and
/// small tuples of 32-bit unsigned integers (a triangle face as its three sorted point ids, an edge as
/// two), with the order and the FNV-1a hash the algorithms use.

#include <warpdex/core/config.hpp>
#include <warpdex/core/hash.hpp>

#include <cstddef>
#include <cstdint>
#include <type_traits>

namespace warpdex::dpp {

/// A tuple of `Arity` 32-bit words, compared lexicographically (word 0 first). Equal tuples are equal
/// words in equal order: callers that mean an unordered set of ids (a face) sort the words first.
template <std::size_t Arity>
struct uint32_tuple {
  static_assert(Arity >= 2 && Arity <= 4, "uint32_tuple holds 2 to 4 words");
  std::uint32_t word[Arity];

  friend WARPDEX_HOST_DEVICE constexpr bool operator==(const uint32_tuple& a, const uint32_tuple& b)
  {
    for (std::size_t i = 0; i < Arity; ++i) {
      if (a.word[i] != b.word[i]) { return false; }
    }
    return true;
  }
  friend WARPDEX_HOST_DEVICE constexpr bool operator!=(const uint32_tuple& a, const uint32_tuple& b)
  {
    return !(a == b);
  }
  friend WARPDEX_HOST_DEVICE constexpr bool operator<(const uint32_tuple& a, const uint32_tuple& b)
  {
    for (std::size_t i = 0; i < Arity; ++i) {
      if (a.word[i] != b.word[i]) { return a.word[i] < b.word[i]; }
    }
    return false;
  }
};

using uint32x2 = uint32_tuple<2>;  ///< e.g. an edge (two vertex ids)
using uint32x3 = uint32_tuple<3>;  ///< e.g. a triangle face (three point ids)
using uint32x4 = uint32_tuple<4>;  ///< e.g. a tetrahedron (four point ids)

/// The element types the duplicate search is instantiated for.
template <class Element>
inline constexpr bool is_dpp_element_v =
    std::is_same_v<Element, std::uint32_t> || std::is_same_v<Element, std::uint64_t> ||
    std::is_same_v<Element, uint32x2> || std::is_same_v<Element, uint32x3> || std::is_same_v<Element, uint32x4>;

/// 32-bit FNV-1a of an element's little-endian bytes, word by word, starting from `basis` (the reference
/// offset basis by default; hash fighting's later rounds pass other bases, see duplicates.hpp). Equal to
/// `fnv1a_32_tuple` of the element's words for the reference basis.
template <class Element>
WARPDEX_HOST_DEVICE constexpr std::uint32_t element_fnv1a(const Element& element,
                                                          std::uint32_t basis = fnv1a_32_offset_basis)
{
  std::uint32_t state = basis;
  const auto mix_word = [&state](auto word) {
    for (std::size_t byte = 0; byte < sizeof(word); ++byte) {
      state ^= static_cast<std::uint32_t>(word & 0xffU);
      state *= fnv1a_32_prime;
      word = static_cast<decltype(word)>(word >> 8);
    }
  };
  if constexpr (std::is_integral_v<Element>) {
    mix_word(element);
  } else {
    for (std::uint32_t word : element.word) { mix_word(word); }
  }
  return state;
}

}  // namespace warpdex::dpp
