// weibo-cluster's supervisor (man/weibo-cluster.1): the state file and the daemons it
// records. cluster/manage.cc (up, down) and cluster/status.cc (status) are built on it.
//
// The state of a laptop cluster is the file weibo-cluster.json in its data directory:
// the layout (K, base port, host) and the pid and endpoint of the broker and of each node.
// Daemons are started detached (fork, setsid, fork again, exec weibod), with stdin from
// /dev/null and stdout/stderr appended to broker.log and node-I.log in the data directory.
// A recorded pid counts as running only while /proc says it is a weibod that is not a
// zombie, so a reused pid is never signalled.
#include "cluster/supervisor.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include "storage/files.h"

namespace weibo::cluster {
namespace {

constexpr const char* kStateFile = "weibo-cluster.json";

}  // namespace

std::string Absolute(const std::string& path) {
  if (!path.empty() && path[0] == '/') return path;
  char cwd[4096];
  if (getcwd(cwd, sizeof cwd) == nullptr) return path;
  return std::string(cwd) + "/" + path;
}

std::string StatePath(const std::string& dir) { return dir + "/" + kStateFile; }

bool ReadJson(const std::string& path, Json* out) {
  std::ifstream in(path);
  if (!in) return false;
  std::stringstream text;
  text << in.rdbuf();
  *out = Json::parse(text.str(), nullptr, false);
  return out->is_object();
}

Status WriteState(const std::string& dir, const Json& state) {
  const std::string path = StatePath(dir);
  if (!WritePrivateFile(path, state.dump(2) + "\n"))
    return Status(Code::kStorageError, "cannot write " + path);
  return Status::Ok();
}

// A running weibod (not a zombie) with this pid.
bool Running(int64_t pid) {
  if (pid <= 0 || kill(static_cast<pid_t>(pid), 0) != 0) return false;
  std::ifstream cmd("/proc/" + std::to_string(pid) + "/cmdline");
  std::string argv0;
  std::getline(cmd, argv0, '\0');
  if (argv0.find("weibod") == std::string::npos) return false;
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  std::getline(stat, line);
  size_t paren = line.rfind(')');
  return paren == std::string::npos || paren + 2 >= line.size() || line[paren + 2] != 'Z';
}

// Starts argv detached; returns the daemon's pid, or -1.
int64_t Spawn(const std::vector<std::string>& argv, const std::string& log) {
  const std::string exec_failed = "weibo-cluster: cannot execute " + argv.at(0) + ": ";
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) return -1;
  pid_t child = fork();
  if (child < 0) return -1;
  if (child == 0) {
    setsid();
    pid_t grandchild = fork();
    if (grandchild != 0) {
      int64_t pid = grandchild;
      (void)!write(fds[1], &pid, sizeof pid);
      _exit(0);
    }
    int in = open("/dev/null", O_RDONLY);
    int out = OpenPrivate(log, O_WRONLY | O_APPEND);  // 0600, as every file of the directory
    if (in >= 0) dup2(in, 0);
    if (out >= 0) {
      dup2(out, 1);
      dup2(out, 2);
    }
    // Nothing else of the caller's stays open in a daemon (a test harness's pipes would
    // wait for it); the sync pipe closes on exec.
    for (int fd = 3; fd < 1024; ++fd)
      if (fd != fds[1]) close(fd);
    std::vector<char*> args;
    for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    execv(args[0], args.data());
    // Said in the log, where up looks for why a daemon exited (stderr is the log here);
    // the text was made before the fork, as only async-signal-safe calls belong here.
    const char* why = std::strerror(errno);
    (void)!write(2, exec_failed.data(), exec_failed.size());
    (void)!write(2, why, std::strlen(why));
    (void)!write(2, "\n", 1);
    _exit(127);
  }
  close(fds[1]);
  int64_t pid = -1;
  if (read(fds[0], &pid, sizeof pid) != sizeof pid) pid = -1;
  // The grandchild holds the write end until its exec closes it (O_CLOEXEC): at EOF it
  // runs weibod, so /proc shows it as one.
  char byte;
  while (read(fds[0], &byte, 1) > 0) {
  }
  close(fds[0]);
  waitpid(child, nullptr, 0);
  return pid;
}

// The broker's own view of the nodes (the cluster_status request), or null.
Json AskBroker(const std::string& endpoint, int timeout_ms) {
  RemoteOptions ro;
  ro.endpoint = endpoint;
  ro.timeout_ms = timeout_ms;
  ro.attempts = 1;
  auto remote = OpenRemote(ro);
  Result<Json> r = remote->Execute(Request{"cluster_status", Json::object()});
  return r.ok() ? r.value() : Json();
}

bool BrokerRoutes(const Json& view, const std::string& node, int64_t pid,
                  const std::vector<int>& shards) {
  if (!view.is_object()) return false;
  const Json owners = view.value("owners", Json::array());
  for (int s : shards)
    if (s < 0 || static_cast<size_t>(s) >= owners.size() || owners[s] != node) return false;
  for (const auto& n : view.value("nodes", Json::array()))
    if (n.value("node", "") == node) return n.value("alive", false) && n.value("pid", 0) == pid;
  return false;
}

}  // namespace weibo::cluster

namespace weibo {

std::string LogTail(const std::string& path, int64_t from) {
  std::ifstream in(path);
  if (from > 0) in.seekg(from);
  std::string line, last;
  while (std::getline(in, line))
    if (!line.empty()) last = line;
  return last;
}

int64_t LogSize(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0 ? static_cast<int64_t>(st.st_size) : 0;
}

std::string WeibodNextToProgram() {
  char self[4096];
  ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
  if (n > 0) {
    std::string path(self, n);
    return path.substr(0, path.rfind('/') + 1) + "weibod";
  }
  return "weibod";
}

}  // namespace weibo
