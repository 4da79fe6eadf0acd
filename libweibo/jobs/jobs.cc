#include "jobs/jobs.h"

#include <sqlite3.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstddef>
#include <future>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <thread>

#include "jobs/transport.h"
#include "storage/failure.h"
#include "tables/msg_index.h"

namespace weibo {
namespace {

std::atomic<const JobKinds*> registered_kinds{nullptr};

}  // namespace

int64_t SteadyMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

void RegisterJobKinds(const JobKinds& kinds) { registered_kinds.store(&kinds); }

const JobKind* FindJobKind(const std::string& name) {
  const JobKinds* kinds = registered_kinds.load();
  if (kinds == nullptr) return nullptr;
  for (const JobKind* k = kinds->begin; k != kinds->end; ++k)
    if (name == k->name) return k;
  return nullptr;
}

namespace {

bool SelfIdempotent(const JobRow& job, const Json& payload) {
  const JobKind* kind = FindJobKind(job.kind);
  return kind != nullptr && kind->self_idempotent != nullptr && kind->self_idempotent(payload);
}

}  // namespace

bool SelfIdempotentJob(const JobRow& job) { return SelfIdempotent(job, Json::parse(job.payload)); }

namespace {

// ApplyJobInTxn with the payload already parsed.
bool ApplyParsedInTxn(Context& ctx, Shard& target, const JobRow& job, const Json& payload) {
  const JobKind* kind = FindJobKind(job.kind);
  if (kind == nullptr) Fail(Code::kStorageError, "outbox job of unknown kind " + job.kind);
  if (kind->self_idempotent != nullptr && kind->self_idempotent(payload)) {
    kind->handler(ctx, target, payload);
    return true;
  }
  if (JobApplied(target, job.global_id())) return false;
  kind->handler(ctx, target, payload);
  // A fan-out that held parts stays pending for them (held fan-outs, below): no mark, so
  // that a replay after a crash makes them again.
  if (!ctx.HasFanOutParts()) RecordJobApplied(target, job.global_id(), ctx.now());
  return true;
}

}  // namespace

bool ApplyJobInTxn(Context& ctx, Shard& target, const JobRow& job) {
  return ApplyParsedInTxn(ctx, target, job, Json::parse(job.payload));
}

namespace {

// A transaction that applies jobs with synchronous=FULL but writes nothing (they were applied
// before: a job_applied mark, or inbox rows already there) syncs nothing when it commits. What
// it found may be another process's deferred commit (group commit, below) that no sync has
// reached yet, so the target's WAL is synced before those jobs are marked done; else a power
// cut could lose the application after the mark. Rare: a race or a replay.
class SyncIfNothingWritten {
 public:
  explicit SyncIfNothingWritten(Shard& target)
      : target_(target), before_(sqlite3_total_changes64(target.db())) {}
  // After the commit.
  void Check() {
    if (sqlite3_total_changes64(target_.db()) == before_) target_.SyncWal();
  }

 private:
  Shard& target_;
  int64_t before_;
};

// The done marks need no fsync of their own. A mark lost in a power cut leaves pending a
// job its target has already applied (durably: committed with synchronous=FULL, or synced
// by SyncAppliedJobs, before the mark was written; with its job_applied mark or
// self-idempotent), and applying it again changes nothing; a process crash loses nothing
// at all (the commit is in the OS's hands). So the marks commit with synchronous=NORMAL
// (Sync::kNormal), and the shard's next FULL commit syncs them with it, as the WAL is synced
// as a whole. This saves one fsync per drain and source shard.
void MarkDone(ShardSet& shards, const std::map<int, std::vector<int64_t>>& done) {
  for (auto& [s, ids] : done) {
    Shard& source = shards.At(s);
    WriteTxn txn(source, Sync::kNormal);
    for (int64_t id : ids) MarkJobDone(source, id);
    txn.Commit();
  }
}

// Group commit. A delivery transaction (deliver jobs only, of any shard: the commonest
// transaction there is, one per follower shard and post, and for a large fan-out one per
// tier and shard) commits without an fsync, and its jobs stay pending in their source
// outboxes, remembered in the context's GroupCommit. SyncAppliedJobs later syncs each
// target's WAL once, for every delivery made to it since, and only then marks those jobs
// done. A power cut before that sync may lose deliveries, but never their jobs: they are
// still pending, and are applied again. That holds for every job whose kind writes to its
// target only (JobKind::target_only): what the transaction wrote is lost as a whole (the
// WAL is replayed up to its first missing frame), its job_applied mark and the tier job it
// enqueued on the same shard with it, so nothing is left to say it was applied; and it made
// no job for another shard, which another shard might have applied durably meanwhile. A
// job of the target's own outbox (a tier) is marked done after the sync too, not in its
// transaction. Readers see a delivery at once; only the done mark waits. A server starts the
// sync on a thread of its own once GroupCommit::limit jobs have gathered
// (StartSyncAppliedJobs): the thread fsyncs the targets' WALs through descriptors of its
// own while requests go on writing (what they add is synced too, or by the next sync), and
// the jobs it covers stay pending, and this process's, until a later drain finds it ended
// and marks them done (retwis trace, 10 000 users, hybrid, durability normal: posts
// 2 413-2 547/s to 2 933-2 958/s, p999 25-28 ms to 13 ms; reads 3 719-3 849/s to
// 4 046-4 100/s). A process crash
// loses nothing either (the commits are in the OS's hands; the pending jobs are applied
// again by whoever drains next).
//
// Held fan-outs. In a server that holds deliveries, a push fan-out (flows/fanout.cc: in the
// post's transaction, or a fanout job's) does not write a deliver job for each other shard:
// it holds those deliveries in memory as parts (HeldJob::part), and one fanout job stays
// pending for all of them — the post's, written in its transaction instead of theirs, or
// the fanout job being applied, then neither marked done nor marked applied. Its parts are
// held and applied like held deliveries (their rows were never read anyway), each its own
// target's job as far as the target knows (a tiered part's job_applied mark is the fanout
// job's id: one part per target), and their targets synced like those of any delivery;
// the fanout job is marked done by the sync after its last part is applied (PartApplied).
// A crash before then leaves the fanout job pending, and whoever drains it next makes
// every delivery again: deliveries are idempotent, so this loses nothing and duplicates
// nothing. A post to N other shards writes, reads back and deletes one job instead of N
// (for a post to 100 000 fans, 15 jobs of about 60 KB).
struct Parsed {
  const JobRow* job;
  const Json* payload;  // parsed once: to decide on group commit and to apply
  bool part;            // a held fan-out's part: no row of its own
};

// Some of a target's jobs, in order: one transaction's (ApplyParsed).
struct ParsedRange {
  std::vector<Parsed>::const_iterator first, last;
  std::vector<Parsed>::const_iterator begin() const { return first; }
  std::vector<Parsed>::const_iterator end() const { return last; }
};

// Holds parts, made by a fan-out whose fanout job is parent and now committed.
void HoldFanOut(GroupCommit& group, const JobRow& parent, std::vector<HeldJob> parts) {
  const auto key = std::make_pair(parent.source_shard, parent.local_id);
  group.open_fan_outs[key] += parts.size();
  group.held.emplace(key.first, key.second);
  group.held_delivery_count += parts.size();
  const int64_t now_ms = SteadyMs();
  for (HeldJob& part : parts) {
    part.row.local_id = parent.local_id;
    part.held_ms = now_ms;
    const int target = part.row.target_shard;
    group.held_deliveries[target].push_back(std::move(part));
  }
}

// A part applied to target t in a transaction that may not be synced: its fan-out's job is
// marked done at the sync after its last part.
void PartApplied(GroupCommit& group, const JobRow& part, int t) {
  UnsyncedJobs& unsynced = group.unsynced;
  unsynced.part_targets.insert(t);
  ++unsynced.applied;
  const auto key = std::make_pair(part.source_shard, part.local_id);
  auto it = group.open_fan_outs.find(key);
  if (it == group.open_fan_outs.end() || --it->second > 0) return;
  group.open_fan_outs.erase(it);
  group.held.erase(key);
  unsynced.jobs[key] = t;
}

bool Deferrable(const ParsedRange& group) {
  for (const Parsed& p : group) {
    const JobKind* kind = FindJobKind(p.job->kind);
    if (kind == nullptr || !kind->target_only) return false;
  }
  return true;
}

// Applies a batch of jobs with one transaction per target shard (each job with its
// job_applied mark, so the batch is idempotent job by job), then marks them done with one
// transaction per source shard — or, with group commit, leaves the deliveries pending until
// their targets are synced (above). Jobs of one target keep their order; jobs of different
// targets touch different files and commute. A crash between the two phases leaves jobs
// pending that are already applied: applying them again changes nothing. Returns how many
// were applied now.
// ApplyParsed takes the jobs with their payloads already parsed (whose text is then not
// read). With group_commit, a fanout job may hold its deliveries as parts (held fan-outs,
// above); Parsed::part says that a job is such a part.
int64_t ApplyParsed(Context& ctx, const std::vector<Parsed>& jobs, bool group_commit) {
  std::map<int, std::vector<Parsed>> by_target;
  for (const Parsed& p : jobs) by_target[p.job->target_shard].push_back(p);
  int64_t n = 0;
  std::map<int, std::vector<int64_t>> done;  // source shard -> local ids still to mark
  GroupCommit& held = ctx.group_commit();
  UnsyncedJobs& unsynced = held.unsynced;
  // A background applier commits a target's jobs kChunkedJobs at a time and lets the
  // server's requests take the shard's write lock between two chunks (GroupCommit::chunked).
  const size_t chunk = held.chunked ? kChunkedJobs : std::numeric_limits<size_t>::max();
  for (auto& [t, all] : by_target) {
    for (size_t from = 0; from < all.size(); from += chunk) {
      if (from > 0) std::this_thread::sleep_for(std::chrono::microseconds(kChunkPauseUs));
      const ParsedRange group{
          all.begin() + static_cast<std::ptrdiff_t>(from),
          all.begin() + static_cast<std::ptrdiff_t>(std::min(all.size(), from + chunk))};
      Shard& target = ctx.shards().At(t);
      bool defer = group_commit && Deferrable(group);
      SyncIfNothingWritten found_applied(target);
      WriteTxn txn(target, defer ? Sync::kNormal : Sync::kFull);
      // Jobs of merging kinds, by kind (in table order), applied together after the others.
      std::map<const JobKind*, std::vector<const Json*>> merged;
      std::vector<std::pair<const JobRow*, std::vector<HeldJob>>> opened;  // held fan-outs
      for (const Parsed& p : group) {
        const JobKind* kind = FindJobKind(p.job->kind);
        if (kind != nullptr && kind->merge != nullptr) {
          if (!JobApplied(target, p.job->global_id())) {
            RecordJobApplied(target, p.job->global_id(), ctx.now());
            merged[kind].push_back(p.payload);
            ++n;
          }
        } else {
          Context::FanOutParts scope(ctx, group_commit);
          if (ApplyParsedInTxn(ctx, target, *p.job, *p.payload)) ++n;
          if (ctx.HasFanOutParts()) {  // pending, and not marked done, until they are applied
            opened.emplace_back(p.job, ctx.TakeFanOutParts());
            continue;
          }
        }
        if (defer || p.part) continue;
        if (p.job->source_shard == t)
          MarkJobDone(target, p.job->local_id);
        else
          done[p.job->source_shard].push_back(p.job->local_id);
      }
      for (auto& [kind, payloads] : merged) kind->merge(ctx, target, payloads);
      txn.Commit();
      for (auto& [job, made] : opened) HoldFanOut(held, *job, std::move(made));
      for (const Parsed& p : group) {
        if (p.part) {
          PartApplied(held, *p.job, t);
        } else if (defer) {
          unsynced.jobs[{p.job->source_shard, p.job->local_id}] = t;
          ++unsynced.applied;
        }
      }
      if (!defer) found_applied.Check();
    }
  }
  MarkDone(ctx.shards(), done);
  return n;
}

// ApplyParsed with payloads[k] being jobs[k]'s, and parts[k] (if given) whether it is a part.
int64_t ApplyParsedBatch(Context& ctx, const std::vector<JobRow>& jobs,
                         const std::vector<Json>& payloads, bool group_commit,
                         const std::vector<bool>* parts = nullptr) {
  std::vector<Parsed> parsed;
  parsed.reserve(jobs.size());
  for (size_t k = 0; k < jobs.size(); ++k)
    parsed.push_back(Parsed{&jobs[k], &payloads[k], parts != nullptr && (*parts)[k]});
  return ApplyParsed(ctx, parsed, group_commit);
}

int64_t ApplyBatch(Context& ctx, const std::vector<JobRow>& jobs, bool group_commit) {
  std::vector<Json> payloads;
  payloads.reserve(jobs.size());
  for (const JobRow& job : jobs) payloads.push_back(Json::parse(job.payload));
  return ApplyParsedBatch(ctx, jobs, payloads, group_commit);
}

}  // namespace

bool ApplyDeliveredJob(Context& ctx, const JobRow& job) {
  Shard& target = ctx.shards().At(job.target_shard);
  bool applied = false;
  SyncIfNothingWritten found_applied(target);
  {
    WriteTxn txn(target);
    applied = ApplyJobInTxn(ctx, target, job);
    txn.Commit();
  }
  found_applied.Check();
  DrainCreated(ctx);
  return applied;
}

bool ApplyJob(Context& ctx, const JobRow& job) {
  Shard& target = ctx.shards().At(job.target_shard);
  Shard& source = ctx.shards().At(job.source_shard);
  bool applied = false;
  SyncIfNothingWritten found_applied(target);
  {
    WriteTxn txn(target);
    applied = ApplyJobInTxn(ctx, target, job);
    if (&source == &target) MarkJobDone(source, job.local_id);
    txn.Commit();
  }
  found_applied.Check();
  if (&source != &target) {
    WriteTxn txn(source);
    MarkJobDone(source, job.local_id);
    txn.Commit();
  }
  return applied;
}

// --- cluster hook (jobs/transport.h; the transport itself is cluster/node.cc) ---------------
// Without a transport every job is applied here (ApplyBatch). On a cluster node, a job for
// a shard another node owns goes to the transport and is marked done here only once it was
// acknowledged; a node drains only the outboxes of the shards it owns.
namespace {

bool IsRemote(Context& ctx, const JobRow& job) {
  return ctx.transport() != nullptr && !ctx.transport()->Owns(job.target_shard);
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
bool OwnsShard(Context& ctx, int shard) {
  return ctx.transport() == nullptr || ctx.transport()->Owns(shard);
}
// --- end of the cluster hook ---------------------------------------------------------------

namespace {

// Older pending jobs a drain must take along, per (source, target) pair, at most.
constexpr int64_t kCatchUp = 256;

// Whether a server may hold the job back to merge it across requests (JobKind::deferrable).
bool HeldBack(const JobRow& job) {
  const JobKind* kind = FindJobKind(job.kind);
  return kind != nullptr && kind->merge != nullptr && kind->deferrable;
}

// Jobs of one (source, target) pair are applied in the order they were written: a pair's
// jobs need not commute (a fan_remove applied before the fan_add it undoes would leave a
// fan row behind). A request's own jobs are the newest of their pairs, but a pair may hold
// older pending ones — left by a crash, by --async, or bound for a node that was down. So
// a wave puts those first (same target transaction or same delivery, in order). A pair
// with more than kCatchUp of them is left to the worker or a node's drain, which go
// through each outbox in order: the request's jobs of that pair then stay pending too.
std::vector<JobRow> InOrder(Context& ctx, std::vector<JobRow> own) {
  if (ctx.group_commit().no_catch_up) return own;  // a background applier's (context.h)
  std::map<std::pair<int, int>, int64_t> first;    // (source, target) -> oldest own job id
  std::map<int, int64_t> newest_first;             // source -> the largest of those
  std::set<std::pair<int, int64_t>> mine;          // (source, id) of the own jobs
  for (const JobRow& job : own) {
    auto key = std::make_pair(job.source_shard, job.target_shard);
    auto it = first.find(key);
    if (it == first.end() || job.local_id < it->second) first[key] = job.local_id;
    mine.emplace(job.source_shard, job.local_id);
  }
  for (const auto& [key, id] : first)
    newest_first[key.first] = std::max(newest_first[key.first], id);
  // Jobs this process applied and awaits the sync of (group commit) are pending too, but
  // were applied in order already: they are passed over, not applied again.
  // So are the jobs held back (GroupCommit::held): counter deltas, which commute with
  // every other job and are applied merged later, and index jobs held until idle.
  const GroupCommit& group = ctx.group_commit();
  auto ours = [&](int source, int64_t id) {
    return mine.count({source, id}) > 0 || group.Unsynced(source, id) || group.Held(source, id);
  };
  // One count per source shard: is any pending job below ours someone else's? Usually
  // not: then the pending jobs below are exactly ours, and the count says so without
  // stepping through them (a server holds up to 2 * kMaxDeferred of its own). A job counted
  // as ours is pending unless another process's drain applied it meanwhile; a count that
  // a foreign job then evens out is the race every such check has with a concurrent
  // writer (whose own drain applies its job next), not a leftover of a crash or --async,
  // which this ordering is for.
  std::set<int> behind;  // sources that may hold older pending jobs that are not ours
  for (const auto& [source, below] : newest_first) {
    const int64_t own_below =
        std::distance(mine.lower_bound({source, 0}), mine.lower_bound({source, below}));
    const int64_t known =
        own_below + group.UnsyncedBelow(source, below) + group.HeldBelow(source, below);
    if (CountPendingBelow(ctx.shards().At(source), below) != known) behind.insert(source);
  }
  std::vector<JobRow> out;
  std::set<std::pair<int, int>> held;
  for (const auto& [key, below] : first) {
    if (!behind.count(key.first)) continue;
    auto older = PendingJobsBefore(
        ctx.shards().At(key.first), key.second, below,
        kCatchUp + 1 + static_cast<int64_t>(group.UnsyncedCount() + group.held.size()));
    std::vector<JobRow> todo;
    for (JobRow& job : older)
      if (!ours(job.source_shard, job.local_id)) todo.push_back(std::move(job));
    if (static_cast<int64_t>(todo.size()) > kCatchUp) {
      held.insert(key);
      continue;
    }
    for (JobRow& job : todo) out.push_back(std::move(job));
  }
  for (JobRow& job : own)
    if (!held.count({job.source_shard, job.target_shard})) out.push_back(std::move(job));
  return out;
}

// The rows of refs[from, to) still in their outboxes, by (source shard, local id): read with
// one statement per source shard, the ids of the jobs a request created (or a server held)
// there being nearly consecutive, rather than one statement, and so one read transaction
// with its locks, per job. Ids spread far apart (other writers' jobs between them) are
// read one by one.
std::map<std::pair<int, int64_t>, JobRow> RowsOf(Context& ctx, const std::vector<JobRef>& refs,
                                                 size_t from, size_t to) {
  std::map<int, std::vector<int64_t>> ids;  // source shard -> local ids
  for (size_t k = from; k < to; ++k) ids[refs[k].shard].push_back(refs[k].local_id);
  std::map<std::pair<int, int64_t>, JobRow> rows;
  for (auto& [source, list] : ids) {
    Shard& shard = ctx.shards().At(source);
    const auto [low, high] = std::minmax_element(list.begin(), list.end());
    if (*high - *low < 2 * static_cast<int64_t>(list.size()) + 16) {
      std::set<int64_t> wanted(list.begin(), list.end());
      for (JobRow& row : JobsBetween(shard, *low, *high))
        if (wanted.count(row.local_id))
          rows.emplace(std::make_pair(source, row.local_id), std::move(row));
      continue;
    }
    for (int64_t id : list) {
      JobRow row;
      if (GetJob(shard, id, &row)) rows.emplace(std::make_pair(source, id), std::move(row));
    }
  }
  return rows;
}

void HandOff(Context& ctx, int target);

}  // namespace

int64_t DrainCreated(Context& ctx) {
  int64_t n = 0;
  auto& created = ctx.created_jobs();
  // Wave by wave: the jobs created so far form one batch; the jobs their handlers create
  // (appended to the same list) form the next, so a job is applied after the one that made
  // it (tier 0 deliveries before tier 1, a merge after its fan row). On a cluster node the
  // wave's jobs for other nodes' shards go out together. Each wave first takes the older
  // pending jobs of its (source, target) pairs (InOrder).
  GroupCommit& group = ctx.group_commit();
  bool batched = false;  // whether this drain held a job to be applied in a batch
  int64_t now_ms = 0;    // steady clock, read once a job is held
  size_t next = 0;
  while (next < created.size()) {
    std::vector<JobRow> own, wave, remote;
    std::map<std::pair<int, int64_t>, Json> parsed;  // (source shard, local id) -> payload
    const size_t end = created.size();
    auto rows = RowsOf(ctx, created, next, end);
    // Whether created[k]'s row is still the text this request encoded its job from: then the
    // document kept with it (Context::Enqueue) is taken instead of parsing the row again.
    auto& made = ctx.created_payloads();
    auto kept = [&](size_t k, const JobRow& row) {
      return k < made.size() && made[k].text == row.payload;
    };
    for (; next < end; ++next) {
      auto found = rows.find({created[next].shard, created[next].local_id});
      if (found == rows.end() || found->second.state != 0) continue;
      JobRow row = std::move(found->second);
      rows.erase(found);
      auto bound = ctx.bound_fan_out_parts().find(next);
      if (bound != ctx.bound_fan_out_parts().end() && kept(next, row)) {
        HoldFanOut(group, row, std::move(bound->second));  // a held fan-out's job: pending
        continue;
      }
      // Held with its payload by a server (looked up once): a list join until a batch of
      // them is due, a delivery to another shard until its target's turn.
      const JobKind* kind =
          group.defer_merged && !IsRemote(ctx, row) ? FindJobKind(row.kind) : nullptr;
      if (kind != nullptr &&
          (kind->held_to_batch || (kind->held_for_reads && row.target_shard != row.source_shard))) {
        group.held.emplace(row.source_shard, row.local_id);
        Json payload = kept(next, row) ? std::move(made[next].json) : Json::parse(row.payload);
        row.payload.clear();
        if (now_ms == 0) now_ms = SteadyMs();
        HeldJob held{std::move(row), std::move(payload), false, now_ms};
        if (kind->held_to_batch) {
          group.held_to_batch.push_back(std::move(held));
          batched = true;
        } else {
          ++group.held_delivery_count;
          const int target = held.row.target_shard;
          group.held_deliveries[target].push_back(std::move(held));
        }
        continue;
      }
      if (group.defer_merged && row.target_shard == row.source_shard && HeldBack(row)) {
        if (now_ms == 0) now_ms = SteadyMs();
        if (FindJobKind(row.kind)->until_idle) {
          if (group.held_to_idle.empty()) group.held_to_idle_since_ms = now_ms;
          group.Hold(group.held_to_idle, created[next]);
          continue;
        }
        if (group.deferred.empty()) group.deferred_since_ms = now_ms;
        group.deferred_last_ms = now_ms;
        group.Hold(group.deferred, created[next]);
        continue;
      }
      if (kept(next, row))  // the batch then does not parse it again
        parsed.emplace(std::make_pair(row.source_shard, row.local_id), std::move(made[next].json));
      own.push_back(std::move(row));
    }
    for (JobRow& row : InOrder(ctx, std::move(own)))
      (IsRemote(ctx, row) ? remote : wave).push_back(std::move(row));
    std::vector<Json> payloads;
    payloads.reserve(wave.size());
    for (const JobRow& row : wave) {
      auto kept = parsed.find({row.source_shard, row.local_id});
      payloads.push_back(kept != parsed.end() ? std::move(kept->second) : Json::parse(row.payload));
    }
    n += ApplyParsedBatch(ctx, wave, payloads, true);
    n += DeliverCollected(ctx, &remote);
  }
  created.clear();
  ctx.created_payloads().clear();
  ctx.bound_fan_out_parts().clear();
  if (group.deferred.size() >= kMaxDeferred) n += ApplyDeferredJobs(ctx);
  if (group.held_to_idle.size() >= kMaxDeferred) n += ApplyHeldToIdle(ctx);
  // A background batch that has ended is collected (background applies, below).
  if (group.in_flight &&
      group.in_flight->done.wait_for(std::chrono::seconds(0)) == std::future_status::ready)
    FinishBackgroundApply(group, false);
  // The batch is applied by a request that adds to it (a home read that joins lists), so
  // that its cost falls on the reads whose joins it applies, not on a post. With a
  // background applier it is handed to it, once it is free (at kMaxHeldToBatch: waited for).
  if (batched && (++group.held_to_batch_requests >= kHeldToBatchRequests ||
                  group.held_to_batch.size() >= kMaxHeldToBatch)) {
    if (!group.background) {
      n += ApplyHeldToBatch(ctx);
    } else if (!group.in_flight || group.held_to_batch.size() >= kMaxHeldToBatch) {
      FinishBackgroundApply(group, true);
      HandOff(ctx, -1);
    }
  }
  // Over the limit, one target's deliveries are applied, the next target round the shards
  // each time: a post then pays for one shard's transaction of the posts held since that
  // shard's last one, not for every shard's at once (a post's p99 was the batch of all 16
  // shards). Each transaction still carries many posts' rows; as the held count now stays
  // near the limit rather than falling to 0, rather more of them (and fewer transactions).
  // With a background applier, that target's are handed to it once it is free; at twice
  // the limit, waited for.
  const size_t cap = std::min(kMaxHeldDeliveries, std::max<size_t>(group.limit, 1));
  if (group.background) {
    if (group.held_delivery_count >= cap && !group.held_deliveries.empty() &&
        (!group.in_flight || group.held_delivery_count >= 2 * cap)) {
      FinishBackgroundApply(group, true);
      group.last_held_target = group.NextHeldTarget();
      HandOff(ctx, group.last_held_target);
    }
  } else {
    while (group.held_delivery_count >= cap && !group.held_deliveries.empty()) {
      group.last_held_target = group.NextHeldTarget();
      n += ApplyHeldDeliveries(ctx, group.last_held_target);
    }
  }
  // A sync that has ended is collected here, at the next drain: its jobs are marked done.
  CollectEndedSync(ctx.shards(), group);
  if (!group.unsynced.empty() && group.unsynced.applied >= group.limit) {
    if (group.limit == 0)
      SyncAppliedJobs(ctx.shards(), group);
    else
      StartSyncAppliedJobs(ctx.shards(), group);
  }
  return n;
}

bool DeferredJobsDue(const GroupCommit& group, int64_t now_ms) {
  return !group.deferred.empty() && (group.deferred.size() >= kMaxDeferred ||
                                     now_ms - group.deferred_last_ms >= kDeferredQuietMs ||
                                     now_ms - group.deferred_since_ms >= kDeferredHoldMs);
}

bool DeferredJobsDue(const GroupCommit& group) { return DeferredJobsDue(group, SteadyMs()); }

namespace {

// Applies the held-back jobs refs names (GroupCommit::deferred, held_to_idle), merged, in
// one batch, read from their outboxes (only their refs are kept).
int64_t ApplyHeld(Context& ctx, const std::vector<JobRef>& refs) {
  std::vector<JobRow> rows;
  auto found = RowsOf(ctx, refs, 0, refs.size());
  for (const JobRef& ref : refs) {
    // A drain may have applied it meanwhile (DrainAllPending takes every pending job).
    auto it = found.find({ref.shard, ref.local_id});
    if (it != found.end() && it->second.state == 0) {
      rows.push_back(std::move(it->second));
      found.erase(it);
    }
  }
  return rows.empty() ? 0 : ApplyBatch(ctx, rows, false);
}

}  // namespace

int64_t ApplyDeferredJobs(Context& ctx) {
  std::vector<JobRef> refs;
  refs.swap(ctx.group_commit().deferred);
  GroupCommit& group = ctx.group_commit();
  refs.insert(refs.end(), group.held_to_idle.begin(), group.held_to_idle.end());
  group.held_to_idle.clear();
  group.Release(refs);
  return ApplyHeld(ctx, refs);
}

int64_t ApplyHeldDeliveries(Context& ctx, int target) {
  GroupCommit& group = ctx.group_commit();
  if (target < 0) FinishBackgroundApply(group, true);  // all of them: those in flight first
  // Applied from the held copies: their rows are not read from the outboxes again, nor
  // their payloads parsed again (for a post to 100 000 fans, 15 jobs of about 60 KB each).
  // One that a drain applied meanwhile (DrainAllPending takes every pending job) is
  // applied again as a retried job is: a plain delivery is idempotent by itself (an
  // INSERT OR IGNORE that re-checks the follow and the message), any other kind finds
  // the job_applied mark the drain left on the target (those marks are never deleted).
  std::vector<JobRef> refs;  // of the held jobs with rows of their own
  std::vector<JobRow> rows;
  std::vector<Json> payloads;
  std::vector<bool> parts;
  auto take = [&](std::vector<HeldJob>& list) {
    for (HeldJob& job : list) {
      // A part's fan-out stays held until its last part is applied (PartApplied).
      if (!job.part) refs.push_back({job.row.source_shard, job.row.local_id});
      parts.push_back(job.part);
      rows.push_back(std::move(job.row));
      payloads.push_back(std::move(job.payload));
    }
  };
  if (target < 0) {
    for (auto& [t, list] : group.held_deliveries) take(list);
    group.held_deliveries.clear();
    group.held_readers.clear();
  } else {
    auto it = group.held_deliveries.find(target);
    if (it == group.held_deliveries.end()) return 0;
    take(it->second);
    group.held_deliveries.erase(it);
    group.held_readers.erase(target);
  }
  if (rows.empty()) return 0;
  group.held_delivery_count -= rows.size();
  group.Release(refs);
  int64_t n = 0;
  // A server that keeps inboxes adds these deliveries to them once they are committed,
  // or forgets those readers' inboxes if they fail (GroupCommit::delivered).
  auto delivered = [&](bool applied) {
    if (!group.delivered) return;
    for (size_t k = 0; k < rows.size(); ++k)
      group.delivered(payloads[k], rows[k].target_shard, applied);
  };
  try {
    std::optional<PatchedDeliveries> patched;
    if (group.delivered) patched.emplace();
    n = ApplyParsedBatch(ctx, rows, payloads, true, &parts);
  } catch (const std::exception&) {
    delivered(false);
    // Their jobs are pending (as the released ones are): a held fan-out whose parts were
    // not all applied is no longer this process's to close, but the next drain's to apply
    // again, whole (its other parts, still held, add nothing when applied).
    for (size_t k = 0; k < rows.size(); ++k) {
      if (!parts[k]) continue;
      const auto key = std::make_pair(rows[k].source_shard, rows[k].local_id);
      group.open_fan_outs.erase(key);
      group.held.erase(key);
    }
    throw;
  }
  delivered(true);
  if (!ctx.created_jobs().empty()) n += DrainCreated(ctx);  // the next tiers
  return n;
}

int64_t ApplyHeldToIdle(Context& ctx) {
  std::vector<JobRef> refs;
  refs.swap(ctx.group_commit().held_to_idle);
  ctx.group_commit().Release(refs);
  return ApplyHeld(ctx, refs);
}

int64_t ApplyHeldToBatch(Context& ctx) {
  GroupCommit& group = ctx.group_commit();
  FinishBackgroundApply(group, true);  // joins in flight first
  if (group.held_to_batch.empty()) return 0;
  // Applied from the held copies, as held deliveries are. One that a drain applied
  // meanwhile (DrainAllPending takes every pending job) finds its job_applied mark.
  std::vector<HeldJob> held;
  held.swap(group.held_to_batch);
  group.held_to_batch_requests = 0;
  std::vector<JobRow> rows;
  std::vector<Json> payloads;
  rows.reserve(held.size());
  payloads.reserve(held.size());
  for (HeldJob& job : held) {
    group.held.erase({job.row.source_shard, job.row.local_id});
    rows.push_back(std::move(job.row));
    payloads.push_back(std::move(job.payload));
  }
  int64_t n = ApplyParsedBatch(ctx, rows, payloads, false);
  if (!ctx.created_jobs().empty()) n += DrainCreated(ctx);  // the joins' merges and drops
  return n;
}

namespace {

// The targets to sync for these jobs, and (when done is given) their jobs by source shard.
std::set<int> SyncTargets(const UnsyncedJobs& unsynced,
                          std::map<int, std::vector<int64_t>>* done = nullptr) {
  std::set<int> targets = unsynced.part_targets;
  for (const auto& [job, target] : unsynced.jobs) {
    targets.insert(target);
    if (done != nullptr) (*done)[job.first].push_back(job.second);
  }
  return targets;
}

}  // namespace

void FinishSyncInFlight(ShardSet& shards, GroupCommit& group_commit) {
  if (!group_commit.syncing) return;
  SyncInFlight syncing = std::move(*group_commit.syncing);
  group_commit.syncing.reset();
  // A failed sync leaves its jobs pending and no longer this process's: the next drain
  // applies them again (they are idempotent), as after a crash.
  syncing.done.get();
  std::map<int, std::vector<int64_t>> done;
  SyncTargets(syncing.jobs, &done);
  MarkDone(shards, done);
}

void CollectEndedSync(ShardSet& shards, GroupCommit& group_commit, std::chrono::milliseconds wait) {
  if (group_commit.syncing &&
      group_commit.syncing->done.wait_for(wait) == std::future_status::ready)
    FinishSyncInFlight(shards, group_commit);
}

void StartSyncAppliedJobs(ShardSet& shards, GroupCommit& group_commit) {
  FinishSyncInFlight(shards, group_commit);  // one at a time: the previous one ends first
  UnsyncedJobs& unsynced = group_commit.unsynced;
  if (unsynced.empty()) return;
  std::vector<std::string> wals;
  for (int t : SyncTargets(unsynced)) wals.push_back(shards.At(t).WalPath());
  // The thread touches no connection: it syncs each WAL through a descriptor of its own
  // (storage/shard.h, SyncFile), which flushes the file whoever wrote it. Everything the
  // jobs wrote was committed before it starts; what later commits add is synced too.
  group_commit.syncing.emplace(
      SyncInFlight{std::move(unsynced), std::async(std::launch::async, [wals = std::move(wals)] {
                     for (const std::string& wal : wals) SyncFile(wal);
                   })});
  unsynced = UnsyncedJobs();
}

void SyncAppliedJobs(ShardSet& shards, GroupCommit& group_commit) {
  FinishSyncInFlight(shards, group_commit);
  UnsyncedJobs& unsynced = group_commit.unsynced;
  if (unsynced.empty()) return;
  std::map<int, std::vector<int64_t>> done;  // source shard -> local ids durable once synced
  for (int t : SyncTargets(unsynced, &done)) shards.At(t).SyncWal();
  unsynced = UnsyncedJobs();
  MarkDone(shards, done);
}

// Background applies (jobs.h). The work a server's requests paid for in batches was the
// largest part of their slow tail: on the retwis trace (10 000 users, hybrid, durability
// normal), 6.8 s of posts applying one target's held deliveries (median 3.5 ms) and 8.4 s
// of reads applying 32 readers' list joins, out of 22 s and 24 s. Both kinds commute with
// every other job (jobs.h, JobKind::held_for_reads and held_to_batch), so they may be
// applied at any time, on another connection, while requests go on; the second core does
// them. What had to stay true:
//   - ordering: a batch's jobs stay in GroupCommit::held until collected, so a drain's
//     ordering check (InOrder) still counts them as this process's, and the applier's own
//     drain takes along no older pending job (GroupCommit::no_catch_up): what it creates
//     (the next tiers, merges, drops) commutes too;
//   - reads: a delivery batch stays in the reads' index until collected, and the applier
//     has committed before it ends, so a read sees each delivery from memory, from its
//     row, or both (the page's sources drop duplicates), never neither;
//   - durability: the applier commits its deliveries and merges without an fsync, as
//     group commit does here, and hands them back (UnsyncedJobs): collected, they join this
//     process's unsynced jobs, synced and marked done with them (the applier syncing each
//     batch itself: 1687 reads/s against 2048 on the retwis trace); a held fan-out's parts count as
//     applied when collected (PartApplied), so its fanout job is marked done by this
//     process's next sync; the joins it marks done itself, as ApplyHeldToBatch would;
//   - writers: the applier's transactions and the requests' share each shard's write lock,
//     which SQLite's busy handler waits for (storage/shard.cc, in short sleeps);
//   - the caches: the applier writes no row they hold (inbox rows, list entries, job
//     marks), but its commits move their shards' generations (storage/shard_watch.h).
// Alternated on that trace: posts/s up a third and post p99 down a fifth; reads/s about
// the same, their median up from 0.24 to 0.33 ms (those cache drops, and reads that record
// activity waiting for the applier's transaction on their shard). README, session 34.
// Since session 42 the reads' held marks and activity go to the applier too (Run, through
// flows/timeline.cc's HandOffHeldReads), in batches of many reads: reads that wrote them
// were two fifths of the reads' time on that trace.
BackgroundApplier::BackgroundApplier(const std::string& dir)
    : shards_(std::make_unique<ShardSet>(dir, nullptr)) {
  // Opened here, on the server's thread: whatever watches connections as they open (the
  // bench's probe) sees them there.
  for (int i = 0; i < shards_->count(); ++i) shards_->At(i);
}

BackgroundApplier::~BackgroundApplier() = default;

UnsyncedJobs BackgroundApplier::Apply(
    const std::vector<HeldJob>& jobs, Clock clock,
    std::map<int64_t, std::shared_ptr<const std::vector<int64_t>>> fans_read, bool patched) {
  return Run(
      [&](Context& ctx) {
        ctx.group_commit().fans_read = std::move(fans_read);
        std::vector<Parsed> parsed;
        parsed.reserve(jobs.size());
        for (const HeldJob& job : jobs) parsed.push_back(Parsed{&job.row, &job.payload, job.part});
        std::optional<PatchedDeliveries> quiet;  // this thread's, for these jobs only
        if (patched) quiet.emplace();
        ApplyParsed(ctx, parsed, true);
      },
      clock);
}

UnsyncedJobs BackgroundApplier::Run(const std::function<void(Context&)>& work, Clock clock) {
  Context ctx(*shards_, clock);  // a group commit of its own, never synced here (no limit)
  GroupCommit& group = ctx.group_commit();
  group.limit = std::numeric_limits<size_t>::max();
  group.no_catch_up = true;
  group.chunked = true;
  work(ctx);
  if (!ctx.created_jobs().empty()) DrainCreated(ctx);
  // The checkpoints of the shards it committed to whose WAL has grown past the length, on
  // this thread rather than after the server's next write (ops/embedded.cc, Checkpoint).
  // Meanwhile the server's writes to that shard wait, and its reads go on. A failure loses
  // nothing: the WAL still holds every commit, and a later checkpoint copies it.
  try {
    shards_->CheckpointOpened();
  } catch (const std::exception&) {
  }
  return std::move(group.unsynced);
}

void HandOffReads(Context& ctx, std::shared_ptr<const GroupCommit::HeldReads> reads,
                  std::function<void(Context&)> pay) {
  GroupCommit& group = ctx.group_commit();
  GroupCommit::InFlightApply batch;
  batch.target = GroupCommit::kReadMarks;
  batch.jobs = std::make_shared<const std::vector<HeldJob>>();
  batch.reads = std::move(reads);
  batch.done =
      std::async(std::launch::async, [applier = group.background, clock = ctx.clock(),
                                      pay = std::move(pay)] { return applier->Run(pay, clock); });
  group.in_flight.emplace(std::move(batch));
}

void EnableBackgroundApplies(GroupCommit& group_commit, const std::string& dir) {
  group_commit.background = std::make_shared<BackgroundApplier>(dir);
}

void FinishBackgroundApply(GroupCommit& group, bool wait) {
  if (!group.in_flight) return;
  if (!wait && group.in_flight->done.wait_for(std::chrono::seconds(0)) != std::future_status::ready)
    return;
  GroupCommit::InFlightApply batch = std::move(*group.in_flight);
  group.in_flight.reset();
  std::exception_ptr failed;
  try {
    // Its deliveries and merges join this process's unsynced jobs (its parts are counted
    // below, by PartApplied), to be synced and marked done with them.
    UnsyncedJobs applied = batch.done.get();
    UnsyncedJobs& unsynced = group.unsynced;
    for (const auto& [job, target] : applied.jobs) unsynced.jobs[job] = target;
    unsynced.part_targets.insert(applied.part_targets.begin(), applied.part_targets.end());
    unsynced.applied += applied.applied;
  } catch (...) {
    failed = std::current_exception();
  }
  // A delivery batch's deliveries named no reader (HandOff): the inboxes kept learn them now.
  if (failed && batch.reads && group.reads_unpaid) group.reads_unpaid();
  if (batch.target >= 0 && batch.patched && group.delivered)
    for (const HeldJob& job : *batch.jobs) group.delivered(job.payload, batch.target, !failed);
  for (const HeldJob& job : *batch.jobs) {
    const auto key = std::make_pair(job.row.source_shard, job.row.local_id);
    if (!job.part) {
      group.held.erase(key);
    } else if (failed) {  // the fan-out is the next drain's to make again, whole
      group.open_fan_outs.erase(key);
      group.held.erase(key);
    } else {
      PartApplied(group, job.row, batch.target);
    }
  }
  if (failed) std::rethrow_exception(failed);
}

namespace {

// Hands target's held deliveries (target < 0: the held list joins) to the background
// applier, which must be free.
void HandOff(Context& ctx, int target) {
  GroupCommit& group = ctx.group_commit();
  GroupCommit::InFlightApply batch;
  batch.target = target;
  std::vector<HeldJob> jobs;
  std::map<int64_t, std::shared_ptr<const std::vector<int64_t>>> fans;
  if (target < 0) {
    jobs.swap(group.held_to_batch);
    group.held_to_batch_requests = 0;
  } else {
    auto it = group.held_deliveries.find(target);
    if (it == group.held_deliveries.end()) return;
    jobs = std::move(it->second);
    group.held_deliveries.erase(it);
    auto readers = group.held_readers.find(target);
    if (readers != group.held_readers.end()) {
      batch.readers = std::move(readers->second);
      group.held_readers.erase(readers);
    }
    group.held_delivery_count -= jobs.size();
    fans = group.fans_read;  // the lists its deliveries check their readers against
    batch.patched = static_cast<bool>(group.delivered);
  }
  if (jobs.empty()) return;
  auto shared = std::make_shared<const std::vector<HeldJob>>(std::move(jobs));
  batch.jobs = shared;
  batch.done = std::async(
      std::launch::async,
      [applier = group.background, shared, clock = ctx.clock(), fans = std::move(fans),
       patched = batch.patched] { return applier->Apply(*shared, clock, fans, patched); });
  group.in_flight.emplace(std::move(batch));
}

}  // namespace

bool HandOffOldHeld(Context& ctx) {
  GroupCommit& group = ctx.group_commit();
  if (!group.background) return false;
  FinishBackgroundApply(group, false);
  if (group.in_flight) return false;
  const int64_t due = SteadyMs() - kHeldMaxAgeMs;
  if (!group.held_to_batch.empty() && group.held_to_batch.front().held_ms <= due) {
    HandOff(ctx, -1);
    return true;
  }
  int oldest = -1;
  int64_t oldest_ms = due;
  for (const auto& [target, list] : group.held_deliveries) {
    if (!list.empty() && list.front().held_ms <= oldest_ms) {
      oldest = target;
      oldest_ms = list.front().held_ms;
    }
  }
  if (oldest < 0) return false;
  HandOff(ctx, oldest);
  return true;
}

bool HeldToIdleDue(const GroupCommit& group) {
  return !group.held_to_idle.empty() && SteadyMs() - group.held_to_idle_since_ms >= kHeldMaxAgeMs;
}

int64_t DrainAllPending(Context& ctx, bool keep_held) {
  // A background batch first: its jobs are pending until it has synced them.
  FinishBackgroundApply(ctx.group_commit(), true);
  // This process's applied, unsynced jobs first: synced and marked done, they are not
  // read back below as pending and applied again.
  SyncAppliedJobs(ctx.shards(), ctx.group_commit());
  // The index jobs and deliveries this server holds: its own work in progress, applied
  // first and not counted, as a command applies its own before it returns.
  ApplyHeldToIdle(ctx);
  ApplyHeldDeliveries(ctx);
  ApplyHeldToBatch(ctx);
  // Their jobs too (and the fan-outs whose last parts they were): else read back below.
  SyncAppliedJobs(ctx.shards(), ctx.group_commit());
  int64_t n = 0;
  // The deltas this server holds back: applied first, all together (the loop below takes
  // 256 pending jobs of a shard at a time, and would cost a hot message one UPDATE per
  // 256 of them), or, by the server's own pass (keep_held) while they are not due, passed
  // over: each shard is then read past them with a cursor, as they stay pending.
  std::set<std::pair<int, int64_t>> held;
  if (!keep_held || DeferredJobsDue(ctx.group_commit())) n += ApplyDeferredJobs(ctx);
  if (keep_held)
    for (const JobRef& ref : ctx.group_commit().deferred) held.emplace(ref.shard, ref.local_id);
  std::vector<int64_t> after(ctx.shards().count(), 0);
  // Targets whose owner did not acknowledge a delivery: skipped until the next drain.
  std::vector<bool> stuck(ctx.shards().count(), false);
  int64_t total = 0;  // for a progress bar only: the pending jobs at the start
  if (ctx.reports_progress())
    for (int i = 0; i < ctx.shards().count(); ++i) total += CountJobs(ctx.shards().At(i), 0);
  for (bool more = true; more;) {
    if (total > 0) ctx.Progress("applying pending jobs", n, std::max(total, n));
    more = false;
    for (int i = 0; i < ctx.shards().count(); ++i) {
      if (!OwnsShard(ctx, i)) continue;
      std::vector<JobRow> local, remote;
      std::vector<JobRow> batch = PendingJobs(ctx.shards().At(i), after[i], 256);
      if (!held.empty() && !batch.empty()) {
        after[i] = batch.back().local_id;
        if (batch.size() == 256) more = true;  // more may lie past the held ones
      }
      for (JobRow& row : batch) {
        if (stuck[row.target_shard] || held.count({i, row.local_id})) continue;
        (IsRemote(ctx, row) ? remote : local).push_back(std::move(row));
      }
      if (!local.empty()) {
        more = true;
        n += ApplyBatch(ctx, local, false);
      }
      if (!remote.empty()) {
        int64_t acked = DeliverCollected(ctx, &remote, &stuck);
        if (acked > 0) more = true;
        n += acked;
      }
    }
    n += DrainCreated(ctx);
    SyncAppliedJobs(ctx.shards(), ctx.group_commit());
  }
  if (total > 0) ctx.Progress("applying pending jobs", std::max(total, n), std::max(total, n));
  return n;
}

}  // namespace weibo
