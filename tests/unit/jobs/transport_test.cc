// jobs/transport.h: on a cluster node, the drains apply only jobs whose target the node
// owns, hand the others to the transport, and mark those done only when acknowledged; a
// node drains only the outboxes of its own shards, and a drain whose deliveries fail ends.
#include "jobs/transport.h"

#include "jobs/context.h"
#include "jobs/jobs.h"
#include "storage/shard_set.h"
#include "tables/outbox.h"
#include "test_support.h"

namespace weibo {
namespace {

using test::Cluster;
using test::ClusterOptions;

class FakeTransport : public JobTransport {
 public:
  explicit FakeTransport(std::vector<int> owned) : owned_(std::move(owned)) {}
  bool Owns(int shard) const override {
    return std::find(owned_.begin(), owned_.end(), shard) != owned_.end();
  }
  bool Deliver(const JobRow& job) override {
    delivered.push_back(job);
    return ack;
  }
  bool ack = true;
  std::vector<JobRow> delivered;

 private:
  std::vector<int> owned_;
};

int64_t Pending(ShardSet& set) {
  int64_t n = 0;
  for (int i = 0; i < set.count(); ++i) n += CountJobs(set.At(i), 0);
  return n;
}

TEST_CASE("a node delivers jobs for shards it does not own and marks them done on ack") {
  ClusterOptions o;
  o.drain = false;  // leave the follow's fan_add job pending
  Cluster c(o);
  c.Run("user_add", {{"name", "a"}});  // user 1, shard 1
  c.Run("user_add", {{"name", "b"}});  // user 2, shard 2
  ShardSet set(c.dir(), nullptr);
  {
    Context ctx(set, Clock(test::kNow));
    DrainAllPending(ctx);  // the user_create jobs, as an embedded worker
  }
  c.Run("follow", {{"user", 1}, {"target", 2}});  // fan_add: shard 1 -> shard 2
  REQUIRE(Pending(set) == 1);

  FakeTransport node({1, 3});  // owns the source, not the target
  node.ack = false;
  Context ctx(set, Clock(test::kNow));
  ctx.set_transport(&node);
  CHECK(DrainAllPending(ctx) == 0);  // ends although the job stays pending
  REQUIRE(node.delivered.size() == 1);
  CHECK(node.delivered[0].kind == "fan_add");
  CHECK(node.delivered[0].target_shard == 2);
  CHECK(Pending(set) == 1);

  node.ack = true;
  CHECK(DrainAllPending(ctx) == 1);
  CHECK(Pending(set) == 0);
  CHECK(node.delivered.size() == 2);
}

TEST_CASE("a node drains only the outboxes of the shards it owns") {
  ClusterOptions o;
  o.drain = false;
  Cluster c(o);
  c.Run("user_add", {{"name", "a"}});
  ShardSet set(c.dir(), nullptr);
  const int name_shard = set.ShardOfName("a");
  REQUIRE(Pending(set) == 1);  // user_create, at the name's shard
  FakeTransport other({(name_shard + 1) % 4});
  Context ctx(set, Clock(test::kNow));
  ctx.set_transport(&other);
  CHECK(DrainAllPending(ctx) == 0);
  CHECK(other.delivered.empty());
  CHECK(Pending(set) == 1);
  FakeTransport owner({0, 1, 2, 3});
  ctx.set_transport(&owner);
  CHECK(DrainAllPending(ctx) == 1);
  CHECK(owner.delivered.empty());  // it owns the target too: applied here
  CHECK(Pending(set) == 0);
}

}  // namespace
}  // namespace weibo
