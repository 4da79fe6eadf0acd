// WeibodChild: a weibod started by the bench as its own child process, for a paired run
// (weibo-bench --daemon): the same daemon binary and defaults an operator runs, except
// --rate 0 (the bench sends each op as soon as the last is answered) and the bench's
// --group-commit. It dies with the bench (PR_SET_PDEATHSIG) and is stopped with SIGTERM.
#ifndef WEIBO_BENCH_WEIBOD_CHILD_H_
#define WEIBO_BENCH_WEIBOD_CHILD_H_

#include <sys/types.h>

#include <memory>
#include <string>

#include "weibo/status.h"

namespace weibo::bench {

class WeibodChild {
 public:
  // Starts `weibod --data data_dir --bind tcp://127.0.0.1:* --rate 0 --group-commit N` and
  // waits until it prints the endpoint it serves. Its log (stderr) goes to log_path.
  static Result<std::unique_ptr<WeibodChild>> Start(const std::string& weibod,
                                                    const std::string& data_dir, int group_commit,
                                                    const std::string& log_path);
  WeibodChild(const WeibodChild&) = delete;
  WeibodChild& operator=(const WeibodChild&) = delete;
  ~WeibodChild();  // Stop()

  const std::string& endpoint() const { return endpoint_; }
  // SIGTERM, then waits for it (weibod finishes what it has and syncs its group commit);
  // not ok when it exited with an error or had to be killed.
  Status Stop();

 private:
  WeibodChild(pid_t pid, std::string endpoint) : pid_(pid), endpoint_(std::move(endpoint)) {}
  pid_t pid_;
  std::string endpoint_;
};

}  // namespace weibo::bench

#endif  // WEIBO_BENCH_WEIBOD_CHILD_H_
