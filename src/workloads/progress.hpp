#pragma once
// A progress display for work longer than a second: after the first second, a line on standard error
// (when it is a terminal) shows the step, its fraction done when known, and the elapsed time.

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>

namespace warpdex::workloads {

class progress {
 public:
  explicit progress(std::string step);
  progress(const progress&) = delete;
  progress& operator=(const progress&) = delete;
  ~progress();

  /// Fraction of the step done, in [0, 1], shown as a bar; steps that cannot tell show the elapsed time only.
  void update(double fraction) { fraction_.store(fraction, std::memory_order_relaxed); }

  /// The step's fraction done and a new description of it (e.g. how many bytes of a file are read).
  void update(double fraction, std::string step);

  /// Seconds since the step started.
  [[nodiscard]] double elapsed_seconds() const;

 private:
  void display_until_done();

  std::string step_;
  std::chrono::steady_clock::time_point started_;
  std::atomic<double> fraction_{-1.0};
  std::mutex mutex_;
  std::condition_variable finished_;
  bool done_ = false;
  bool shown_ = false;
  std::thread display_;
};

}  // namespace warpdex::workloads
