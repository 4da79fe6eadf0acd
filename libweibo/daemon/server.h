// What weibod's start-up (daemon/server.cc) shares with a cluster node's (cluster/node.cc).
#ifndef WEIBO_DAEMON_SERVER_H_
#define WEIBO_DAEMON_SERVER_H_

#include <string>
#include <vector>

#include "weibo/status.h"

namespace weibo::daemon {

// Opens every shard of the cluster in dir once, so a daemon on a bad directory fails at
// start, not at its first request; first checks that each of the shards `owned` (a
// node's) exists. invalid_argument for a shard that does not, storage_error (or the
// shard's own code) for a directory or shard that cannot be opened.
Status CheckCluster(const std::string& dir, const std::vector<int>& owned = {});

}  // namespace weibo::daemon

#endif  // WEIBO_DAEMON_SERVER_H_
