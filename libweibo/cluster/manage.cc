// weibo-cluster up and down (man/weibo-cluster.1): start what is not running and wait for
// it to answer; stop everything recorded. The state file and the processes are
// cluster/supervisor.cc's.
#include <signal.h>

#include <chrono>
#include <cstdio>
#include <map>
#include <sstream>
#include <thread>

#include "cluster/curve.h"
#include "cluster/supervisor.h"
#include "storage/shard_set.h"

namespace weibo {
namespace {

using cluster::Absolute;
using cluster::AskBroker;
using cluster::BrokerRoutes;
using cluster::ReadJson;
using cluster::Running;
using cluster::Spawn;
using cluster::StatePath;
using cluster::WriteState;

// What up starts: the shard count from cluster.json; K, the base port and the host from
// the options, or as recorded in the state file when the cluster was started before.
struct Layout {
  int shards = 0;
  int nodes = 0;
  int base_port = 0;
  std::string host;
  std::string broker;        // the broker's frontend, where clients connect
  std::string backend;       // the broker's backend, where nodes join
  bool allow_clock = false;  // the nodes take a request's "now" (weibod --allow-clock)
  // node i -> the shards it owns: those s with s mod K = i. The broker is told it, so that
  // no other process can take a shard over (weibod(1), REFUSED).
  std::vector<std::vector<int>> owned;
  bool auth = false;   // the nodes check tokens, the broker may face the network
  double rate = 0;     // the broker's --rate
  std::string events;  // the broker's --events
};

std::string Endpoint(const std::string& host, int port) {
  return "tcp://" + host + ":" + std::to_string(port);
}

std::string ShardList(const std::vector<int>& shards) {
  std::string out;
  for (int s : shards) out += (out.empty() ? "" : ",") + std::to_string(s);
  return out;
}

Status ReadLayout(const ClusterOptions& options, const std::string& dir, const Json& state,
                  Layout* out) {
  Json config;
  if (!ReadJson(dir + "/cluster.json", &config))
    return Status(Code::kStorageError,
                  "no cluster in " + options.data_dir + " (run weibo-init --data DIR first)");
  try {
    out->shards = ClusterConfig::FromJson(config).shards;
  } catch (const std::exception& e) {
    return Status(Code::kStorageError, options.data_dir + "/cluster.json: " + e.what());
  }
  int k = options.nodes, base = options.base_port;
  std::string host = options.host;
  out->allow_clock = options.allow_clock;
  out->auth = options.auth;
  out->rate = options.rate;
  out->events = options.events;
  if (state.is_object()) {
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
  if (k > out->shards)
    return Status(Code::kInvalidArgument, std::to_string(k) + " nodes for " +
                                              std::to_string(out->shards) +
                                              " shards: a node would own none");
  if (base < 1 || base + 1 + k > 65535)
    return Status(Code::kInvalidArgument, "--base-port leaves no room for the ports");
  out->nodes = k;
  out->base_port = base;
  out->host = host;
  out->broker = Endpoint(host, base);
  out->backend = Endpoint(host, base + 1 + k);
  out->owned.assign(k, {});
  for (int s = 0; s < out->shards; ++s) out->owned[s % k].push_back(s);
  return Status::Ok();
}

// Starts the broker, with the layout, unless the one recorded in *broker is running, and
// records it there.
Status StartBroker(const std::string& weibod, const std::string& dir, const Layout& layout,
                   Json* broker) {
  if (Running(broker->value("pid", int64_t{0}))) return Status::Ok();
  std::vector<std::string> argv = {weibod,   "--broker",    "--data",    dir,
                                   "--bind", layout.broker, "--backend", layout.backend};
  for (int i = 0; i < layout.nodes; ++i) {
    argv.push_back("--layout");
    argv.push_back("node" + std::to_string(i) + "=" + ShardList(layout.owned[i]));
  }
  if (layout.auth) argv.push_back("--auth");
  std::ostringstream rate;
  rate << layout.rate;
  argv.insert(argv.end(), {"--rate", rate.str()});
  if (!layout.events.empty()) argv.insert(argv.end(), {"--events", layout.events});
  int64_t pid = Spawn(argv, dir + "/broker.log");
  if (pid <= 0) return Status(Code::kUnavailable, "cannot start " + weibod);
  *broker = Json{{"pid", pid}, {"endpoint", layout.broker}, {"backend", layout.backend}};
  return Status::Ok();
}

// Starts every node of *nodes (K records) whose recorded process is not running; node i
// owns layout.owned[i].
Status StartNodes(const std::string& weibod, const std::string& dir, const Layout& layout,
                  Json* nodes) {
  const int k = layout.nodes;
  nodes->get_ref<Json::array_t&>().resize(k);
  for (int i = 0; i < k; ++i) {
    Json& node = (*nodes)[i];
    if (node.is_object() && Running(node.value("pid", int64_t{0}))) continue;
    const std::vector<int>& shards = layout.owned[i];
    const std::string name = "node" + std::to_string(i);
    const std::string endpoint = Endpoint(layout.host, layout.base_port + 1 + i);
    std::vector<std::string> argv = {
        weibod,   "--data",       dir,      "--bind", endpoint, "--shards", ShardList(shards),
        "--join", layout.backend, "--node", name,     "--rate", "0"};
    if (layout.allow_clock) argv.push_back("--allow-clock");
    if (layout.auth) argv.push_back("--auth");
    int64_t pid = Spawn(argv, dir + "/" + name + ".log");
    if (pid <= 0) return Status(Code::kUnavailable, "cannot start " + weibod);
    node = Json{{"node", name}, {"endpoint", endpoint}, {"pid", pid}, {"shards", shards}};
  }
  return Status::Ok();
}

// Waits until the broker answers, reports every node alive and routes its shards to it;
// unavailable, with the last
// line of its log, as soon as one of them has exited, or after wait_ms.
// logs_from: the size of each log (by file name) before up started anything, so that
// only this start's lines are quoted.
Status AwaitNodes(const std::string& dir, const Layout& layout, const Json& broker,
                  const Json& nodes, int wait_ms, const std::map<std::string, int64_t>& logs_from) {
  auto tail = [&](const std::string& name) {
    const std::string file = name + ".log";
    auto from = logs_from.find(file);
    std::string last = LogTail(dir + "/" + file, from == logs_from.end() ? 0 : from->second);
    return (last.empty() ? "it wrote nothing to its log" : last) + " (see " + file + ")";
  };
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(wait_ms);
  for (;;) {
    if (!Running(broker.value("pid", int64_t{0})))
      return Status(Code::kUnavailable, "the broker exited: " + tail("broker"));
    Json view = AskBroker(layout.broker, 500);
    bool all = true;
    std::string waiting;
    for (const auto& node : nodes) {
      const std::string name = node.value("node", "");
      if (!Running(node.value("pid", int64_t{0})))
        return Status(Code::kUnavailable, name + " exited: " + tail(name));
      if (!BrokerRoutes(view, name, node.value("pid", int64_t{0}),
                        node.value("shards", std::vector<int>{}))) {
        all = false;
        waiting = name;
      }
    }
    if (all) return Status::Ok();
    if (std::chrono::steady_clock::now() > deadline)
      return Status(Code::kUnavailable,
                    "the nodes did not all answer within " + std::to_string(wait_ms) +
                        " ms: the broker does not route " + waiting + "'s shards to it" +
                        (view.is_object() ? "" : " (the broker does not answer)"));
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
}

// up's output: one line per node, the broker's endpoint last.
void PrintUp(const ClusterOptions& options, const Layout& layout, const Json& nodes) {
  if (!options.print) return;
  for (const auto& node : nodes) {
    std::vector<int> shards = node.value("shards", std::vector<int>{});
    options.print(node.value("node", "") + " " + node.value("endpoint", "") + " pid " +
                  std::to_string(node.value("pid", int64_t{0})) + " shards " + ShardList(shards));
  }
  options.print(layout.broker);
}

}  // namespace

Status ClusterUp(const ClusterOptions& options) {
  const std::string dir = Absolute(options.data_dir);
  Json state;
  if (!ReadJson(StatePath(dir), &state)) state = Json();
  Layout layout;
  Status read = ReadLayout(options, dir, state, &layout);
  if (!read.ok()) return read;
  const std::string weibod = options.weibod.empty() ? WeibodNextToProgram() : options.weibod;
  Json broker = state.is_object() ? state.value("broker", Json::object()) : Json::object();
  Json nodes = state.is_object() ? state.value("node_list", Json::array()) : Json::array();
  std::map<std::string, int64_t> logs_from;
  for (int i = -1; i < layout.nodes; ++i) {
    const std::string file = (i < 0 ? "broker" : "node" + std::to_string(i)) + ".log";
    logs_from[file] = LogSize(dir + "/" + file);
  }
  // The node links' CURVE keys (cluster/curve.h), made once: nodes started later, on this
  // host or another, must hold the same.
  Status started = cluster::MakeCurveKeys(dir);
  if (started.ok()) started = StartBroker(weibod, dir, layout, &broker);
  if (started.ok()) started = StartNodes(weibod, dir, layout, &nodes);
  if (!started.ok()) return started;
  state = Json{{"nodes", layout.nodes},
               {"base_port", layout.base_port},
               {"host", layout.host},
               {"broker", broker},
               {"node_list", nodes}};
  Status written = WriteState(dir, state);
  if (!written.ok()) return written;
  Status answered = AwaitNodes(dir, layout, broker, nodes, options.wait_ms, logs_from);
  if (!answered.ok()) return answered;
  PrintUp(options, layout, nodes);
  return Status::Ok();
}

Result<Json> ClusterDown(const ClusterOptions& options) {
  const std::string dir = Absolute(options.data_dir);
  Json state;
  Json stopped = Json::array();
  if (!ReadJson(StatePath(dir), &state)) return Json{{"stopped", stopped}};  // nothing is up
  std::vector<std::pair<std::string, int64_t>> processes;
  for (const auto& node : state.value("node_list", Json::array()))
    processes.emplace_back(node.value("node", "node"), node.value("pid", int64_t{0}));
  processes.emplace_back("broker", state.value("broker", Json::object()).value("pid", int64_t{0}));
  // Nodes first (they say BYE to the broker), then the broker.
  std::string stuck;
  for (const auto& [name, pid] : processes) {
    if (!Running(pid)) continue;
    kill(static_cast<pid_t>(pid), SIGTERM);
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (Running(pid) && std::chrono::steady_clock::now() < deadline)
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    std::string signal = "SIGTERM";
    if (Running(pid)) {
      kill(static_cast<pid_t>(pid), SIGKILL);
      stuck += " " + std::to_string(pid);
      signal = "SIGKILL";
    }
    stopped.push_back(Json{{"name", name}, {"pid", pid}, {"signal", signal}});
  }
  std::remove(StatePath(dir).c_str());
  if (!stuck.empty()) return Status(Code::kUnavailable, "killed with SIGKILL after 10 s:" + stuck);
  return Json{{"stopped", stopped}};
}

}  // namespace weibo
