// A set of fixed strings matched on the GPU line by line (pattern_set.hpp).
//
// The scan gives each thread 64-byte segments (grid-stride, so that each block loads the filter once). A
// thread slides an 8-byte window over its segment; at each position not yet in a line it has found an
// occurrence in, it looks the window's first L bytes up for each class L present. An occurrence that
// selects its line (any, or with -w / -x one whose neighbouring bytes allow it) marks its position in the
// segment's 64-bit mask and the thread skips to the line's end. A segment's first mark
// opens a line unless a mark before it lies in the same line: it looks back to the newline or the mark,
// whichever is nearer, so the bytes looked at add up to at most the text.
#include "pattern_set.hpp"

#include <warpdex/core/cuda_check.hpp>
#include <warpdex/core/detail/thrust_backend.hpp>
#include <warpdex/core/error.hpp>
#include <warpdex/core/hash.hpp>

#include <thrust/scan.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace warpdex::detail {
namespace {

constexpr int set_threads_per_block = 256;
constexpr int filter_words = 1 << 13;  // 2^18 bits
constexpr std::uint64_t segment_bytes = 64;

// A window's key and length, mixed: windows of different lengths with equal bytes hash apart.
__host__ __device__ inline std::uint64_t set_hash(std::uint64_t key, std::uint32_t length)
{
  return fmix64(key ^ (std::uint64_t{length} * 0x9E3779B97F4A7C15ULL));
}

__host__ __device__ inline std::uint64_t key_mask(std::uint32_t length)
{
  return length >= 8 ? ~std::uint64_t{0} : (std::uint64_t{1} << (8 * length)) - 1;
}

__host__ __device__ inline std::uint8_t fold_byte(std::uint8_t c)
{
  return c >= 'A' && c <= 'Z' ? static_cast<std::uint8_t>(c + ('a' - 'A')) : c;
}

struct set_view {
  const std::uint8_t* text;
  std::uint64_t size;
  const std::uint64_t* table;
  std::uint64_t table_mask;
  const std::uint32_t* filter;
  const std::uint8_t* bytes;
  const std::uint32_t* offsets;
  std::uint32_t classes;
  bool fold;
  set_occurrences occurrences;
  std::uint64_t* masks;
  std::uint64_t segments;
};

/// The 8 text bytes from q on (q a multiple of 8), little-endian, 0 past the text's end, folded with -i.
__device__ std::uint64_t load_word(const set_view& v, std::uint64_t q)
{
  std::uint64_t word = 0;
  if (q + 8 <= v.size && (reinterpret_cast<std::uintptr_t>(v.text + q) % 8) == 0) {
    word = __ldg(reinterpret_cast<const unsigned long long*>(v.text + q));
    if (v.fold) {
      std::uint64_t folded = 0;
#pragma unroll
      for (int b = 0; b < 8; ++b) {
        folded |= std::uint64_t{fold_byte(static_cast<std::uint8_t>(word >> (8 * b)))} << (8 * b);
      }
      word = folded;
    }
    return word;
  }
  for (int b = 0; b < 8; ++b) {
    if (q + b < v.size) {
      const std::uint8_t c = __ldg(v.text + q + b);
      word |= std::uint64_t{v.fold ? fold_byte(c) : c} << (8 * b);
    }
  }
  return word;
}

__device__ inline bool is_word_byte(std::uint8_t c)
{
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

/// Whether the occurrence text[p, p + m) selects its line: always, or with -x when it spans the line, with
/// -w when no word byte touches it. The text holds whole lines, so its start and end bound lines.
__device__ bool selects_line(const set_view& v, std::uint64_t p, std::uint64_t m)
{
  if (v.occurrences == set_occurrences::any) { return true; }
  const std::uint8_t before = p == 0 ? '\n' : __ldg(v.text + p - 1);
  const std::uint8_t after = p + m == v.size ? '\n' : __ldg(v.text + p + m);
  if (v.occurrences == set_occurrences::whole_lines) { return before == '\n' && after == '\n'; }
  return !is_word_byte(before) && !is_word_byte(after);
}

/// The length of class-8 pattern k when it occurs at p (its first 8 bytes already matched by the window's
/// key; the rest compared here, folded with -i), 0 when it does not.
__device__ std::uint32_t long_pattern_at(const set_view& v, std::uint64_t p, std::uint32_t k)
{
  const std::uint32_t begin = __ldg(v.offsets + k);
  const std::uint32_t m = __ldg(v.offsets + k + 1) - begin;
  if (p + m > v.size) { return 0; }
  for (std::uint32_t i = 8; i < m; ++i) {
    const std::uint8_t c = __ldg(v.text + p + i);
    if ((v.fold ? fold_byte(c) : c) != __ldg(v.bytes + begin + i)) { return 0; }
  }
  return m;
}

/// Whether some pattern occurs at p and selects its line (selects_line), where `window` holds text[p, p + 8)
/// (folded with -i).
__device__ bool set_matches_at(const set_view& v, const std::uint32_t* filter, std::uint64_t p, std::uint64_t window)
{
  std::uint32_t classes = v.classes;
  while (classes != 0) {
    const auto length = static_cast<std::uint32_t>(__ffs(static_cast<int>(classes)));
    classes &= classes - 1;
    if (p + length > v.size) { return false; }
    const std::uint64_t key = window & key_mask(length);
    const std::uint64_t h = set_hash(key, length);
    if (((filter[h >> 51] >> ((h >> 46) & 31)) & 1) == 0) { continue; }
    std::uint64_t slot = h & v.table_mask;
    while (true) {
      const std::uint64_t info = __ldg(reinterpret_cast<const unsigned long long*>(v.table + 2 * slot + 1));
      if (info == 0) { break; }
      if ((info >> 56) == length && __ldg(reinterpret_cast<const unsigned long long*>(v.table + 2 * slot)) == key) {
        if (length < 8) {
          if (selects_line(v, p, length)) { return true; }
          break;
        }
        const auto first = static_cast<std::uint32_t>(info);
        const auto count = static_cast<std::uint32_t>((info >> 32) & 0xFFFFFF);
        for (std::uint32_t k = first; k < first + count; ++k) {
          const std::uint32_t m = long_pattern_at(v, p, k);
          if (m != 0 && selects_line(v, p, m)) { return true; }
        }
        break;
      }
      slot = (slot + 1) & v.table_mask;
    }
  }
  return false;
}

/// The length of the longest pattern that occurs at p and selects its line (selects_line), 0 if none, where
/// `window` holds text[p, p + 8) (folded with -i). The filter is read from global memory (L1-cached).
__device__ std::uint32_t longest_at(const set_view& v, std::uint64_t p, std::uint64_t window)
{
  for (std::uint32_t length = 8; length >= 1; --length) {  // class 8 (8 bytes or more) first
    if (((v.classes >> (length - 1)) & 1) == 0 || p + length > v.size) { continue; }
    const std::uint64_t key = window & key_mask(length);
    const std::uint64_t h = set_hash(key, length);
    if (((__ldg(v.filter + (h >> 51)) >> ((h >> 46) & 31)) & 1) == 0) { continue; }
    std::uint32_t longest = 0;
    for (std::uint64_t slot = h & v.table_mask;; slot = (slot + 1) & v.table_mask) {
      const std::uint64_t info = __ldg(reinterpret_cast<const unsigned long long*>(v.table + 2 * slot + 1));
      if (info == 0) { break; }
      if ((info >> 56) != length || __ldg(reinterpret_cast<const unsigned long long*>(v.table + 2 * slot)) != key) {
        continue;
      }
      if (length < 8) {
        if (selects_line(v, p, length)) { longest = length; }
        break;
      }
      const auto first = static_cast<std::uint32_t>(info);
      const auto count = static_cast<std::uint32_t>((info >> 32) & 0xFFFFFF);
      for (std::uint32_t k = first; k < first + count; ++k) {
        const std::uint32_t m = long_pattern_at(v, p, k);
        if (m > longest && selects_line(v, p, m)) { longest = m; }
      }
      break;
    }
    if (longest != 0) { return longest; }
  }
  return 0;
}

/// grep -o's matches of each line, one thread a line: counted (`Write` false, into counts[i]) or written from
/// offsets[i] on. Leftmost first, the longest there, then on from its end (matches never span a newline).
template <bool Write>
__global__ void set_occurrences_kernel(set_view v, const line_span* lines, std::uint64_t line_count,
                                       std::uint64_t* counts, const std::uint64_t* offsets, line_span* found)
{
  const std::uint64_t stride = std::uint64_t{gridDim.x} * blockDim.x;
  for (std::uint64_t i = std::uint64_t{blockIdx.x} * blockDim.x + threadIdx.x; i < line_count; i += stride) {
    const line_span line = lines[i];
    std::uint64_t n = 0;
    for (std::uint64_t p = line.begin; p < line.end;) {
      const std::uint64_t q = p / 8 * 8;
      const std::uint64_t shift = 8 * (p - q);
      const std::uint64_t low = load_word(v, q);
      const std::uint64_t window = shift == 0 ? low : (low >> shift) | (load_word(v, q + 8) << (64 - shift));
      const std::uint32_t m = longest_at(v, p, window);
      if (m == 0) {
        ++p;
        continue;
      }
      if constexpr (Write) { found[offsets[i] + n] = {p, p + m}; }
      ++n;
      p += m;
    }
    if constexpr (!Write) { counts[i] = n; }
  }
}

__global__ void __launch_bounds__(set_threads_per_block) set_scan_kernel(set_view v)
{
  __shared__ std::uint32_t filter[filter_words];
  for (int i = static_cast<int>(threadIdx.x); i < filter_words; i += set_threads_per_block) { filter[i] = v.filter[i]; }
  __syncthreads();
  const std::uint64_t stride = std::uint64_t{gridDim.x} * set_threads_per_block;
  for (std::uint64_t segment = std::uint64_t{blockIdx.x} * set_threads_per_block + threadIdx.x; segment < v.segments;
       segment += stride) {
    const std::uint64_t start = segment * segment_bytes;
    const std::uint64_t end = std::min(start + segment_bytes, v.size);
    std::uint64_t current = load_word(v, start);
    std::uint64_t next = load_word(v, start + 8);
    std::uint64_t bits = 0;
    bool in_found_line = false;
    for (std::uint64_t base = start; base < end; base += 8) {
      for (int b = 0; b < 8 && base + b < end; ++b) {
        const std::uint64_t window = b == 0 ? current : (current >> (8 * b)) | (next << (64 - 8 * b));
        if (static_cast<std::uint8_t>(window) == '\n') {
          in_found_line = false;
        } else if (!in_found_line && set_matches_at(v, filter, base + b, window)) {
          bits |= std::uint64_t{1} << (base + b - start);
          in_found_line = true;
        }
      }
      current = next;
      next = load_word(v, base + 16);
    }
    v.masks[segment] = bits;
  }
}

/// Whether the mark at p opens its line: a newline comes before an earlier mark, looking back.
__device__ bool opens_line(const std::uint8_t* text, const std::uint64_t* masks, std::uint64_t p)
{
  while (p > 0) {
    --p;
    if (text[p] == '\n') { return true; }
    if ((masks[p / segment_bytes] >> (p % segment_bytes)) & 1) { return false; }
  }
  return true;
}

__global__ void set_open_kernel(const std::uint8_t* text, const std::uint64_t* masks, std::uint64_t segments,
                                std::uint32_t* opened, unsigned long long* total)
{
  const std::uint64_t stride = std::uint64_t{gridDim.x} * blockDim.x;
  unsigned long long sum = 0;
  for (std::uint64_t segment = std::uint64_t{blockIdx.x} * blockDim.x + threadIdx.x; segment < segments;
       segment += stride) {
    const std::uint64_t bits = masks[segment];
    std::uint32_t count = 0;
    if (bits != 0) {
      const std::uint64_t first =
          segment * segment_bytes + static_cast<std::uint64_t>(__ffsll(static_cast<long long>(bits)) - 1);
      count = static_cast<std::uint32_t>(__popcll(bits)) - (opens_line(text, masks, first) ? 0U : 1U);
    }
    if (opened != nullptr) { opened[segment] = count; }
    sum += count;
  }
  for (int offset = 16; offset > 0; offset /= 2) { sum += __shfl_down_sync(0xFFFFFFFFU, sum, offset); }
  if ((threadIdx.x % 32) == 0 && sum != 0) { atomicAdd(total, sum); }
}

__global__ void set_lines_kernel(const std::uint8_t* text, std::uint64_t size, const std::uint64_t* masks,
                                 std::uint64_t segments, const std::uint64_t* offsets, line_span* lines)
{
  const std::uint64_t stride = std::uint64_t{gridDim.x} * blockDim.x;
  for (std::uint64_t segment = std::uint64_t{blockIdx.x} * blockDim.x + threadIdx.x; segment < segments;
       segment += stride) {
    std::uint64_t bits = masks[segment];
    if (bits == 0) { continue; }
    std::uint64_t out = offsets[segment];
    bool first = true;
    while (bits != 0) {
      const std::uint64_t p =
          segment * segment_bytes + static_cast<std::uint64_t>(__ffsll(static_cast<long long>(bits)) - 1);
      bits &= bits - 1;
      if (first) {
        first = false;
        if (!opens_line(text, masks, p)) { continue; }
      }
      std::uint64_t begin = p;
      while (begin > 0 && text[begin - 1] != '\n') { --begin; }
      std::uint64_t end = p;
      while (end < size && text[end] != '\n') { ++end; }
      lines[out++] = {begin, end};
    }
  }
}

int grid_blocks(int per_sm)
{
  int device = 0;
  int sms = 0;
  WARPDEX_CUDA_TRY(cudaGetDevice(&device));
  WARPDEX_CUDA_TRY(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  return std::max(1, sms * per_sm);
}

std::uint64_t load_key(const std::string& pattern, std::uint32_t length)
{
  std::uint64_t key = 0;
  for (std::uint32_t b = 0; b < length; ++b) { key |= std::uint64_t{static_cast<std::uint8_t>(pattern[b])} << (8 * b); }
  return key;
}

template <class T>
buffer<T> to_device(const cuda& backend, const std::vector<T>& values)
{
  buffer<T> device = make_device_buffer<T>(std::max<std::size_t>(values.size(), 1), backend.stream);
  if (!values.empty()) {
    WARPDEX_CUDA_TRY(cudaMemcpyAsync(device.data(), values.data(), values.size() * sizeof(T), cudaMemcpyHostToDevice,
                                     backend.stream));
  }
  return device;
}

}  // namespace

device_pattern_set::device_pattern_set(const cuda& backend, std::span<const std::string> patterns, bool ignore_case,
                                       set_occurrences occurrences)
    : backend_(backend), fold_(ignore_case), occurrences_(occurrences)
{
  std::vector<std::string> unique(patterns.begin(), patterns.end());
  std::sort(unique.begin(), unique.end());
  unique.erase(std::unique(unique.begin(), unique.end()), unique.end());
  for (const std::string& pattern : unique) {
    WARPDEX_EXPECTS(!pattern.empty() && pattern.find('\n') == std::string::npos,
                    "device_pattern_set: a pattern is empty or holds a newline");
  }
  // Class-8 patterns sorted by their first 8 bytes (as sorted strings are), grouped into one entry a key.
  struct entry {
    std::uint64_t key;
    std::uint64_t info;
  };
  std::vector<entry> entries;
  std::vector<std::uint8_t> bytes;
  std::vector<std::uint32_t> offsets;
  for (std::size_t i = 0; i < unique.size(); ++i) {
    const std::string& pattern = unique[i];
    const auto length = static_cast<std::uint32_t>(std::min<std::size_t>(pattern.size(), 8));
    classes_ |= 1U << (length - 1);
    const std::uint64_t key = load_key(pattern, length);
    if (length < 8) {
      entries.push_back({key, std::uint64_t{length} << 56 | std::uint64_t{1} << 32});
      continue;
    }
    const auto index = static_cast<std::uint32_t>(offsets.size());
    offsets.push_back(static_cast<std::uint32_t>(bytes.size()));
    bytes.insert(bytes.end(), pattern.begin(), pattern.end());
    const bool same_key =
        index > 0 && !entries.empty() && (entries.back().info >> 56) == 8 && entries.back().key == key;
    if (same_key) {
      WARPDEX_EXPECTS(((entries.back().info >> 32) & 0xFFFFFF) < 0xFFFFFF,
                      "device_pattern_set: too many patterns share 8 bytes");
      entries.back().info += std::uint64_t{1} << 32;
    } else {
      entries.push_back({key, std::uint64_t{8} << 56 | std::uint64_t{1} << 32 | index});
    }
  }
  WARPDEX_EXPECTS(bytes.size() < (std::uint64_t{1} << 32), "device_pattern_set: the patterns exceed 4 GiB");
  offsets.push_back(static_cast<std::uint32_t>(bytes.size()));

  std::uint64_t slots = 16;
  while (slots < 2 * entries.size()) { slots *= 2; }
  table_mask_ = slots - 1;
  std::vector<std::uint64_t> table(2 * slots, 0);
  std::vector<std::uint32_t> filter(filter_words, 0);
  for (const entry& e : entries) {
    const std::uint64_t h = set_hash(e.key, static_cast<std::uint32_t>(e.info >> 56));
    filter[h >> 51] |= 1U << ((h >> 46) & 31);
    std::uint64_t slot = h & table_mask_;
    while (table[2 * slot + 1] != 0) { slot = (slot + 1) & table_mask_; }
    table[2 * slot] = e.key;
    table[2 * slot + 1] = e.info;
  }
  table_ = to_device(backend_, table);
  filter_ = to_device(backend_, filter);
  bytes_ = to_device(backend_, bytes);
  offsets_ = to_device(backend_, offsets);
  total_ = make_device_buffer<unsigned long long>(1, backend_.stream);
  backend_.synchronize();
}

void device_pattern_set::scan(std::span<const std::uint8_t> text)
{
  const std::uint64_t segments = (text.size() + segment_bytes - 1) / segment_bytes;
  if (masks_.size() < segments) {
    backend_.synchronize();
    masks_ = make_device_buffer<std::uint64_t>(segments, backend_.stream);
    opened_ = make_device_buffer<std::uint32_t>(segments, backend_.stream);
  }
  const set_view view{text.data(),     text.size(), table_.data(), table_mask_,   filter_.data(), bytes_.data(),
                      offsets_.data(), classes_,    fold_,         occurrences_,  masks_.data(), segments};
  static const int scan_blocks = grid_blocks(4);
  static const int open_blocks = grid_blocks(8);
  const auto blocks = static_cast<int>(
      std::min<std::uint64_t>(scan_blocks, (segments + set_threads_per_block - 1) / set_threads_per_block));
  set_scan_kernel<<<blocks, set_threads_per_block, 0, backend_.stream>>>(view);
  WARPDEX_CUDA_TRY(cudaGetLastError());
  WARPDEX_CUDA_TRY(cudaMemsetAsync(total_.data(), 0, sizeof(unsigned long long), backend_.stream));
  const auto open_grid = static_cast<int>(std::min<std::uint64_t>(open_blocks, (segments + 255) / 256));
  set_open_kernel<<<open_grid, 256, 0, backend_.stream>>>(text.data(), masks_.data(), segments, opened_.data(),
                                                          total_.data());
  WARPDEX_CUDA_TRY(cudaGetLastError());
}

std::uint64_t device_pattern_set::count_lines(std::span<const std::uint8_t> text)
{
  if (text.empty()) { return 0; }
  scan(text);
  unsigned long long total = 0;
  WARPDEX_CUDA_TRY(cudaMemcpyAsync(&total, total_.data(), sizeof total, cudaMemcpyDeviceToHost, backend_.stream));
  backend_.synchronize();
  return total;
}

buffer<line_span> device_pattern_set::find_lines(std::span<const std::uint8_t> text)
{
  if (text.empty()) { return make_device_buffer<line_span>(0, backend_.stream); }
  const std::uint64_t segments = (text.size() + segment_bytes - 1) / segment_bytes;
  const std::uint64_t count = count_lines(text);
  buffer<line_span> lines = make_device_buffer<line_span>(count, backend_.stream);
  if (count == 0) { return lines; }
  buffer<std::uint64_t> offsets = make_device_buffer<std::uint64_t>(segments, backend_.stream);
  thrust::exclusive_scan(policy_nosync(backend_), opened_.data(), opened_.data() + segments, offsets.data(),
                         std::uint64_t{0});
  const auto grid = static_cast<int>(std::min<std::uint64_t>(grid_blocks(8), (segments + 255) / 256));
  set_lines_kernel<<<grid, 256, 0, backend_.stream>>>(text.data(), text.size(), masks_.data(), segments, offsets.data(),
                                                      lines.data());
  WARPDEX_CUDA_TRY(cudaGetLastError());
  backend_.synchronize();
  return lines;
}

buffer<line_span> device_pattern_set::find_occurrences(std::span<const std::uint8_t> text, std::uint64_t& line_total)
{
  WARPDEX_EXPECTS(occurrences_ != set_occurrences::whole_lines, "device_pattern_set: -o with -x is not found here");
  buffer<line_span> lines = find_lines(text);
  line_total = lines.size();
  if (lines.empty()) { return lines; }
  const set_view view{text.data(),     text.size(), table_.data(), table_mask_,   filter_.data(), bytes_.data(),
                      offsets_.data(), classes_,    fold_,         occurrences_,  nullptr,        0};
  const std::uint64_t count = lines.size();
  // counts[i] the matches of line i, counts[count] 0: scanned in place into where each line's begin.
  buffer<std::uint64_t> counts = make_device_buffer<std::uint64_t>(count + 1, backend_.stream);
  WARPDEX_CUDA_TRY(cudaMemsetAsync(counts.data() + count, 0, sizeof(std::uint64_t), backend_.stream));
  const auto grid = static_cast<int>(std::min<std::uint64_t>(grid_blocks(8), (count + 255) / 256));
  set_occurrences_kernel<false><<<grid, 256, 0, backend_.stream>>>(view, lines.data(), count, counts.data(), nullptr,
                                                                   nullptr);
  WARPDEX_CUDA_TRY(cudaGetLastError());
  thrust::exclusive_scan(policy_nosync(backend_), counts.data(), counts.data() + count + 1, counts.data(),
                         std::uint64_t{0});
  std::uint64_t total = 0;
  WARPDEX_CUDA_TRY(
      cudaMemcpyAsync(&total, counts.data() + count, sizeof total, cudaMemcpyDeviceToHost, backend_.stream));
  backend_.synchronize();
  buffer<line_span> found = make_device_buffer<line_span>(total, backend_.stream);
  if (total != 0) {
    set_occurrences_kernel<true><<<grid, 256, 0, backend_.stream>>>(view, lines.data(), count, nullptr, counts.data(),
                                                                     found.data());
    WARPDEX_CUDA_TRY(cudaGetLastError());
  }
  backend_.synchronize();
  return found;
}

}  // namespace warpdex::detail
