// ApplyDeliveredJob (jobs/transport.h): a job that reached the owner of its target shard
// from another process. Unlike ApplyJob, it does not mark the job done: the source does,
// on the owner's acknowledgement, in its own process.
#include "jobs/jobs.h"
#include "jobs/transport.h"
#include "storage/shard_set.h"

namespace weibo {

bool ApplyDeliveredJob(Context& ctx, const JobRow& job) {
  Shard& target = ctx.shards().At(job.target_shard);
  bool applied = false;
  {
    WriteTxn txn(target);
    applied = ApplyJobInTxn(ctx, target, job);
    txn.Commit();
  }
  DrainCreated(ctx);
  return applied;
}

}  // namespace weibo
