#include "progress.hpp"

#include <cstdio>
#include <unistd.h>

namespace warpdex::workloads {
namespace {
constexpr auto quiet_period = std::chrono::seconds(1);  // work shorter than this shows nothing
constexpr auto refresh_period = std::chrono::milliseconds(200);
}  // namespace

progress::progress(std::string step) : step_(std::move(step)), started_(std::chrono::steady_clock::now())
{
  if (isatty(STDERR_FILENO) != 0) {
    display_ = std::thread([this] { display_until_done(); });
  }
}

progress::~progress()
{
  {
    const std::lock_guard lock(mutex_);
    done_ = true;
  }
  finished_.notify_all();
  if (display_.joinable()) { display_.join(); }
  if (shown_) { std::fprintf(stderr, "\r\033[K"); }  // clear the line for the step's own report
}

void progress::update(double fraction, std::string step)
{
  {
    const std::lock_guard lock(mutex_);
    step_ = std::move(step);
  }
  update(fraction);
}

double progress::elapsed_seconds() const
{
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - started_).count();
}

void progress::display_until_done()
{
  std::unique_lock lock(mutex_);
  if (finished_.wait_until(lock, started_ + quiet_period, [this] { return done_; })) { return; }
  do {
    const double fraction = fraction_.load(std::memory_order_relaxed);
    if (fraction >= 0) {
      constexpr int bar_width = 20;
      const int filled = static_cast<int>(fraction * bar_width + 0.5);
      std::fprintf(stderr, "\r\033[K[%.*s%*s] %3.0f%%  %s  %.1f s", filled, "####################", bar_width - filled,
                   "", 100 * fraction, step_.c_str(), elapsed_seconds());
    } else {
      std::fprintf(stderr, "\r\033[K%s  %.1f s", step_.c_str(), elapsed_seconds());
    }
    std::fflush(stderr);
    shown_ = true;
  } while (!finished_.wait_for(lock, refresh_period, [this] { return done_; }));
}

}  // namespace warpdex::workloads
