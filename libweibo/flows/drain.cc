// drain: the op behind weibo-worker. Applies every pending job of every shard (jobs a
// crashed or --async command left behind, and the jobs those create), then reports how
// many are still pending — only jobs enqueued by others meanwhile.
#include "flows/flows.h"
#include "jobs/jobs.h"

namespace weibo {

Json Drain(Context& ctx, const Json&) {
  int64_t applied = DrainAllPending(ctx);
  int64_t pending = 0;
  for (int i = 0; i < ctx.shards().count(); ++i) pending += CountJobs(ctx.shards().At(i), 0);
  return Json{{"applied", applied}, {"pending", pending}};
}

}  // namespace weibo
