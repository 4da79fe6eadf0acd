#include "jobs/jobs.h"

#include "flows/flows.h"
#include "jobs/transport.h"
#include "storage/failure.h"

namespace weibo {
namespace {

struct JobKind {
  const char* kind;
  JobHandler handler;
};

// Every job kind, and the flow file that defines it.
const JobKind kJobKinds[] = {
    {"user_create", ApplyUserCreate},  // flows/user.cc
    {"fan_add", ApplyFanAdd},          // flows/follow.cc
    {"fan_remove", ApplyFanRemove},    // flows/follow.cc
    {"inbox_merge", ApplyInboxMerge},  // flows/follow.cc
    {"fanout", ApplyFanOut},           // flows/fanout.cc
    {"deliver", ApplyDeliver},         // flows/fanout.cc
    {"purge", ApplyPurge},             // flows/fanout.cc
    {"undeliver", ApplyUndeliver},     // flows/fanout.cc
    {"ref_add", ApplyRefAdd},          // flows/comment.cc
    {"ref_remove", ApplyRefRemove},    // flows/delete.cc
};

}  // namespace

JobHandler FindJobHandler(const std::string& kind) {
  for (const auto& k : kJobKinds)
    if (kind == k.kind) return k.handler;
  return nullptr;
}

bool ApplyJob(Context& ctx, const JobRow& job) {
  JobHandler handler = FindJobHandler(job.kind);
  if (handler == nullptr) Fail(Code::kStorageError, "outbox job of unknown kind " + job.kind);
  Shard& target = ctx.shards().At(job.target_shard);
  Shard& source = ctx.shards().At(job.source_shard);
  bool applied = false;
  {
    WriteTxn txn(target);
    if (!JobApplied(target, job.global_id())) {
      handler(ctx, target, Json::parse(job.payload));
      RecordJobApplied(target, job.global_id(), ctx.now());
      applied = true;
    }
    if (&source == &target) MarkJobDone(source, job.local_id);
    txn.Commit();
  }
  if (&source != &target) {
    WriteTxn txn(source);
    MarkJobDone(source, job.local_id);
    txn.Commit();
  }
  return applied;
}

// --- cluster hook (jobs/transport.h; the transport itself is net/node.cc) ---------------
// Without a transport this is ApplyJob. On a cluster node, a job for a shard another node
// owns goes to the transport and is marked done here only once it was acknowledged.
namespace {

enum class Outcome { kApplied, kAlreadyDone, kStillPending };

Outcome Dispatch(Context& ctx, const JobRow& job) {
  JobTransport* transport = ctx.transport();
  if (transport == nullptr || transport->Owns(job.target_shard))
    return ApplyJob(ctx, job) ? Outcome::kApplied : Outcome::kAlreadyDone;
  if (!transport->Deliver(job)) return Outcome::kStillPending;
  Shard& source = ctx.shards().At(job.source_shard);
  WriteTxn txn(source);
  MarkJobDone(source, job.local_id);
  txn.Commit();
  return Outcome::kApplied;
}

// Delivers the jobs for other nodes' shards that one drain collected, all at once (their
// owners apply them in parallel), and marks the acknowledged ones done.
int64_t DeliverCollected(Context& ctx, std::vector<JobRow>* batch) {
  if (batch->empty()) return 0;
  std::vector<bool> acked;
  ctx.transport()->DeliverBatch(*batch, &acked);
  int64_t n = 0;
  // One transaction per source shard marks its acknowledged jobs done.
  std::vector<bool> marked(batch->size(), false);
  for (size_t i = 0; i < batch->size() && i < acked.size(); ++i) {
    if (!acked[i] || marked[i]) continue;
    Shard& source = ctx.shards().At((*batch)[i].source_shard);
    WriteTxn txn(source);
    for (size_t j = i; j < batch->size() && j < acked.size(); ++j) {
      if (!acked[j] || marked[j] || (*batch)[j].source_shard != (*batch)[i].source_shard) continue;
      MarkJobDone(source, (*batch)[j].local_id);
      marked[j] = true;
      ++n;
    }
    txn.Commit();
  }
  batch->clear();
  return n;
}

// A node drains only the outboxes of the shards it owns.
bool DrainsSource(Context& ctx, int shard) {
  return ctx.transport() == nullptr || ctx.transport()->Owns(shard);
}

}  // namespace
// --- end of the cluster hook ---------------------------------------------------------------

int64_t DrainCreated(Context& ctx) {
  int64_t n = 0;
  auto& jobs = ctx.created_jobs();
  std::vector<JobRow> remote;  // cluster: jobs for other nodes' shards, sent together
  // Handlers append to the same list while it is walked: index, not iterator.
  for (size_t i = 0; i < jobs.size(); ++i) {
    JobRow row;
    Shard& source = ctx.shards().At(jobs[i].shard);
    if (!GetJob(source, jobs[i].local_id, &row) || row.state != 0) continue;
    if (ctx.transport() != nullptr && !ctx.transport()->Owns(row.target_shard))
      remote.push_back(row);
    else if (Dispatch(ctx, row) == Outcome::kApplied)
      ++n;
  }
  if (!remote.empty()) n += DeliverCollected(ctx, &remote);
  jobs.clear();
  return n;
}

int64_t DrainAllPending(Context& ctx) {
  int64_t n = 0;
  // Targets whose owner did not acknowledge a delivery: skipped until the next drain.
  std::vector<bool> stuck(ctx.shards().count(), false);
  for (bool more = true; more;) {
    more = false;
    for (int i = 0; i < ctx.shards().count(); ++i) {
      if (!DrainsSource(ctx, i)) continue;
      for (const JobRow& row : PendingJobs(ctx.shards().At(i), 256)) {
        if (stuck[row.target_shard]) continue;
        Outcome outcome = Dispatch(ctx, row);
        if (outcome == Outcome::kApplied) ++n;
        if (outcome == Outcome::kStillPending)
          stuck[row.target_shard] = true;
        else
          more = true;
      }
    }
    n += DrainCreated(ctx);
  }
  return n;
}

}  // namespace weibo
