// cluster/status.cc: what weibo-cluster status prints, and when it counts the cluster up.
#include "test_support.h"
#include "weibo/cluster.h"

namespace weibo {
namespace {

TEST_CASE("status: weibo-cluster status prints one line for the broker, one per node") {
  Json status = {{"broker", "tcp://127.0.0.1:5550"},
                 {"broker_pid", 10},
                 {"broker_alive", true},
                 {"nodes",
                  {{{"node", "node0"},
                    {"endpoint", "tcp://127.0.0.1:5551"},
                    {"pid", 11},
                    {"alive", false},
                    {"shards", {0, 2}}}}}};
  CHECK(FormatClusterStatus(status, false) ==
        "broker tcp://127.0.0.1:5550 pid 10 up\n"
        "node0 tcp://127.0.0.1:5551 pid 11 down shards 0,2\n");
  CHECK(FormatClusterStatus(status, true) == status.dump() + "\n");
  CHECK_FALSE(ClusterAllUp(status));
  status["nodes"][0]["alive"] = true;
  CHECK(ClusterAllUp(status));
}

}  // namespace
}  // namespace weibo
