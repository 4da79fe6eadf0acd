// weibo-cluster's commands (man/weibo-cluster.1): up, status, down.
//
// The state of a laptop cluster is the file weibo-cluster.json in its data directory:
// the layout (K, base port, host) and the pid and endpoint of the broker and of each node.
// Daemons are started detached (fork, setsid, fork again, exec weibod), with stdin from
// /dev/null and stdout/stderr appended to broker.log and node-I.log in the data directory.
// A recorded pid counts as running only while /proc says it is a weibod that is not a
// zombie, so a reused pid is never signalled.
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <thread>

#include "storage/files.h"
#include "storage/shard_set.h"
#include "weibo/cluster.h"

namespace weibo {
namespace {

constexpr const char* kStateFile = "weibo-cluster.json";

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

std::string WeibodPath(const ClusterOptions& options) {
  return options.weibod.empty() ? WeibodNextToProgram() : options.weibod;
}

std::string Endpoint(const std::string& host, int port) {
  return "tcp://" + host + ":" + std::to_string(port);
}

std::string ShardList(const std::vector<int>& shards) {
  std::string out;
  for (int s : shards) out += (out.empty() ? "" : ",") + std::to_string(s);
  return out;
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

bool BrokerSaysAlive(const Json& view, const std::string& node, int64_t pid) {
  if (!view.is_object()) return false;
  for (const auto& n : view.value("nodes", Json::array()))
    if (n.value("node", "") == node) return n.value("alive", false) && n.value("pid", 0) == pid;
  return false;
}

}  // namespace

std::string LogTail(const std::string& path) {
  std::ifstream in(path);
  std::string line, last;
  while (std::getline(in, line))
    if (!line.empty()) last = line;
  return last;
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

Status ClusterUp(const ClusterOptions& options) {
  const std::string dir = Absolute(options.data_dir);
  Json config;
  if (!ReadJson(dir + "/cluster.json", &config))
    return Status(Code::kStorageError,
                  "no cluster in " + options.data_dir + " (run weibo-init --data DIR first)");
  int shard_count = 0;
  try {
    shard_count = ClusterConfig::FromJson(config).shards;
  } catch (const std::exception& e) {
    return Status(Code::kStorageError, options.data_dir + "/cluster.json: " + e.what());
  }
  Json state;
  bool have_state = ReadJson(StatePath(dir), &state);
  int k = options.nodes, base = options.base_port;
  std::string host = options.host;
  if (have_state) {
    int recorded = state.value("nodes", 0);
    if (k != 0 && k != recorded)
      return Status(Code::kInvalidArgument,
                    "the cluster in " + options.data_dir + " has " + std::to_string(recorded) +
                        " nodes; run weibo-cluster down before changing --nodes");
    k = recorded;
    base = state.value("base_port", base);
    host = state.value("host", host);
  }
  if (k < 1) return Status(Code::kInvalidArgument, "--nodes K is required (1 to the shard count)");
  if (k > shard_count)
    return Status(Code::kInvalidArgument, std::to_string(k) + " nodes for " +
                                              std::to_string(shard_count) +
                                              " shards: a node would own none");
  if (base < 1 || base + 1 + k > 65535)
    return Status(Code::kInvalidArgument, "--base-port leaves no room for the ports");
  const std::string weibod = WeibodPath(options);
  const std::string broker_endpoint = Endpoint(host, base);
  const std::string backend = Endpoint(host, base + 1 + k);

  Json broker = have_state ? state.value("broker", Json::object()) : Json::object();
  if (!Running(broker.value("pid", int64_t{0}))) {
    int64_t pid = Spawn({weibod, "--broker", "--bind", broker_endpoint, "--backend", backend},
                        dir + "/broker.log");
    if (pid <= 0) return Status(Code::kUnavailable, "cannot start " + weibod);
    broker = Json{{"pid", pid}, {"endpoint", broker_endpoint}, {"backend", backend}};
  }
  Json nodes = have_state ? state.value("node_list", Json::array()) : Json::array();
  nodes.get_ref<Json::array_t&>().resize(k);
  for (int i = 0; i < k; ++i) {
    Json& node = nodes[i];
    if (node.is_object() && Running(node.value("pid", int64_t{0}))) continue;
    std::vector<int> shards;
    for (int s = 0; s < shard_count; ++s)
      if (s % k == i) shards.push_back(s);
    const std::string name = "node" + std::to_string(i);
    const std::string endpoint = Endpoint(host, base + 1 + i);
    std::vector<std::string> argv = {weibod,     "--data",          dir,      "--bind", endpoint,
                                     "--shards", ShardList(shards), "--join", backend,  "--node",
                                     name,       "--rate",          "0"};
    if (options.allow_clock) argv.push_back("--allow-clock");
    int64_t pid = Spawn(argv, dir + "/" + name + ".log");
    if (pid <= 0) return Status(Code::kUnavailable, "cannot start " + weibod);
    node = Json{{"node", name}, {"endpoint", endpoint}, {"pid", pid}, {"shards", shards}};
  }
  state = Json{
      {"nodes", k}, {"base_port", base}, {"host", host}, {"broker", broker}, {"node_list", nodes}};
  Status written = WriteState(dir, state);
  if (!written.ok()) return written;

  // Wait until the broker answers and reports every node alive.
  const auto deadline =
      std::chrono::steady_clock::now() + std::chrono::milliseconds(options.wait_ms);
  for (;;) {
    if (!Running(broker.value("pid", int64_t{0})))
      return Status(Code::kUnavailable,
                    "the broker exited: " + LogTail(dir + "/broker.log") + " (see broker.log)");
    Json view = AskBroker(broker_endpoint, 500);
    bool all = true;
    for (const auto& node : nodes) {
      const std::string name = node.value("node", "");
      if (!Running(node.value("pid", int64_t{0})))
        return Status(Code::kUnavailable, name + " exited: " + LogTail(dir + "/" + name + ".log") +
                                              " (see " + name + ".log)");
      all = all && BrokerSaysAlive(view, name, node.value("pid", int64_t{0}));
    }
    if (all) break;
    if (std::chrono::steady_clock::now() > deadline)
      return Status(Code::kUnavailable, "the nodes did not all answer within " +
                                            std::to_string(options.wait_ms) + " ms");
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  if (options.print) {
    for (const auto& node : nodes) {
      std::vector<int> shards = node.value("shards", std::vector<int>{});
      options.print(node.value("node", "") + " " + node.value("endpoint", "") + " pid " +
                    std::to_string(node.value("pid", int64_t{0})) + " shards " + ShardList(shards));
    }
    options.print(broker_endpoint);
  }
  return Status::Ok();
}

Result<Json> ClusterStatus(const ClusterOptions& options) {
  const std::string dir = Absolute(options.data_dir);
  Json state;
  if (!ReadJson(StatePath(dir), &state))
    return Status(Code::kNotFound, "no cluster is recorded in " + options.data_dir +
                                       " (weibo-cluster up starts one)");
  Json broker = state.value("broker", Json::object());
  bool broker_running = Running(broker.value("pid", int64_t{0}));
  Json view = broker_running ? AskBroker(broker.value("endpoint", ""), 1000) : Json();
  Json nodes = Json::array();
  for (const auto& node : state.value("node_list", Json::array())) {
    int64_t pid = node.value("pid", int64_t{0});
    const std::string name = node.value("node", "");
    bool alive = Running(pid) && (!view.is_object() || BrokerSaysAlive(view, name, pid));
    nodes.push_back(Json{{"node", name},
                         {"endpoint", node.value("endpoint", "")},
                         {"pid", pid},
                         {"alive", alive},
                         {"shards", node.value("shards", Json::array())}});
  }
  return Json{{"broker", broker.value("endpoint", "")},
              {"broker_pid", broker.value("pid", int64_t{0})},
              {"broker_alive", broker_running && view.is_object()},
              {"nodes", nodes}};
}

Status ClusterDown(const ClusterOptions& options) {
  const std::string dir = Absolute(options.data_dir);
  Json state;
  if (!ReadJson(StatePath(dir), &state)) return Status::Ok();  // nothing is up
  std::vector<int64_t> pids;
  for (const auto& node : state.value("node_list", Json::array()))
    pids.push_back(node.value("pid", int64_t{0}));
  pids.push_back(state.value("broker", Json::object()).value("pid", int64_t{0}));
  // Nodes first (they say BYE to the broker), then the broker.
  std::string stuck;
  for (size_t i = 0; i < pids.size(); ++i) {
    if (!Running(pids[i])) continue;
    kill(static_cast<pid_t>(pids[i]), SIGTERM);
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (Running(pids[i]) && std::chrono::steady_clock::now() < deadline)
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    if (Running(pids[i])) {
      kill(static_cast<pid_t>(pids[i]), SIGKILL);
      stuck += " " + std::to_string(pids[i]);
    }
  }
  std::remove(StatePath(dir).c_str());
  if (!stuck.empty()) return Status(Code::kUnavailable, "killed with SIGKILL after 10 s:" + stuck);
  return Status::Ok();
}

}  // namespace weibo
