// drain: the op behind weibo-worker. Applies every pending job of every shard (jobs a
// crashed or --async command left behind, and the jobs those create), then reports how
// many are still pending — only jobs enqueued by others meanwhile. It also drops the
// last-seen ids of users inactive for 30 days (flows/notify.cc), reported as "expired"
// when there were any, and refreshes weibo-discover's groups when their t seconds are up
// (flows/discover.cc). A daemon whose requests bring their own clock (--allow-clock) asks
// for neither (keep_seen): its own clock is not the data's. A daemon's own periodic pass
// leaves the counter deltas it holds back to merge until they are due (keep_held, jobs.h).
// On a cluster node all of it is about the shards the node owns: the broker sends a
// drain to every node and sums the replies (HomeKey::kEveryNode).
#include "flows/flows.h"
#include "jobs/jobs.h"

namespace weibo {

Json Drain(Context& ctx, const Json& args) {
  int64_t applied = DrainAllPending(ctx, args.value("keep_held", false));
  int64_t pending = 0;
  for (int i = 0; i < ctx.shards().count(); ++i)
    if (OwnsShard(ctx, i)) pending += CountJobs(ctx.shards().At(i), 0);
  Json out{{"applied", applied}, {"pending", pending}};
  if (!args.value("keep_seen", false)) {
    if (int64_t expired = ExpireLastSeen(ctx)) out["expired"] = expired;
    RefreshDiscover(ctx);
  }
  return out;
}

}  // namespace weibo
