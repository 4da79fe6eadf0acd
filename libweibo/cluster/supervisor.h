// weibo-cluster's supervisor (cluster/supervisor.cc): the state file in the data
// directory, the detached daemons it records, and the broker's view of them.
#ifndef WEIBO_CLUSTER_SUPERVISOR_H_
#define WEIBO_CLUSTER_SUPERVISOR_H_

#include <cstdint>
#include <string>
#include <vector>

#include "weibo/cluster.h"

namespace weibo::cluster {

// path made absolute against the working directory (the daemons run elsewhere).
std::string Absolute(const std::string& path);
// The state file of the cluster in dir (weibo-cluster.json).
std::string StatePath(const std::string& dir);
// Reads a JSON object; false when the file is missing or is not one.
bool ReadJson(const std::string& path, Json* out);
// Replaces the state file at once (0600, written aside, then renamed).
Status WriteState(const std::string& dir, const Json& state);

// A running weibod (not a zombie) with this pid.
bool Running(int64_t pid);
// Starts argv detached, its output appended to log; returns the daemon's pid, or -1.
int64_t Spawn(const std::vector<std::string>& argv, const std::string& log);

// The broker's own view of the nodes (the cluster_status request), or null.
Json AskBroker(const std::string& endpoint, int timeout_ms);
// Whether that view has node alive with this pid and routes every one of its shards to
// it: a heartbeat alone does not make a node serve (a shard claimed by another process
// would answer unavailable).
bool BrokerRoutes(const Json& view, const std::string& node, int64_t pid,
                  const std::vector<int>& shards);

}  // namespace weibo::cluster

#endif  // WEIBO_CLUSTER_SUPERVISOR_H_
