#include "weibod_child.h"

#include <fcntl.h>
#include <poll.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <vector>

#include "child_process.h"
#include "weibo/cluster.h"

namespace weibo::bench {
namespace {

constexpr int kReadyMs = 15000;  // weibod opens every shard before it answers
constexpr int kStopMs = 10000;   // then SIGKILL

// Reads one line from fd within timeout_ms; false at EOF or timeout.
bool ReadLine(int fd, int timeout_ms, std::string* line) {
  auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  char c;
  for (;;) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
                    deadline - std::chrono::steady_clock::now())
                    .count();
    if (left <= 0) return false;
    pollfd p{fd, POLLIN, 0};
    int ready = poll(&p, 1, static_cast<int>(left));
    if (ready < 0 && errno == EINTR) continue;
    if (ready <= 0) return false;
    ssize_t n = read(fd, &c, 1);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    if (c == '\n') return true;
    *line += c;
  }
}

}  // namespace

Result<std::unique_ptr<WeibodChild>> WeibodChild::Start(const std::string& weibod,
                                                        const std::string& data_dir,
                                                        int group_commit,
                                                        const std::string& log_path) {
  std::vector<std::string> argv = {weibod,
                                   "--data",
                                   data_dir,
                                   "--bind",
                                   "tcp://127.0.0.1:*",
                                   "--rate",
                                   "0",
                                   "--group-commit",
                                   std::to_string(group_commit),
                                   "--allow-clock"};  // the replayed ops carry the trace's clock
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) return Status(Code::kUnavailable, "cannot start weibod: pipe");
  pid_t pid = SpawnChild(argv, fds[1], log_path);
  if (pid < 0) {
    close(fds[0]);
    close(fds[1]);
    return Status(Code::kUnavailable, "cannot start weibod: fork");
  }
  close(fds[1]);
  std::string endpoint;
  bool ready = ReadLine(fds[0], kReadyMs, &endpoint);
  close(fds[0]);
  std::unique_ptr<WeibodChild> child(new WeibodChild(pid, endpoint));
  if (ready && endpoint.rfind("tcp://", 0) == 0) return child;
  child->Stop();
  std::string why = LogTail(log_path);
  return Status(Code::kUnavailable, "weibod (" + weibod + ") did not start" +
                                        (why.empty() ? std::string() : ": " + why));
}

Status WeibodChild::Stop() {
  pid_t pid = pid_;
  pid_ = 0;
  return StopChild(pid, "weibod", kStopMs);
}

WeibodChild::~WeibodChild() { (void)Stop(); }

}  // namespace weibo::bench
