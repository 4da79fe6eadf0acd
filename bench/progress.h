// Progress: a one-line progress bar on standard error, drawn only when standard error is a
// terminal and the run has lasted a few seconds, so short runs, pipes and logs never see it.
#ifndef WEIBO_BENCH_PROGRESS_H_
#define WEIBO_BENCH_PROGRESS_H_

#include <chrono>
#include <cstdint>
#include <string>

namespace weibo::bench {

class Progress {
 public:
  Progress();  // the run starts now
  // A new stage ("push: setup") of total steps.
  void Stage(const std::string& label, int64_t total);
  void Step(int64_t done);  // cheap: draws at most ten times a second
  void Clear();             // erases the line, if one was drawn

 private:
  using Clock = std::chrono::steady_clock;
  bool enabled_;
  bool drawn_ = false;
  Clock::time_point start_, last_draw_;
  std::string label_;
  int64_t total_ = 0;
};

}  // namespace weibo::bench

#endif  // WEIBO_BENCH_PROGRESS_H_
