// The streaming fixed-string grep: a reader thread fills a ring of chunks overlapping by m - 1 bytes,
// each chunk is searched on the backend (copied to the GPU while the previous one is searched), and the
// host walks the lines of each chunk alongside the sorted match positions.
#include <warpdex/core/buffer.hpp>
#include <warpdex/core/error.hpp>
#include <warpdex/search/grep.hpp>
#include <warpdex/search/string_match.hpp>

#if WARPDEX_HAS_CUDA
#include <warpdex/core/cuda_check.hpp>
#endif

#include <algorithm>
#include <array>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <exception>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <thread>
#include <type_traits>
#include <vector>

namespace warpdex {
namespace {

/// The per-input state of the line walk, carried from chunk to chunk.
class line_printer {
 public:
  line_printer(std::string_view name, const grep_options& options, std::FILE* output)
      : name_(name), options_(options), output_(output)
  {
  }

  /// Whether a NUL byte in the next chunk would make the input binary (only until the first match).
  [[nodiscard]] bool needs_nul_check() const
  {
    return !result_.binary && result_.matching_lines == 0 && !line_has_match_;
  }

  /// Walks the lines of `data[0, size)` (input bytes from offset `base` on) given the sorted positions of
  /// the occurrences that start there; `has_nul` says whether the bytes hold a NUL. Jumps from match to
  /// match: the lines in between are only counted (with -n). Returns false once nothing more needs to be
  /// read.
  bool walk(const std::uint8_t* data, std::uint64_t size, std::uint64_t base, const std::vector<std::uint64_t>& starts,
            bool has_nul)
  {
    result_.binary = result_.binary || (has_nul && needs_nul_check());
    std::uint64_t position = 0;  // the first byte not walked yet; the current line began there or earlier
    std::size_t next_match = 0;
    while (true) {
      const std::uint64_t target = next_match < starts.size() ? starts[next_match] - base : size;
      // Lines ending before the next match do not match, except the current one if an earlier chunk matched it.
      if (const auto* first_end =
              static_cast<const std::uint8_t*>(std::memchr(data + position, '\n', target - position))) {
        if (!finish_line(data + position, first_end - (data + position))) { return false; }
        const auto* last_end = static_cast<const std::uint8_t*>(memrchr(first_end, '\n', data + target - first_end));
        if (options_.line_number) { line_number_ += std::count(first_end + 1, last_end + 1, '\n'); }
        position = last_end + 1 - data;
        line_start_ = base + position;
      }
      if (next_match == starts.size()) {
        keep(data + position, size - position);
        return true;
      }
      line_has_match_ = true;
      const auto* line_end = static_cast<const std::uint8_t*>(std::memchr(data + target, '\n', size - target));
      const std::uint64_t end = line_end != nullptr ? static_cast<std::uint64_t>(line_end - data) : size;
      while (next_match < starts.size() && starts[next_match] - base < end) { ++next_match; }
      if (line_end == nullptr) {
        keep(data + position, size - position);
        return true;
      }
      if (!finish_line(data + position, end - position)) { return false; }
      position = end + 1;
      line_start_ = base + position;
    }
  }

  /// Ends the input: a last line without a newline is a line too. Prints the count with -c.
  grep_result finish()
  {
    if (line_bytes_ > 0) { finish_line(nullptr, 0); }
    if (options_.count_only) {
      prefix_name();
      std::fprintf(output_, "%llu\n", static_cast<unsigned long long>(result_.matching_lines));
    }
    return result_;
  }

 private:
  [[nodiscard]] bool keeps_lines() const { return !options_.count_only && !result_.binary; }

  /// Adds the start of a line that continues in the next chunk.
  void keep(const std::uint8_t* bytes, std::uint64_t count)
  {
    if (keeps_lines()) { current_line_.append(reinterpret_cast<const char*>(bytes), count); }
    line_bytes_ += count;
  }

  void prefix_name()
  {
    if (options_.with_filename) {
      std::fwrite(name_.data(), 1, name_.size(), output_);
      std::fputc(':', output_);
    }
  }

  /// Completes the current line, whose last `size` bytes are at `tail`; false when the input is binary
  /// and has matched, which ends the search (its lines are not printed).
  bool finish_line(const std::uint8_t* tail, std::uint64_t size)
  {
    const bool matched = line_has_match_;
    line_has_match_ = false;
    ++line_number_;
    line_bytes_ = 0;
    if (matched) {
      ++result_.matching_lines;
      if (result_.binary && !options_.count_only) { return false; }  // the caller reports the binary match
      if (!options_.count_only) {
        prefix_name();
        if (options_.line_number) { std::fprintf(output_, "%llu:", static_cast<unsigned long long>(line_number_)); }
        if (options_.byte_offset) { std::fprintf(output_, "%llu:", static_cast<unsigned long long>(line_start_)); }
        std::fwrite(current_line_.data(), 1, current_line_.size(), output_);
        if (size > 0) { std::fwrite(tail, 1, size, output_); }
        std::fputc('\n', output_);
      }
    }
    current_line_.clear();
    return true;
  }

  std::string_view name_;
  const grep_options& options_;
  std::FILE* output_;
  grep_result result_;
  std::uint64_t line_number_ = 0;  ///< lines completed so far
  std::uint64_t line_start_ = 0;   ///< input offset of the current line
  std::uint64_t line_bytes_ = 0;   ///< bytes of the current line seen in earlier chunks
  bool line_has_match_ = false;
  std::string current_line_;  ///< the current line's bytes from earlier chunks, when lines are printed
};

using clock_type = std::chrono::steady_clock;

double seconds_since(clock_type::time_point start)
{
  return std::chrono::duration<double>(clock_type::now() - start).count();
}

/// Slot numbers handed between the reader thread and the search; closing the queue wakes every waiter.
class slot_queue {
 public:
  void push(int slot)
  {
    {
      const std::lock_guard lock(mutex_);
      slots_.push_back(slot);
    }
    ready_.notify_one();
  }

  /// The next slot, or nothing once the queue is closed and empty.
  std::optional<int> pop()
  {
    std::unique_lock lock(mutex_);
    ready_.wait(lock, [this] { return closed_ || !slots_.empty(); });
    if (slots_.empty()) { return std::nullopt; }
    const int slot = slots_.front();
    slots_.pop_front();
    return slot;
  }

  void close()
  {
    {
      const std::lock_guard lock(mutex_);
      closed_ = true;
    }
    ready_.notify_all();
  }

 private:
  std::mutex mutex_;
  std::condition_variable ready_;
  std::deque<int> slots_;
  bool closed_ = false;
};

/// One chunk in a host buffer: input bytes [base, base + filled), of which occurrences starting in the
/// first `own` belong to this chunk (the rest are the next chunk's first m - 1 bytes).
struct chunk {
  buffer<std::uint8_t> bytes;
  std::uint64_t base = 0;
  std::uint64_t filled = 0;
  std::uint64_t own = 0;
};

/// A reader thread filling a ring of `grep_pipeline_slots` chunks in input order. The last chunk is the
/// first one not filled completely (it may be empty).
class chunk_reader {
 public:
  chunk_reader(std::FILE* input, std::string_view name, std::uint64_t chunk_bytes, std::uint64_t overlap,
               [[maybe_unused]] bool pinned)
  {
    for (chunk& slot : chunks_) {
#if WARPDEX_HAS_CUDA
      slot.bytes = pinned ? make_pinned_buffer<std::uint8_t>(chunk_bytes + overlap)
                          : make_host_buffer<std::uint8_t>(chunk_bytes + overlap);
#else
      slot.bytes = make_host_buffer<std::uint8_t>(chunk_bytes + overlap);
#endif
    }
    for (int slot = 0; slot < grep_pipeline_slots; ++slot) { free_.push(slot); }
    thread_ = std::thread([this, input, name, chunk_bytes, overlap] { read_all(input, name, chunk_bytes, overlap); });
  }

  chunk_reader(const chunk_reader&) = delete;
  chunk_reader& operator=(const chunk_reader&) = delete;

  /// Stops reading (when the search ends early) and waits for the thread.
  ~chunk_reader()
  {
    free_.close();
    thread_.join();
  }

  /// The next chunk, waiting for it to be read; nullptr after the last one. Rethrows a read error.
  chunk* next()
  {
    const std::optional<int> slot = filled_.pop();
    if (slot) { return &chunks_[*slot]; }
    if (error_) { std::rethrow_exception(error_); }
    return nullptr;
  }

  /// Gives a chunk from `next` back to the reader.
  void release(const chunk& done)
  {
    free_.push(static_cast<int>(&done - chunks_.data()));
  }

  [[nodiscard]] double read_seconds() const
  {
    return static_cast<double>(read_nanoseconds_.load()) * 1e-9;
  }

 private:
  void read_all(std::FILE* input, std::string_view name, std::uint64_t chunk_bytes, std::uint64_t overlap)
  {
    try {
      const std::uint64_t capacity = chunk_bytes + overlap;
      std::vector<std::uint8_t> carry;  // the previous chunk's last m - 1 bytes begin the next one
      std::uint64_t base = 0;
      for (std::optional<int> slot = free_.pop(); slot; slot = free_.pop()) {
        chunk& next = chunks_[*slot];
        std::copy(carry.begin(), carry.end(), next.bytes.data());
        next.base = base;
        next.filled = carry.size();
        const auto start = clock_type::now();
        for (std::size_t got = 1; got > 0 && next.filled < capacity; next.filled += got) {
          got = std::fread(next.bytes.data() + next.filled, 1, capacity - next.filled, input);
        }
        read_nanoseconds_ += std::chrono::duration_cast<std::chrono::nanoseconds>(clock_type::now() - start).count();
        WARPDEX_EXPECTS(!std::ferror(input), "grep: cannot read " + std::string(name) + ": " + std::strerror(errno));
        const bool last = next.filled < capacity;
        next.own = last ? next.filled : chunk_bytes;
        carry.assign(next.bytes.data() + next.own, next.bytes.data() + next.filled);
        base += next.own;
        filled_.push(*slot);
        if (last) { break; }
      }
    } catch (...) {
      error_ = std::current_exception();  // published to next() by closing the queue
    }
    filled_.close();
  }

  std::array<chunk, grep_pipeline_slots> chunks_;
  slot_queue free_;
  slot_queue filled_;
  std::exception_ptr error_;
  std::atomic<std::int64_t> read_nanoseconds_ = 0;
  std::thread thread_;
};

/// The positions in `found` (ascending, relative to the chunk) that start in the chunk's own bytes, as
/// input offsets.
std::vector<std::uint64_t> own_matches(std::span<const std::uint64_t> found, const chunk& searched)
{
  std::vector<std::uint64_t> starts(found.begin(), std::lower_bound(found.begin(), found.end(), searched.own));
  for (std::uint64_t& start : starts) { start += searched.base; }
  return starts;
}

/// Searches chunks on a backend: `stage` starts moving a chunk to where the backend searches it (into
/// device slot `slot`, 0 or 1), `search` returns its own matches. Stage chunk k + 1 before searching k.
template <class Backend>
class chunk_searcher;

template <>
class chunk_searcher<host> {
 public:
  chunk_searcher(const host& backend, std::uint64_t, std::span<const std::uint8_t> pattern)
      : backend_(backend), pattern_(pattern)
  {
  }

  void stage(const chunk&, int) {}

  std::vector<std::uint64_t> search(const chunk& searched, int)
  {
    const auto found =
        find_matches(backend_, std::span<const std::uint8_t>(searched.bytes.data(), searched.filled), pattern_);
    return own_matches(found.span(), searched);
  }

  [[nodiscard]] double copy_seconds() const { return 0; }

 private:
  host backend_;
  std::span<const std::uint8_t> pattern_;
};

#if WARPDEX_HAS_CUDA
/// A CUDA stream of its own, not ordered with the legacy default stream.
struct owned_stream {
  cudaStream_t stream = nullptr;
  owned_stream() { WARPDEX_CUDA_TRY(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking)); }
  owned_stream(const owned_stream&) = delete;
  owned_stream& operator=(const owned_stream&) = delete;
  ~owned_stream() { cudaStreamDestroy(stream); }
};

struct owned_event {
  cudaEvent_t event = nullptr;
  owned_event() { WARPDEX_CUDA_TRY(cudaEventCreate(&event)); }
  owned_event(const owned_event&) = delete;
  owned_event& operator=(const owned_event&) = delete;
  ~owned_event() { cudaEventDestroy(event); }
};

/// Two device buffers used in turn: chunk k + 1 is copied into one on a copy stream while chunk k is
/// searched in the other on the backend's stream, which waits for the copy's event.
template <>
class chunk_searcher<cuda> {
 public:
  chunk_searcher(const cuda& backend, std::uint64_t capacity, std::span<const std::uint8_t> pattern)
      : backend_(backend), pattern_(pattern)
  {
    for (buffer<std::uint8_t>& device : device_) {
      device = make_device_buffer<std::uint8_t>(capacity, backend.stream);
    }
    backend.synchronize();  // allocated in the order of the backend's stream, filled on the copy stream
  }

  chunk_searcher(const chunk_searcher&) = delete;
  chunk_searcher& operator=(const chunk_searcher&) = delete;

  /// A copy may still be in flight when the search ends early: it must land before its device buffer is
  /// freed (on the backend's stream) and before its host chunk is.
  ~chunk_searcher() { cudaStreamSynchronize(copy_.stream); }

  /// Starts copying `next` into device slot `slot`, whose previous search has finished (`search` waits for
  /// its positions).
  void stage(const chunk& next, int slot)
  {
    WARPDEX_CUDA_TRY(cudaEventRecord(copy_started_[slot].event, copy_.stream));
    WARPDEX_CUDA_TRY(
        cudaMemcpyAsync(device_[slot].data(), next.bytes.data(), next.filled, cudaMemcpyHostToDevice, copy_.stream));
    WARPDEX_CUDA_TRY(cudaEventRecord(copied_[slot].event, copy_.stream));
  }

  std::vector<std::uint64_t> search(const chunk& searched, int slot)
  {
    WARPDEX_CUDA_TRY(cudaStreamWaitEvent(backend_.stream, copied_[slot].event, 0));
    const auto found =
        find_matches(backend_, std::span<const std::uint8_t>(device_[slot].data(), searched.filled), pattern_)
            .to_vector();
    float copy_ms = 0;
    WARPDEX_CUDA_TRY(cudaEventElapsedTime(&copy_ms, copy_started_[slot].event, copied_[slot].event));
    copy_seconds_ += copy_ms * 1e-3;
    return own_matches(found, searched);
  }

  [[nodiscard]] double copy_seconds() const { return copy_seconds_; }

 private:
  cuda backend_;
  std::span<const std::uint8_t> pattern_;
  owned_stream copy_;  // declared before the buffers and events, so that it outlives them
  std::array<owned_event, 2> copy_started_;
  std::array<owned_event, 2> copied_;
  std::array<buffer<std::uint8_t>, 2> device_;
  double copy_seconds_ = 0;
};
#endif

}  // namespace

template <class Backend>
grep_result grep_stream(const Backend& backend, std::FILE* input, std::string_view name, std::string_view pattern,
                        const grep_options& options, std::FILE* output)
{
  WARPDEX_EXPECTS(!pattern.empty(), "grep: the pattern is empty");
  WARPDEX_EXPECTS(pattern.find('\n') == std::string_view::npos,
                  "grep: the pattern contains a newline; search for one line's text at a time");
  WARPDEX_EXPECTS(options.chunk_bytes >= 1, "grep: the chunk size must be at least 1 byte");
  const std::uint64_t overlap = pattern.size() - 1;
  chunk_reader reader(input, name, options.chunk_bytes, overlap, !std::is_same_v<Backend, host>);
  chunk_searcher<Backend> searcher(backend, options.chunk_bytes + overlap, as_bytes(pattern));
  line_printer printer(name, options, output);
  grep_stage_seconds seconds;
  int slot = 0;
  chunk* current = reader.next();
  if (current != nullptr) { searcher.stage(*current, slot); }
  for (bool more = current != nullptr; more; slot = 1 - slot) {
    chunk* following = reader.next();
    if (following != nullptr) { searcher.stage(*following, 1 - slot); }
    const auto search_start = clock_type::now();
    const std::vector<std::uint64_t> starts = searcher.search(*current, slot);
    seconds.search += seconds_since(search_start);
    const auto walk_start = clock_type::now();
    const bool has_nul = printer.needs_nul_check() && std::memchr(current->bytes.data(), 0, current->own) != nullptr;
    more = printer.walk(current->bytes.data(), current->own, current->base, starts, has_nul) && following != nullptr;
    seconds.output += seconds_since(walk_start);
    reader.release(*current);
    current = following;
  }
  const auto finish_start = clock_type::now();
  grep_result result = printer.finish();
  seconds.output += seconds_since(finish_start);
  seconds.read = reader.read_seconds();
  seconds.copy = searcher.copy_seconds();
  result.seconds = seconds;
  return result;
}

template grep_result grep_stream<host>(const host&, std::FILE*, std::string_view, std::string_view, const grep_options&,
                                       std::FILE*);
#if WARPDEX_HAS_CUDA
template grep_result grep_stream<cuda>(const cuda&, std::FILE*, std::string_view, std::string_view, const grep_options&,
                                       std::FILE*);
#endif

}  // namespace warpdex
