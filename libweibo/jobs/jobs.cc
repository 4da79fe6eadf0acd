#include "jobs/jobs.h"

#include <map>
#include <set>
#include <string>

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
    {"active_join", ApplyActiveJoin},  // flows/active.cc
    {"active_merge", ApplyActiveMerge},
    {"active_drop", ApplyActiveDrop},
};

}  // namespace

JobHandler FindJobHandler(const std::string& kind) {
  for (const auto& k : kJobKinds)
    if (kind == k.kind) return k.handler;
  return nullptr;
}

namespace {

// A plain deliver job (no tiers to enqueue) is idempotent by itself: the inbox key ignores a
// second insert, and its statement re-checks the follow and msg_deleted, so a late second
// application adds nothing an unfollow or a delete has removed (flows/fanout.cc). It needs
// no job_applied mark: one B-tree write less in every delivery transaction, the commonest
// transaction there is. Every other kind (counters, tier chains) is marked.
bool SelfIdempotent(const JobRow& job, const Json& payload) {
  return job.kind == "deliver" && !payload.contains("tiered") && !payload.contains("later");
}

}  // namespace

bool SelfIdempotentJob(const JobRow& job) { return SelfIdempotent(job, Json::parse(job.payload)); }

bool ApplyJobInTxn(Context& ctx, Shard& target, const JobRow& job) {
  JobHandler handler = FindJobHandler(job.kind);
  if (handler == nullptr) Fail(Code::kStorageError, "outbox job of unknown kind " + job.kind);
  Json payload = Json::parse(job.payload);
  if (SelfIdempotent(job, payload)) {
    handler(ctx, target, payload);
    return true;
  }
  if (JobApplied(target, job.global_id())) return false;
  handler(ctx, target, payload);
  RecordJobApplied(target, job.global_id(), ctx.now());
  return true;
}

namespace {

// The done marks need no fsync of their own. A mark lost in a power cut leaves pending a
// job its target has already applied (committed with synchronous=FULL before the mark was
// written, with its job_applied mark or self-idempotent), and applying it again changes
// nothing; a process crash loses
// nothing at all (the commit is in the OS's hands). So the marks commit with
// synchronous=NORMAL, and the shard's next FULL commit syncs them with it, as the WAL is
// synced as a whole. This saves one fsync per drain and source shard.
class MarksWithoutFsync {
 public:
  explicit MarksWithoutFsync(Shard& shard) : shard_(shard) {
    Stmt& s = shard.Query("PRAGMA synchronous");
    level_ = s.Step() ? s.Int(0) : 0;
    s.Reset();
    if (level_ > 1) shard.Query("PRAGMA synchronous=NORMAL").Run();
  }
  ~MarksWithoutFsync() {
    try {
      if (level_ == 2) shard_.Query("PRAGMA synchronous=FULL").Run();
      if (level_ == 3) shard_.Query("PRAGMA synchronous=EXTRA").Run();
    } catch (...) {  // the connection is unusable anyway; its next statement reports it
    }
  }
  MarksWithoutFsync(const MarksWithoutFsync&) = delete;
  MarksWithoutFsync& operator=(const MarksWithoutFsync&) = delete;

 private:
  Shard& shard_;
  int64_t level_ = 0;
};

// Applies a batch of jobs with one transaction per target shard (each job with its
// job_applied mark, so the batch is idempotent job by job), then marks them done with one
// transaction per source shard. Jobs of one target keep their order; jobs of different
// targets touch different files and commute. A crash between the two phases leaves jobs
// pending that are already applied: applying them again changes nothing. Returns how many
// were applied now.
int64_t ApplyBatch(Context& ctx, const std::vector<JobRow>& jobs) {
  std::map<int, std::vector<const JobRow*>> by_target;
  for (const JobRow& job : jobs) by_target[job.target_shard].push_back(&job);
  int64_t n = 0;
  std::map<int, std::vector<int64_t>> done;  // source shard -> local ids still to mark
  for (auto& [t, group] : by_target) {
    Shard& target = ctx.shards().At(t);
    WriteTxn txn(target);
    for (const JobRow* job : group) {
      if (ApplyJobInTxn(ctx, target, *job)) ++n;
      if (job->source_shard == t)
        MarkJobDone(target, job->local_id);
      else
        done[job->source_shard].push_back(job->local_id);
    }
    txn.Commit();
  }
  for (auto& [s, ids] : done) {
    Shard& source = ctx.shards().At(s);
    MarksWithoutFsync relaxed(source);
    WriteTxn txn(source);
    for (int64_t id : ids) MarkJobDone(source, id);
    txn.Commit();
  }
  return n;
}

}  // namespace

bool ApplyJob(Context& ctx, const JobRow& job) {
  Shard& target = ctx.shards().At(job.target_shard);
  Shard& source = ctx.shards().At(job.source_shard);
  bool applied = false;
  {
    WriteTxn txn(target);
    applied = ApplyJobInTxn(ctx, target, job);
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
// Without a transport every job is applied here (ApplyBatch). On a cluster node, a job for
// a shard another node owns goes to the transport and is marked done here only once it was
// acknowledged; a node drains only the outboxes of the shards it owns.
namespace {

bool IsRemote(Context& ctx, const JobRow& job) {
  return ctx.transport() != nullptr && !ctx.transport()->Owns(job.target_shard);
}

bool DrainsSource(Context& ctx, int shard) {
  return ctx.transport() == nullptr || ctx.transport()->Owns(shard);
}

// Delivers the jobs for other nodes' shards that one drain collected, all at once (their
// owners apply them in parallel), and marks the acknowledged ones done, one transaction
// per source shard. The targets of unacknowledged jobs are flagged in *stuck (if given).
// Returns how many were acknowledged.
int64_t DeliverCollected(Context& ctx, std::vector<JobRow>* batch,
                         std::vector<bool>* stuck = nullptr) {
  if (batch->empty()) return 0;
  std::vector<bool> acked;
  ctx.transport()->DeliverBatch(*batch, &acked);
  acked.resize(batch->size(), false);
  std::map<int, std::vector<int64_t>> done;  // source shard -> local ids acknowledged
  for (size_t i = 0; i < batch->size(); ++i) {
    const JobRow& job = (*batch)[i];
    if (acked[i])
      done[job.source_shard].push_back(job.local_id);
    else if (stuck != nullptr)
      (*stuck)[job.target_shard] = true;
  }
  int64_t n = 0;
  for (auto& [s, ids] : done) {
    Shard& source = ctx.shards().At(s);
    WriteTxn txn(source);
    for (int64_t id : ids) MarkJobDone(source, id);
    txn.Commit();
    n += static_cast<int64_t>(ids.size());
  }
  batch->clear();
  return n;
}

}  // namespace
// --- end of the cluster hook ---------------------------------------------------------------

namespace {

// Older pending jobs a drain must take along, per (source, target) pair, at most.
constexpr int64_t kCatchUp = 256;

// Jobs of one (source, target) pair are applied in the order they were written: a pair's
// jobs need not commute (a fan_remove applied before the fan_add it undoes would leave a
// fan row behind). A request's own jobs are the newest of their pairs, but a pair may hold
// older pending ones — left by a crash, by --async, or bound for a node that was down. So
// a wave puts those first (same target transaction or same delivery, in order). A pair
// with more than kCatchUp of them is left to the worker or a node's drain, which go
// through each outbox in order: the request's jobs of that pair then stay pending too.
std::vector<JobRow> InOrder(Context& ctx, std::vector<JobRow> own) {
  std::map<std::pair<int, int>, int64_t> first;  // (source, target) -> oldest own job id
  for (const JobRow& job : own) {
    auto key = std::make_pair(job.source_shard, job.target_shard);
    auto it = first.find(key);
    if (it == first.end() || job.local_id < it->second) first[key] = job.local_id;
  }
  std::vector<JobRow> out;
  std::set<std::pair<int, int>> held;
  std::map<int, int64_t> oldest;  // source shard -> its oldest pending job (one query each)
  for (const auto& [key, below] : first) {
    auto known = oldest.find(key.first);
    if (known == oldest.end())
      known = oldest.emplace(key.first, OldestPendingJob(ctx.shards().At(key.first))).first;
    if (known->second == 0 || known->second >= below) continue;  // nothing older: the usual case
    auto older = PendingJobsBefore(ctx.shards().At(key.first), key.second, below, kCatchUp + 1);
    if (static_cast<int64_t>(older.size()) > kCatchUp) {
      held.insert(key);
      continue;
    }
    for (JobRow& job : older) out.push_back(std::move(job));
  }
  for (JobRow& job : own)
    if (!held.count({job.source_shard, job.target_shard})) out.push_back(std::move(job));
  return out;
}

}  // namespace

int64_t DrainCreated(Context& ctx) {
  int64_t n = 0;
  auto& created = ctx.created_jobs();
  // Wave by wave: the jobs created so far form one batch; the jobs their handlers create
  // (appended to the same list) form the next, so a job is applied after the one that made
  // it (tier 0 deliveries before tier 1, a merge after its fan row). On a cluster node the
  // wave's jobs for other nodes' shards go out together. Each wave first takes the older
  // pending jobs of its (source, target) pairs (InOrder).
  size_t next = 0;
  while (next < created.size()) {
    std::vector<JobRow> own, wave, remote;
    for (size_t end = created.size(); next < end; ++next) {
      JobRow row;
      Shard& source = ctx.shards().At(created[next].shard);
      if (!GetJob(source, created[next].local_id, &row) || row.state != 0) continue;
      own.push_back(std::move(row));
    }
    for (JobRow& row : InOrder(ctx, std::move(own)))
      (IsRemote(ctx, row) ? remote : wave).push_back(std::move(row));
    n += ApplyBatch(ctx, wave);
    n += DeliverCollected(ctx, &remote);
  }
  created.clear();
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
      std::vector<JobRow> local, remote;
      for (JobRow& row : PendingJobs(ctx.shards().At(i), 256)) {
        if (stuck[row.target_shard]) continue;
        (IsRemote(ctx, row) ? remote : local).push_back(std::move(row));
      }
      if (!local.empty()) {
        more = true;
        n += ApplyBatch(ctx, local);
      }
      if (!remote.empty()) {
        int64_t acked = DeliverCollected(ctx, &remote, &stuck);
        if (acked > 0) more = true;
        n += acked;
      }
    }
    n += DrainCreated(ctx);
  }
  return n;
}

}  // namespace weibo
