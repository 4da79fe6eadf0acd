#include "weibod_child.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <thread>
#include <vector>

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
  // Everything the child needs is made before fork: between fork and exec it only makes
  // system calls (no allocation, which another thread's lock could leave stuck).
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  const bool has_slash = weibod.find('/') != std::string::npos;
  pid_t parent = getpid();
  pid_t pid = fork();
  if (pid < 0) {
    close(fds[0]);
    close(fds[1]);
    return Status(Code::kUnavailable, "cannot start weibod: fork");
  }
  if (pid == 0) {
    prctl(PR_SET_PDEATHSIG, SIGTERM);     // never outlives the bench
    if (getppid() != parent) _exit(127);  // the bench died before prctl
    int in = open("/dev/null", O_RDONLY);
    int log = open(log_path.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0600);
    if (in >= 0) dup2(in, 0);
    dup2(fds[1], 1);  // the ready line: the endpoint
    if (log >= 0) dup2(log, 2);
    if (has_slash)
      execv(args[0], args.data());
    else
      execvp(args[0], args.data());
    _exit(127);
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
  if (pid_ <= 0) return Status::Ok();
  kill(pid_, SIGTERM);
  auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(kStopMs);
  int status = 0;
  pid_t done = 0;
  while ((done = waitpid(pid_, &status, WNOHANG)) == 0 &&
         std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  bool killed = false;
  if (done == 0) {
    kill(pid_, SIGKILL);
    waitpid(pid_, &status, 0);
    killed = true;
  }
  pid_ = 0;
  if (killed) return Status(Code::kUnavailable, "weibod did not stop on SIGTERM and was killed");
  if (done > 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0) return Status::Ok();
  return Status(Code::kUnavailable, "weibod exited with an error (its log says why)");
}

WeibodChild::~WeibodChild() { (void)Stop(); }

}  // namespace weibo::bench
