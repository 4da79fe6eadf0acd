#include "progress.h"

#include <unistd.h>

#include <cstdio>

namespace weibo::bench {
namespace {

constexpr auto kQuietFor = std::chrono::seconds(2);
constexpr auto kRedrawEvery = std::chrono::milliseconds(100);
constexpr int kBarWidth = 30;

}  // namespace

Progress::Progress() : enabled_(isatty(STDERR_FILENO) == 1), start_(Clock::now()) {}

void Progress::Stage(const std::string& label, int64_t total) {
  label_ = label;
  total_ = total;
  last_draw_ = Clock::time_point();
  Step(0);
}

void Progress::Step(int64_t done) {
  if (!enabled_) return;
  auto now = Clock::now();
  if (now - start_ < kQuietFor || now - last_draw_ < kRedrawEvery) return;
  last_draw_ = now;
  drawn_ = true;
  if (total_ <= 0) {  // a stage of unknown length: its name only
    std::fprintf(stderr, "\r\033[K%s ...", label_.c_str());
    std::fflush(stderr);
    return;
  }
  int filled = static_cast<int>(kBarWidth * done / total_);
  std::string bar(static_cast<size_t>(filled), '#');
  bar.resize(kBarWidth, '.');
  int percent = static_cast<int>(100 * done / total_);
  std::fprintf(stderr, "\r\033[K%-24s [%s] %3d%%  %lld/%lld", label_.c_str(), bar.c_str(), percent,
               static_cast<long long>(done), static_cast<long long>(total_));
  std::fflush(stderr);
}

void Progress::Clear() {
  if (!drawn_) return;
  std::fprintf(stderr, "\r\033[K");
  std::fflush(stderr);
  drawn_ = false;
}

}  // namespace weibo::bench
