// A program the bench starts as its own child (weibod for --daemon, redis-server for
// --peer retwis): it never outlives the bench (PR_SET_PDEATHSIG) and is stopped with
// SIGTERM, then SIGKILL.
#ifndef WEIBO_BENCH_CHILD_PROCESS_H_
#define WEIBO_BENCH_CHILD_PROCESS_H_

#include <sys/types.h>

#include <string>
#include <vector>

#include "weibo/status.h"

namespace weibo::bench {

// Forks and runs argv (through PATH when argv[0] has no slash), standard input from
// /dev/null, standard output to stdout_fd (-1: to the log too), standard error appended to
// log_path. Returns the child's pid, or -1 when fork failed.
pid_t SpawnChild(const std::vector<std::string>& argv, int stdout_fd, const std::string& log_path);

// SIGTERM, up to stop_ms for the child to exit, then SIGKILL. Not ok (unavailable, naming
// the program) when it had to be killed or exited with an error.
Status StopChild(pid_t pid, const std::string& name, int stop_ms);

}  // namespace weibo::bench

#endif  // WEIBO_BENCH_CHILD_PROCESS_H_
