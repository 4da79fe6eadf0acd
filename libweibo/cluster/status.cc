// weibo-cluster status (man/weibo-cluster.1): the recorded daemons, checked against /proc
// and against the broker's own view, and their rendering as the command prints it.
#include "cluster/supervisor.h"

namespace weibo {
namespace {

std::string UpOrDown(bool alive) { return alive ? " up" : " down"; }

}  // namespace

Result<Json> ClusterStatus(const ClusterOptions& options) {
  const std::string dir = cluster::Absolute(options.data_dir);
  Json state;
  if (!cluster::ReadJson(cluster::StatePath(dir), &state))
    return Status(Code::kNotFound, "no cluster is recorded in " + options.data_dir +
                                       " (weibo-cluster up starts one)");
  Json broker = state.value("broker", Json::object());
  bool broker_running = cluster::Running(broker.value("pid", int64_t{0}));
  Json view = broker_running ? cluster::AskBroker(broker.value("endpoint", ""), 1000) : Json();
  Json nodes = Json::array();
  for (const auto& node : state.value("node_list", Json::array())) {
    int64_t pid = node.value("pid", int64_t{0});
    const std::string name = node.value("node", "");
    // With the broker down, no node serves: each is alive only as the broker routes it.
    bool alive = cluster::Running(pid) &&
                 cluster::BrokerRoutes(view, name, pid, node.value("shards", std::vector<int>{}));
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

bool ClusterAllUp(const Json& status) {
  bool all = status.value("broker_alive", false);
  for (const auto& node : status.at("nodes")) all = all && node.value("alive", false);
  return all;
}

std::string FormatClusterStatus(const Json& status, bool json) {
  if (json) return status.dump() + "\n";
  std::string out = "broker " + status.value("broker", "") + " pid " +
                    std::to_string(status.value("broker_pid", int64_t{0})) +
                    UpOrDown(status.value("broker_alive", false)) + "\n";
  for (const auto& node : status.at("nodes")) {
    std::string shards;
    for (const auto& s : node.at("shards")) shards += (shards.empty() ? "" : ",") + s.dump();
    out += node.value("node", "") + " " + node.value("endpoint", "") + " pid " +
           std::to_string(node.value("pid", int64_t{0})) + UpOrDown(node.value("alive", false)) +
           " shards " + shards + "\n";
  }
  return out;
}

}  // namespace weibo
