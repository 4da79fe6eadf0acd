// Applying outbox jobs (SPEC §5). A job is applied on its target shard in one transaction
// together with its job_applied mark, then marked done on its source shard. Handlers may
// enqueue further jobs into the target's transaction (a fan-out becomes one deliver job
// per shard); DrainCreated follows those too. With group commit (ShardSet::group_commit),
// plain deliveries to other shards commit without an fsync and are marked done only after
// one shared sync of each target's WAL (SyncAppliedJobs; the reasoning is in jobs.cc).
#ifndef WEIBO_JOBS_JOBS_H_
#define WEIBO_JOBS_JOBS_H_

#include <cstdint>

#include "flows/context.h"
#include "tables/outbox.h"

namespace weibo {

// Applies one job idempotently and marks it done. False when its job_applied mark shows it
// was applied before; a self-idempotent job (below) has no mark and always gives true.
bool ApplyJob(Context& ctx, const JobRow& job);
// Applies one job inside the target's open write transaction, with its job_applied mark
// unless it is self-idempotent; false when the mark shows it was applied before.
bool ApplyJobInTxn(Context& ctx, Shard& target, const JobRow& job);
// Whether applying the job twice is harmless without a job_applied mark (a plain deliver).
bool SelfIdempotentJob(const JobRow& job);
// Applies every job the context created (and the jobs those create); returns how many.
int64_t DrainCreated(Context& ctx);
// Applies every pending job of every shard (worker, fsck --repair); returns how many.
int64_t DrainAllPending(Context& ctx);
// Group commit (jobs.cc): syncs the WAL of every shard this process delivered to without
// an fsync, then marks those jobs done. DrainCreated calls it once ShardSet::group_commit()
// such jobs have gathered (at once when that is 0); a server calls it through
// Executor::Idle() when idle and at least every few tens of milliseconds, and a closing
// executor calls it too.
void SyncAppliedJobs(ShardSet& shards);

// Handler of one job kind: runs inside the target shard's write transaction.
using JobHandler = void (*)(Context& ctx, Shard& target, const Json& payload);
JobHandler FindJobHandler(const std::string& kind);

}  // namespace weibo

#endif  // WEIBO_JOBS_JOBS_H_
