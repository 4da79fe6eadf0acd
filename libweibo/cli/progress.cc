// Progress (weibo/cli.h): the bar of long runs, on standard error.
#include <unistd.h>

#include <algorithm>
#include <cstdio>

#include "weibo/cli.h"

namespace weibo::cli {
namespace {

constexpr auto kQuietFor = std::chrono::seconds(2);
constexpr auto kRedrawEvery = std::chrono::milliseconds(100);
constexpr int kBarWidth = 30;

}  // namespace

Progress::Progress(bool force)
    : terminal_(isatty(STDERR_FILENO) == 1), enabled_(terminal_ || force), start_(Clock::now()) {}

void Progress::Stage(const std::string& label, int64_t total) {
  label_ = label;
  total_ = total;
  last_draw_ = Clock::time_point();
  last_tenth_ = -1;
  Step(0);
}

void Progress::Step(int64_t done) {
  if (!enabled_) return;
  if (!terminal_) {
    // A log (CI): a plain line when a stage starts and at each tenth of it, no escapes.
    const int tenth = total_ > 0 ? static_cast<int>(10 * std::min(done, total_) / total_) : 0;
    if (tenth == last_tenth_) return;
    last_tenth_ = tenth;
    if (total_ > 0)
      std::fprintf(stderr, "%s: %d%% %lld/%lld\n", label_.c_str(), tenth * 10,
                   static_cast<long long>(done), static_cast<long long>(total_));
    else
      std::fprintf(stderr, "%s ...\n", label_.c_str());
    std::fflush(stderr);
    return;
  }
  auto now = Clock::now();
  if (now - start_ < kQuietFor || now - last_draw_ < kRedrawEvery) return;
  last_draw_ = now;
  drawn_ = true;
  if (total_ <= 0) {  // a stage of unknown length: its name only
    std::fprintf(stderr, "\r\033[K%s ...", label_.c_str());
    std::fflush(stderr);
    return;
  }
  done = std::min(done, total_);
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

}  // namespace weibo::cli
