#include "child_process.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <thread>

namespace weibo::bench {

pid_t SpawnChild(const std::vector<std::string>& argv, int stdout_fd, const std::string& log_path) {
  // Everything the child needs is made before fork: between fork and exec it only makes
  // system calls (no allocation, which another thread's lock could leave stuck).
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  const bool has_slash = argv[0].find('/') != std::string::npos;
  const char* log_file = log_path.c_str();
  pid_t parent = getpid();
  pid_t pid = fork();
  if (pid != 0) return pid;
  prctl(PR_SET_PDEATHSIG, SIGTERM);     // never outlives the bench
  if (getppid() != parent) _exit(127);  // the bench died before prctl
  int in = open("/dev/null", O_RDONLY);
  int log = open(log_file, O_WRONLY | O_CREAT | O_APPEND, 0600);
  if (in >= 0) dup2(in, 0);
  if (stdout_fd >= 0)
    dup2(stdout_fd, 1);
  else if (log >= 0)
    dup2(log, 1);
  if (log >= 0) dup2(log, 2);
  if (has_slash)
    execv(args[0], args.data());
  else
    execvp(args[0], args.data());
  _exit(127);
}

Status StopChild(pid_t pid, const std::string& name, int stop_ms) {
  if (pid <= 0) return Status::Ok();
  kill(pid, SIGTERM);
  auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(stop_ms);
  int status = 0;
  pid_t done = 0;
  while ((done = waitpid(pid, &status, WNOHANG)) == 0 &&
         std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  if (done == 0) {
    kill(pid, SIGKILL);
    waitpid(pid, &status, 0);
    return Status(Code::kUnavailable, name + " did not stop on SIGTERM and was killed");
  }
  if (done > 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0) return Status::Ok();
  return Status(Code::kUnavailable, name + " exited with an error (its log says why)");
}

}  // namespace weibo::bench
