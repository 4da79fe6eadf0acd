// A cluster of weibod processes (weibo-cluster(1)): nodes that each own some
// shards, and a broker that routes every request to the owner of its home shard.
//
//   RunBroker   the broker: a ROUTER frontend speaking the ordinary protocol (weibod(1)) to
//               clients, and a ROUTER backend where nodes register and heartbeat (the
//               Paranoid Pirate pattern) and where outbox jobs travel between nodes.
//   RunNode     a node: the daemon of weibo/daemon.h restricted to the shards it owns,
//               connected to the broker's backend, draining its outboxes continuously.
//   ClusterUp / ClusterStatus / ClusterDown   weibo-cluster's commands: start (detached),
//               inspect and stop a laptop cluster whose state file is in the data directory;
//               FormatClusterStatus renders what status prints.
#ifndef WEIBO_CLUSTER_H_
#define WEIBO_CLUSTER_H_

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "weibo/daemon.h"
#include "weibo/request.h"
#include "weibo/status.h"

namespace weibo {

struct BrokerOptions {
  std::string frontend = "tcp://127.0.0.1:5550";  // clients connect here
  std::string backend = "tcp://127.0.0.1:5549";   // nodes connect here
  int expiry_ms = 1500;                           // silent this long: the node is dead
  // The layout weibo-cluster up recorded: node name -> the shards it owns. A node claiming
  // a shard the layout gives another is refused, and a shard whose node is down stays
  // that node's (unavailable) until it is back. Empty: a shard goes to the first node
  // that claims it while no live node owns it. Either way a claim for a shard that a live
  // node owns is refused (weibod(1), CLUSTER PROTOCOL, REFUSED).
  std::map<std::string, std::vector<int>> layout;
  size_t max_msg_size = 64 * 1024;
  int max_depth = 32;
  // The nodes check tokens (weibod --auth): the frontend may then bind beyond loopback.
  bool auth = false;
  // Where the cluster's CURVE keys are (cluster/curve.h): with them the backend admits only
  // nodes holding the node key, and may bind beyond loopback; without, it binds loopback
  // only, since anyone reaching it could register as a node.
  std::string data_dir;
  // Requests a second per client and the burst, as weibod --rate (per token under auth,
  // else per client address); 0: no limit. The broker counts for the whole cluster.
  double rate = 0;
  // Where to bind the cluster's PUB socket for the nodes' events (weibod --events); "": none.
  std::string events;
  std::function<void(const std::string& endpoint)> on_ready;  // the frontend, once bound
  std::function<void(const std::string& line)> log;
};

// Routes until SIGTERM or SIGINT. invalid_argument / unavailable for endpoints that
// cannot be bound, as RunDaemon.
Status RunBroker(const BrokerOptions& options);

struct NodeOptions {
  DaemonOptions daemon;         // data_dir; bind: the node's own endpoint; limits; on_ready; log
  std::string join;             // the broker's backend endpoint
  std::string name;             // unique in the cluster, e.g. "node1"
  std::vector<int> shards;      // the shards this node owns
  int heartbeat_ms = 250;       // a heartbeat to the broker this often
  int job_timeout_ms = 3000;    // wait this long for a job's acknowledgement, then retry later
  int drain_interval_ms = 200;  // idle time between passes over the owned outboxes
};

// Serves as one node of a cluster until SIGTERM or SIGINT.
Status RunNode(const NodeOptions& options);

// "1,3,5-7" -> {1,3,5,6,7}; invalid_argument for anything else or a shard >= count when
// count > 0.
Result<std::vector<int>> ParseShardList(const std::string& list, int count);

struct ClusterOptions {
  std::string data_dir = "./shards";
  int nodes = 0;                   // up: K nodes (0: as recorded in the state file)
  int base_port = 5550;            // broker frontend on P, node i on P+1+i, broker backend on P+1+K
  std::string host = "127.0.0.1";  // the address every endpoint binds to
  std::string weibod;              // the weibod binary; empty: next to the running program
  int wait_ms = 15000;             // up: how long to wait for every node to answer
  bool allow_clock = false;        // up: start the nodes with --allow-clock (for tests)
  bool auth = false;               // up: start the broker and the nodes with --auth
  double rate = 0;                 // up: the broker's weibod --rate (per client or token)
  std::string events;              // up: the broker's weibod --events; "": none
  std::function<void(const std::string& line)> print;  // up's output lines
};

// Starts what is not running (the broker, the nodes that are down), detached, and returns
// once every node answers through the broker; prints one line per node and the broker's
// endpoint last.
Status ClusterUp(const ClusterOptions& options);
// {"broker","broker_pid","broker_alive","nodes":[{"node","endpoint","pid","alive","shards"}]};
// not_found with no cluster. A node is alive when its process runs and the broker routes
// every shard of its layout to it (the broker's cluster_status "owners"), not only when it
// heartbeats; broker_alive is false when the broker does not answer.
Result<Json> ClusterStatus(const ClusterOptions& options);
// What weibo-cluster status prints of a ClusterStatus: with json the object on one line;
// else "broker ENDPOINT pid PID up|down", then "NODE ENDPOINT pid PID up|down shards
// S,S,..." for each node; every line ends in a newline.
std::string FormatClusterStatus(const Json& status, bool json);
// Whether the broker and every node of a ClusterStatus are up (status exits 0 only then).
bool ClusterAllUp(const Json& status);
// SIGTERM to every node and the broker, then waits for each to exit; returns what it
// stopped, {"stopped":[{"name":"node0","pid":P,"signal":"SIGTERM"}, ..., the broker last]}
// (empty when nothing was running). unavailable when one needed SIGKILL.
Result<Json> ClusterDown(const ClusterOptions& options);

// The weibod binary next to the running program (in the build tree or where both are
// installed), else "weibod", to be found on PATH.
std::string WeibodNextToProgram();
// The last line of a daemon's log that is not empty ("" for none): why it did not start.
// from: a byte offset; only what was written after it counts (the log is appended to by
// every start, and an earlier process's last line would tell the wrong story).
std::string LogTail(const std::string& path, int64_t from = 0);
// The size of a file, 0 when it does not exist: where a new process's lines begin.
int64_t LogSize(const std::string& path);

}  // namespace weibo

#endif  // WEIBO_CLUSTER_H_
