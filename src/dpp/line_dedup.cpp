// The line count's stream, the same for both backends: a reader thread filling blocks, the lines that
// block boundaries cut, and the table of distinct lines that every block's groups are merged into.
#include "line_dedup_stream.hpp"

#include <warpdex/core/error.hpp>
#include <warpdex/core/hash.hpp>

#include <array>
#include <condition_variable>
#include <cstring>
#include <exception>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>

namespace warpdex::dpp::detail {
namespace {

/// Fills two blocks in turn on its own thread while the caller groups the other one. A block is filled
/// to the full (a pipe hands out less per read), so only the last one is short.
class block_reader {
 public:
  block_reader(const line_source& read, std::array<buffer<char>, 2>& blocks)
      : read_(read), blocks_(blocks), thread_([this] { fill_blocks(); })
  {
  }
  block_reader(const block_reader&) = delete;
  block_reader& operator=(const block_reader&) = delete;
  ~block_reader()
  {
    {
      const std::lock_guard lock(mutex_);
      stopping_ = true;
    }
    changed_.notify_all();
    thread_.join();
  }

  /// The next block's bytes (empty at the end of the input); the block returned before goes back to the
  /// reader. Rethrows what the source threw.
  std::span<const char> next()
  {
    std::unique_lock lock(mutex_);
    if (taken_ > 0) {
      filled_[(taken_ - 1) % 2] = false;
      changed_.notify_all();
    }
    const std::size_t slot = taken_ % 2;
    changed_.wait(lock, [&] { return filled_[slot]; });
    ++taken_;
    if (failure_ != nullptr && sizes_[slot] == 0) { std::rethrow_exception(failure_); }
    return {blocks_[slot].data(), sizes_[slot]};
  }

 private:
  void fill_blocks()
  {
    for (std::size_t k = 0;; ++k) {
      const std::size_t slot = k % 2;
      {
        std::unique_lock lock(mutex_);
        changed_.wait(lock, [&] { return stopping_ || !filled_[slot]; });
        if (stopping_) { return; }
      }
      std::size_t size = 0;
      std::exception_ptr failure;
      try {
        const std::span<char> block = blocks_[slot].span();
        for (std::size_t got = 1; size < block.size() && got > 0;) {
          got = read_(block.subspan(size));
          size += got;
        }
      } catch (...) {
        failure = std::current_exception();
        size = 0;
      }
      const bool last = size < blocks_[slot].size();
      {
        const std::lock_guard lock(mutex_);
        sizes_[slot] = size;
        filled_[slot] = true;
        failure_ = failure;
      }
      changed_.notify_all();
      if (last && size == 0) { return; }  // the end (or a failure) is an empty block
    }
  }

  const line_source& read_;
  std::array<buffer<char>, 2>& blocks_;
  std::mutex mutex_;
  std::condition_variable changed_;
  std::array<bool, 2> filled_{};
  std::array<std::size_t, 2> sizes_{};
  std::exception_ptr failure_;
  std::size_t taken_ = 0;  ///< blocks handed to the caller
  bool stopping_ = false;
  std::thread thread_;  // last: it starts reading once everything above exists
};

/// The distinct lines so far, in order of first occurrence, found again through an open-addressing table
/// by hash (host_line_hash & the mask) and compared byte by byte: 8 bytes a distinct line for its hash
/// and 8 to 16 for its slot, besides its bytes, offset and count.
class distinct_lines {
 public:
  explicit distinct_lines(std::uint64_t hash_mask) : hash_mask_(hash_mask), slots_(initial_slots, empty)
  {
    result_.offsets.push_back(0);
  }

  void add(std::string_view line, std::uint64_t count)
  {
    const std::uint64_t hash = host_line_hash(line.data(), line.size()) & hash_mask_;
    result_.lines += count;
    const std::uint64_t last_slot = slots_.size() - 1;
    bool shares_hash = false;
    std::uint64_t s = fmix64(hash) & last_slot;
    for (; slots_[s] != empty; s = (s + 1) & last_slot) {
      const std::uint64_t g = slots_[s];
      if (hashes_[g] != hash) { continue; }
      if (result_.line(g) == line) {
        result_.counts[g] += count;
        return;
      }
      // Distinct lines sharing their hash: each counted once, the first the first time another joins it.
      if (shared_[g] == 0) {
        shared_[g] = 1;
        ++result_.shared_hash_lines;
      }
      shares_hash = true;
    }
    slots_[s] = hashes_.size();
    hashes_.push_back(hash);
    shared_.push_back(shares_hash ? 1 : 0);
    result_.shared_hash_lines += shares_hash ? 1 : 0;
    result_.bytes.insert(result_.bytes.end(), line.begin(), line.end());
    result_.offsets.push_back(result_.bytes.size());
    result_.counts.push_back(count);
    if (hashes_.size() * 2 > slots_.size()) { grow(); }
  }

  /// The lines, all of them or those occurring once.
  line_counts take(bool only_once)
  {
    if (!only_once) { return std::move(result_); }
    line_counts once;
    once.lines = result_.lines;
    once.offsets.push_back(0);
    for (std::size_t g = 0; g < result_.size(); ++g) {
      if (result_.counts[g] != 1) { continue; }
      const std::string_view line = result_.line(g);
      once.bytes.insert(once.bytes.end(), line.begin(), line.end());
      once.offsets.push_back(once.bytes.size());
      once.counts.push_back(1);
    }
    once.shared_hash_lines = result_.shared_hash_lines;
    return once;
  }

 private:
  void grow()
  {
    slots_.assign(slots_.size() * 2, empty);
    const std::uint64_t last_slot = slots_.size() - 1;
    for (std::uint64_t g = 0; g < hashes_.size(); ++g) {
      std::uint64_t s = fmix64(hashes_[g]) & last_slot;
      while (slots_[s] != empty) { s = (s + 1) & last_slot; }
      slots_[s] = g;
    }
  }

  static constexpr std::uint64_t empty = ~std::uint64_t{0};
  static constexpr std::size_t initial_slots = 1024;  ///< a power of two; doubled past half full
  std::uint64_t hash_mask_;
  line_counts result_;
  std::vector<std::uint64_t> slots_;   ///< the distinct line of each slot, or empty
  std::vector<std::uint64_t> hashes_;  ///< each distinct line's hash
  std::vector<std::uint8_t> shared_;   ///< whether another distinct line has its hash
};

/// The line count over `read`, grouping each block with `grouper`.
line_counts count_lines_with(line_grouper& grouper, const line_source& read, const line_dedup_options& options)
{
  const std::uint64_t chunk_bytes = options.chunk_bytes != 0 ? options.chunk_bytes : grouper.default_chunk_bytes();
  WARPDEX_EXPECTS(chunk_bytes <= max_line_chunk_bytes, "count_lines: a chunk of " + std::to_string(chunk_bytes) +
                                                           " bytes is more than the largest, " +
                                                           std::to_string(max_line_chunk_bytes));
  std::array<buffer<char>, 2> blocks{grouper.allocate_block(chunk_bytes), grouper.allocate_block(chunk_bytes)};
  distinct_lines table(options.hash_mask);
  std::string cut;  // the start of a line that the last block's end cut
  std::vector<line_group> groups;
  block_reader reader(read, blocks);
  for (std::span<const char> block = reader.next(); !block.empty(); block = reader.next()) {
    const auto* first_newline = static_cast<const char*>(std::memchr(block.data(), '\n', block.size()));
    if (first_newline == nullptr) {  // a line longer than a block goes on
      cut.append(block.data(), block.size());
      continue;
    }
    std::size_t start = 0;  // where the block's first whole line starts
    if (!cut.empty()) {
      start = static_cast<std::size_t>(first_newline - block.data()) + 1;
      cut.append(block.data(), start - 1);
      if (cut.back() == '\r') { cut.pop_back(); }
      table.add(cut, 1);
      cut.clear();
    }
    const auto* last_newline = static_cast<const char*>(memrchr(block.data(), '\n', block.size()));
    const std::size_t end = static_cast<std::size_t>(last_newline - block.data()) + 1;
    if (end > start) {
      const std::span<const char> lines = block.subspan(start, end - start);
      grouper.group(lines, options.hash_mask, groups);
      for (const line_group& group : groups) {
        table.add(std::string_view(lines.data() + group.offset, group.length), group.count);
      }
    }
    cut.assign(block.data() + end, block.size() - end);
  }
  if (!cut.empty()) { table.add(cut, 1); }  // the last line, without '\n': kept as it is
  return table.take(options.only_once);
}

}  // namespace
}  // namespace warpdex::dpp::detail

namespace warpdex::dpp {

template <class Backend>
line_counts count_lines(const Backend& backend, const line_source& read, const line_dedup_options& options)
{
  const auto grouper = detail::make_line_grouper(backend);
  return detail::count_lines_with(*grouper, read, options);
}

template line_counts count_lines<host>(const host&, const line_source&, const line_dedup_options&);
#if WARPDEX_HAS_CUDA
template line_counts count_lines<cuda>(const cuda&, const line_source&, const line_dedup_options&);
#endif

}  // namespace warpdex::dpp
