// Context: what every flow and job handler works with — the shard set, the clock, the
// jobs this request created (to drain before returning), and the shared lookups
// (resolve a user by id or @name, require a message).
#ifndef WEIBO_JOBS_CONTEXT_H_
#define WEIBO_JOBS_CONTEXT_H_

#include <cstdint>
#include <functional>
#include <future>
#include <iterator>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "storage/clock.h"
#include "storage/id_map.h"
#include "storage/shard_set.h"
#include "tables/msg_info.h"
#include "tables/outbox.h"
#include "tables/user_info.h"

namespace weibo {

class JobTransport;       // jobs/transport.h: set on a cluster node only
class CounterCache;       // tables/counter_cache.h: set in a server only
class MessageCache;       // tables/message_cache.h: set in a server only
class SeenCache;          // tables/seen_cache.h: set in a server only
class BackgroundApplier;  // jobs/jobs.h: set in a server that applies in the background

struct JobRef {
  int shard;
  int64_t local_id;
};

// A job held back with its payload (GroupCommit::held_deliveries): a read answers from it
// what the job will write once applied (flows/fanout.cc, HeldInboxIds), and it is applied
// from this copy (jobs.cc, ApplyHeldDeliveries), its row not read or parsed again.
struct HeldJob {
  JobRow row;    // its outbox row, without the payload's text
  Json payload;  // the payload, parsed
  // A part of a held fan-out (jobs.cc, "held fan-outs"): a delivery with no outbox row of
  // its own. row.source_shard and row.local_id then name the fanout job that stays pending
  // for it, and row.target_shard its target.
  bool part = false;
  // When it was held (steady clock, ms): a server under load hands a batch to its
  // background applier once its oldest job is kHeldMaxAgeMs old (jobs.h, HandOffOldHeld).
  int64_t held_ms = 0;
};

// Jobs this process applied in transactions committed without an fsync (jobs.cc, "group
// commit"): still pending in their source outboxes until their targets' WALs are synced.
struct UnsyncedJobs {
  std::map<std::pair<int, int64_t>, int> jobs;  // (source shard, local id) -> target shard
  // The targets of the parts of held fan-outs applied since the last sync (their fanout
  // jobs are in jobs once their last part is applied, with that part's target).
  std::set<int> part_targets;
  // Jobs and parts applied since the last sync, a held fan-out's own job not counted (its
  // parts are): what group commit's limit counts.
  size_t applied = 0;
  bool empty() const { return jobs.empty() && part_targets.empty(); }
  bool count(int source, int64_t id) const { return jobs.count({source, id}) > 0; }
  // How many of source's jobs below `below` are here.
  int64_t CountBelow(int source, int64_t below) const {
    return std::distance(jobs.lower_bound({source, 0}), jobs.lower_bound({source, below}));
  }
};

// A sync of target WALs that runs on a thread of its own (jobs.cc, StartSyncAppliedJobs):
// the jobs it makes durable, still pending in their outboxes until it has ended and they
// are marked done, and its end (a failure rethrown by get()).
struct SyncInFlight {
  UnsyncedJobs jobs;
  std::future<void> done;
};

// Group commit's state, one per open data directory: kept by the executor across its
// requests (ops/embedded.cc), so that deliveries of many requests share one sync.
struct GroupCommit {
  // How many unsynced jobs may gather before a drain syncs them (0: each drain syncs its
  // own before it returns).
  size_t limit = 0;
  UnsyncedJobs unsynced;
  // The jobs of the last limit's worth, while their targets' WALs are synced on another
  // thread (jobs.cc, StartSyncAppliedJobs): this process's still, as unsynced ones are.
  std::optional<SyncInFlight> syncing;
  bool Unsynced(int source, int64_t id) const {
    return unsynced.count(source, id) || (syncing && syncing->jobs.count(source, id));
  }
  int64_t UnsyncedBelow(int source, int64_t below) const {
    return unsynced.CountBelow(source, below) +
           (syncing ? syncing->jobs.CountBelow(source, below) : 0);
  }
  size_t UnsyncedCount() const {
    return unsynced.jobs.size() + (syncing ? syncing->jobs.jobs.size() : 0);
  }
  // Set with a limit by long-running servers (weibod, the nodes, the bench): the jobs of
  // deferrable merging kinds (counter deltas: jobs.h JobKind) that a request made for its
  // own shard are not applied by the request but gathered here, still pending in the
  // outbox, and applied together — one UPDATE per message — by ApplyDeferredJobs (jobs.h).
  bool defer_merged = false;
  std::vector<JobRef> deferred;
  // Held back the same way, but only until the server is idle (Executor::Idle: a daemon
  // after 2 ms without a request; under load, Executor::Tick, once the oldest is
  // kHeldMaxAgeMs old): the kinds whose
  // readers in other processes should not wait for them (JobKind::until_idle: search).
  std::vector<JobRef> held_to_idle;
  // When the oldest and the newest of them were held back (steady clock, ms): Idle()
  // applies them once the newest is kDeferredQuietMs old or the oldest kDeferredHoldMs
  // (jobs.h), not at every pause between two requests.
  int64_t deferred_since_ms = 0;
  int64_t deferred_last_ms = 0;
  // When the oldest of held_to_idle was held (steady clock, ms): under load they are
  // applied once it is kHeldMaxAgeMs old (jobs.h, HeldToIdleDue).
  int64_t held_to_idle_since_ms = 0;
  // Deliveries to this process's other shards (JobKind::held_for_reads) held back the
  // same way, by target shard, in the order made, and applied together, one transaction
  // per target for many posts: before any op that is not known to commute with them
  // (OpSpec::keeps_deliveries_held), when the server is idle (Executor::Idle; under load,
  // Executor::Tick hands a target's to the background applier once the oldest is
  // kHeldMaxAgeMs old) or, once kMaxHeldDeliveries are held, one target's at a time
  // (jobs.cc, DrainCreated; jobs.h, ApplyHeldDeliveries). Meanwhile a home timeline served
  // here reads them from here.
  std::map<int, std::vector<HeldJob>> held_deliveries;
  size_t held_delivery_count = 0;
  // The jobs of kinds held to be applied in a batch (JobKind::held_to_batch: active-list
  // joins), in the order made, kept with their payloads, and applied together, one
  // transaction per target for many requests (jobs.h, ApplyHeldToBatch).
  std::vector<HeldJob> held_to_batch;
  // How many requests' drains held them (jobs.h, kHeldToBatchRequests).
  size_t held_to_batch_requests = 0;
  // Per target, its held deliveries by reader: reader -> (message, author) of each, for the
  // home reads served meanwhile (flows/fanout.cc, HeldInboxIds, which extends it over the
  // jobs held since it last looked: `indexed` of held_deliveries[target] are in it). A read
  // then looks up its reader instead of going through every held job. Dropped with the
  // target's held list when that is applied.
  // Kept as one array of deliveries, each linked to its reader's previous one, and the
  // reader's last: indexing a job allocates nothing (a vector by reader was two allocations
  // a reader and a sixteenth of a home read's time; the reader's last in an unordered_map,
  // a node each, 3%: storage/id_map.h).
  struct HeldReaders {
    size_t indexed = 0;
    struct Delivery {
      int64_t msg_id, author;
      int64_t previous;  // the reader's previous delivery's index; -1: none
    };
    std::vector<Delivery> deliveries;
    IdMap last;  // reader -> its last delivery's index
  };
  std::map<int, HeldReaders> held_readers;
  // A server that keeps its readers' inboxes (tables/message_cache.h): called for each held
  // delivery job once it is committed (applied true) or has failed (false), with its target
  // shard, between requests. Its deliveries are then made inside a PatchedDeliveries scope
  // (tables/msg_index.h), naming no reader, as this call makes up for it (ops/embedded.cc
  // sets it; flows/fanout.cc, PatchInboxes). Empty: they name their readers.
  std::function<void(const Json& payload, int target, bool applied)> delivered;
  // A server that keeps its readers' states (tables/message_cache.h): called when a batch
  // of held reads the background applier was paying has failed, between requests. Their
  // writes name no reader (QuietReaderChanges, tables/user_info.h), as the states took
  // them when they were held; this call forgets the states (ops/embedded.cc sets it).
  std::function<void()> reads_unpaid;
  // A home read's held marks and activity (held_reads, below).
  struct HeldRead {
    int64_t mark = 0;  // the mark's new value; 0: none owed
    bool touch = false, rejoin = false;
    int64_t shown = 0;  // a rejoin's floor: the oldest item of the latest full first page
    int64_t now = 0;    // the latest read's clock
  };
  using HeldReads = std::map<int, std::unordered_map<int64_t, HeldRead>>;  // shard -> reader
  // Background applies (jobs.cc): a server with a background applier hands it one batch
  // at a time, one target's held deliveries, the held list joins or the held read marks,
  // instead of applying it on the request's thread. The batch's jobs stay in held, and a delivery
  // batch stays in the reads' index (readers, over jobs), until a later drain finds it ended and
  // collects it (FinishBackgroundApply); jobs is not changed while the thread reads it.
  static constexpr int kReadMarks = -2;
  struct InFlightApply {
    int target = -1;  // a delivery batch's target shard; -1: list joins; kReadMarks
    std::shared_ptr<const std::vector<HeldJob>> jobs;
    HeldReaders readers;
    bool patched = false;  // its deliveries name no reader: collected, they go to delivered
    // A batch of read marks (target kReadMarks): what it writes, which the reads served
    // meanwhile see as they see held_reads (flows/timeline.cc, HeldMark); jobs is empty.
    std::shared_ptr<const HeldReads> reads;
    // Ends with the jobs the applier applied without a sync (group commit's, as here):
    // this process's to sync and mark done, once collected.
    std::future<UnsyncedJobs> done;
  };
  std::shared_ptr<BackgroundApplier> background;  // before in_flight: outlives its thread
  std::optional<InFlightApply> in_flight;
  // Set in a background applier's own group commit: it applies held jobs, which commute
  // with every other job, and the jobs they create (the next tiers, the joins' merges and
  // drops), which commute too: a drain there takes along no older pending job of their
  // (source, target) pairs (jobs.cc, InOrder), which may be the server's own held ones.
  bool no_catch_up = false;
  // Set there too: a target's jobs are committed kChunkedJobs at a time, with a pause
  // between two transactions in which a request waiting for the shard's write lock takes it
  // (jobs.cc, ApplyParsed).
  bool chunked = false;
  // The target whose held deliveries were applied last for being over the limit: the next
  // one is the first held target after it, round the shards (NextHeldTarget).
  int last_held_target = -1;
  int NextHeldTarget() const {
    auto it = held_deliveries.upper_bound(last_held_target);
    return (it != held_deliveries.end() ? it : held_deliveries.begin())->first;
  }
  // The (source shard, local id) of every job in deferred, held_to_idle, held_deliveries
  // and held_to_batch, kept as they are held and released (Hold, Release), so that a drain's
  // ordering check looks them up rather than rebuilding a set of up to 2 * kMaxDeferred per wave.
  class HeldSet {
   public:
    void emplace(int source, int64_t id) {
      if (set_.emplace(source, id).second) ++per_source_[source];
    }
    void erase(const std::pair<int, int64_t>& key) {
      if (set_.erase(key) > 0 && --per_source_[key.first] == 0) per_source_.erase(key.first);
    }
    size_t count(const std::pair<int, int64_t>& key) const { return set_.count(key); }
    size_t size() const { return set_.size(); }
    // How many of source's are below `below`. The ordering check asks it once per source
    // and drain wave with the wave's newest job, most often above every held one: that is
    // the source's count, without a walk through its hundreds of held deliveries.
    int64_t Below(int source, int64_t below) const {
      auto n = per_source_.find(source);
      if (n == per_source_.end()) return 0;
      auto past = set_.lower_bound({source + 1, std::numeric_limits<int64_t>::min()});
      if (std::prev(past)->second < below) return static_cast<int64_t>(n->second);
      return std::distance(set_.lower_bound({source, 0}), set_.lower_bound({source, below}));
    }

   private:
    std::set<std::pair<int, int64_t>> set_;
    std::map<int, size_t> per_source_;
  };
  HeldSet held;
  void Hold(std::vector<JobRef>& list, const JobRef& ref) {
    list.push_back(ref);
    held.emplace(ref.shard, ref.local_id);
  }
  void Release(const std::vector<JobRef>& refs) {
    for (const JobRef& ref : refs) held.erase({ref.shard, ref.local_id});
  }
  bool Held(int source, int64_t id) const { return held.count({source, id}) > 0; }
  // The held fan-outs (jobs.cc): (source shard, local id) of each one's fanout job, which
  // is in held meanwhile -> how many of its parts are not applied yet.
  std::map<std::pair<int, int64_t>, size_t> open_fan_outs;
  int64_t HeldBelow(int source, int64_t below) const { return held.Below(source, below); }
  // What the home reads served here owe and have not yet written (flows/timeline.cc,
  // Hold), with defer_merged set: the red dot's mark and the reader's activity, by the
  // reader's shard, then by reader, merged (the highest mark, the latest read). They are
  // written together, one transaction per shard for many reads (PayHeldReads), once
  // kHeldReadsPerShard readers of a shard have gathered (without a background applier, at
  // once when a read rejoins the active lists, which decides whom its authors push to),
  // before any op that does not keep deliveries held, and when the server is idle or
  // closes; with a background applier, by the applier (InFlightApply::reads). A crash loses them,
  // as a power cut loses a read's mark written without an fsync: the dot shows again what was seen,
  // and the next read records the activity. Reads served here see them meanwhile.
  HeldReads held_reads;
  // When the oldest of them was held (steady clock, ms): under load a server's Tick hands
  // them to the background applier only once it is kHeldMaxAgeMs old (flows/flows.h,
  // HandOffHeldReads), so that a batch carries many reads, not the few of 50 ms.
  int64_t held_reads_since_ms = 0;
  // The fan lists the fan-outs of this process's requests read (Context::RememberFans), by
  // message, kept while deliveries are held: a held delivery applied later, by another
  // request or at idle, checks its readers against the list as its own request would have
  // (flows/fanout.cc). Dropped at the end of a request that leaves nothing held.
  std::map<int64_t, std::shared_ptr<const std::vector<int64_t>>> fans_read;
};

class Context {
 public:
  // A context with group commit of its own, off: its drains sync what they deliver.
  Context(ShardSet& shards, Clock clock) : shards_(shards), clock_(clock) {}
  // A context sharing the executor's group commit.
  Context(ShardSet& shards, Clock clock, GroupCommit& group_commit)
      : shards_(shards), clock_(clock), group_commit_(&group_commit) {}
  ~Context() {
    if (group_commit_->held_deliveries.empty()) group_commit_->fans_read.clear();
  }
  Context(const Context&) = delete;
  Context& operator=(const Context&) = delete;

  ShardSet& shards() { return shards_; }
  GroupCommit& group_commit() { return *group_commit_; }
  const ClusterConfig& config() const { return shards_.config(); }
  int64_t now() const { return clock_.NowMs(); }
  Clock clock() const { return clock_; }

  // Writes a job into source's open transaction and remembers it for draining.
  void Enqueue(Shard& source, int target, const char* kind, Json payload);
  std::vector<JobRef>& created_jobs() { return created_; }
  // The payload of each created job as this request made it, at the same index as its
  // JobRef: the outbox row's text and the document it was written from. A drain that
  // holds a delivery (jobs.cc, DrainCreated) takes the document instead of parsing the
  // row's text again, when that text is the same (a job whose transaction rolled back
  // leaves its JobRef behind, and a later job may reuse its id).
  struct CreatedPayload {
    std::string text;
    Json json;
  };
  std::vector<CreatedPayload>& created_payloads() { return created_payloads_; }

  // Held fan-outs (jobs.cc). While a FanOutParts is in scope, in a server that holds
  // deliveries (GroupCommit::defer_merged), a fan-out may hold its deliveries to other
  // shards here as parts (HoldFanOutPart) instead of writing a deliver job for each; the
  // caller then takes them (TakeFanOutParts) and keeps one fanout job pending for them.
  class FanOutParts {
   public:
    FanOutParts(Context& ctx, bool allow) : ctx_(ctx), was_(ctx.parts_allowed_) {
      ctx_.parts_allowed_ = allow && ctx_.group_commit_->defer_merged;
      outer_.swap(ctx_.parts_);  // a job's handler may post (flows/message_write.cc)
    }
    ~FanOutParts() {  // parts not taken are dropped: the transaction failed
      ctx_.parts_allowed_ = was_;
      ctx_.parts_.swap(outer_);
    }
    FanOutParts(const FanOutParts&) = delete;
    FanOutParts& operator=(const FanOutParts&) = delete;

   private:
    Context& ctx_;
    bool was_;
    std::vector<HeldJob> outer_;
  };
  bool HoldsFanOutParts() const { return parts_allowed_; }
  void HoldFanOutPart(Shard& source, int target, const char* kind, Json payload);
  bool HasFanOutParts() const { return !parts_.empty(); }
  std::vector<HeldJob> TakeFanOutParts() {
    std::vector<HeldJob> parts;
    parts.swap(parts_);
    return parts;
  }
  // Binds parts to the job this request created last (its fanout job, in the same
  // transaction): DrainCreated holds them once it finds that job's row committed.
  void BindFanOutParts(std::vector<HeldJob> parts) {
    bound_parts_[created_.size() - 1] = std::move(parts);
  }
  // Index in created_jobs() -> the parts bound to that job.
  std::map<size_t, std::vector<HeldJob>>& bound_fan_out_parts() { return bound_parts_; }
  // Applies the jobs this request created, unless --async asked not to (SPEC §5). A flow
  // calls it once its own transaction has committed, so it does not fail: the write is
  // done. When applying a job fails (a target shard missing, the disk full), what is left
  // pending stays in the outbox for weibo-worker or a daemon, and warnings() says how
  // many jobs that is and why (weibo(7), WRITES THAT LEAVE JOBS PENDING).
  void Settle();
  void set_drain(bool drain) { drain_ = drain; }
  // A cluster node's job transport (jobs/transport.h), or nullptr when embedded.
  JobTransport* transport() const { return transport_; }
  void set_transport(JobTransport* transport) { transport_ = transport; }

  // The server's hot counters (tables/counter_cache.h), or nullptr: every read is cold.
  CounterCache* counter_cache() const { return counter_cache_; }
  void set_counter_cache(CounterCache* cache) { counter_cache_ = cache; }
  // The server's last-read ids (tables/seen_cache.h), or nullptr: every unread reads a row.
  SeenCache* seen_cache() const { return seen_cache_; }
  void set_seen_cache(SeenCache* cache) { seen_cache_ = cache; }
  // The server's page rows of recently shown messages (tables/message_cache.h), or nullptr:
  // every page reads its rows from the shards.
  MessageCache* message_cache() const { return message_cache_; }
  void set_message_cache(MessageCache* cache) { message_cache_ = cache; }

  // Where the events of the jobs applied here go (EmbeddedOptions::on_event); none by default.
  void set_event_sink(std::function<void(const Json&)> sink) { event_sink_ = std::move(sink); }
  void Publish(const Json& event) const {
    if (event_sink_) event_sink_(event);
  }

  // The request's id, op and fingerprint (weibo::Request::id, RequestFingerprint in
  // tables/request_log.h): empty id when embedded.
  void set_request(std::string id, std::string op, std::string fingerprint) {
    request_id_ = std::move(id);
    request_op_ = std::move(op);
    request_fingerprint_ = std::move(fingerprint);
  }
  const std::string& request_id() const { return request_id_; }
  // How far a long op has got (EmbeddedOptions::progress): stage, steps done, steps in all.
  using ProgressFn = std::function<void(const char* stage, int64_t done, int64_t total)>;
  void set_progress(ProgressFn progress) { progress_ = std::move(progress); }
  bool reports_progress() const { return static_cast<bool>(progress_); }
  void Progress(const char* stage, int64_t done, int64_t total) {
    if (progress_) progress_(stage, done, total);
  }
  // The durable dedup window (tables/request_log.h). Replayed: when this request's id is
  // already recorded on home for the same op and args, its recorded result (the created
  // message or user id, or 0) — the request was applied before and must apply nothing
  // now. The id recorded with another op or other args: Failure(invalid_request, "request
  // id reused"), since answering the first request's reply would swallow this one. Call it
  // inside home's write transaction, before any write, to be exact; a call before the
  // transaction is only a shortcut. Always nullopt without an id.
  std::optional<int64_t> Replayed(Shard& home);
  // In home's open write transaction: records this request's id with result (nothing
  // without an id).
  void RecordApplied(Shard& home, int64_t result);
  // Settle for a replayed request: the first run may have died before its jobs (or the
  // jobs they create) were applied, and their ids are not known here, so this applies
  // every pending job (as weibo-worker does; idempotent), unless --async. Does not fail
  // either (Settle).
  void SettleReplayed();
  // The warnings of Settle and SettleReplayed, one line each (Executor::Warnings).
  const std::vector<std::string>& warnings() const { return warnings_; }
  // Adds a warning for the reply: something after the op's own work failed, costing the
  // op nothing (flows/timeline.cc: a server's held read marks).
  void Warn(std::string warning) { warnings_.push_back(std::move(warning)); }

  // The fan list a fan-out of this request read for a message, sorted, in a transaction in
  // which the message existed (flows/fanout.cc). The deliveries this request applies for
  // that message check their readers against it instead of reading the author's shard
  // again: a read made before the delivery's own transaction, as every such check is. Kept
  // in the group commit, so that the deliveries it holds back use it too.
  void RememberFans(int64_t msg_id, std::vector<int64_t> fans) {
    group_commit_->fans_read[msg_id] =
        std::make_shared<const std::vector<int64_t>>(std::move(fans));
  }
  // The list RememberFans kept for the message (in this request or one whose deliveries
  // are still held), or nullptr.
  const std::vector<int64_t>* FansRead(int64_t msg_id) const {
    auto it = group_commit_->fans_read.find(msg_id);
    return it == group_commit_->fans_read.end() ? nullptr : it->second.get();
  }

  // A user given as a number or "@name"; Failure(not_found) when there is none.
  int64_t ResolveUser(const Json& arg);
  // The id a user argument names, without checking that an id names a user (a name is
  // looked up, so it does): for a flow that finds a row only an existing user has first.
  int64_t UserIdOf(const Json& arg);
  UserRow RequireUser(int64_t id);
  // The live message; Failure(archived) when weibo-archive moved it out of its shard (a
  // write to it is refused: weibo(7), ARCHIVE), else Failure(not_found) when there is none.
  MsgRow RequireMsg(int64_t id);
  // The failure of a write to a message that is not live: RequireMsg's two cases.
  [[noreturn]] void MsgGone(int64_t id);

 private:
  // Runs drain (Settle's, SettleReplayed's); a failure is kept as a warning (LeftPending).
  void Drain(int64_t (*drain)(Context&));
  // After a drain failed with `cause`: counts the created jobs still pending into a warning.
  void LeftPending(const std::exception& cause);
  ShardSet& shards_;
  Clock clock_;
  GroupCommit own_group_commit_;
  GroupCommit* group_commit_ = &own_group_commit_;
  std::vector<JobRef> created_;
  std::vector<CreatedPayload> created_payloads_;        // one per created_ entry
  bool parts_allowed_ = false;                          // FanOutParts
  std::vector<HeldJob> parts_;                          // HoldFanOutPart, not yet taken
  std::map<size_t, std::vector<HeldJob>> bound_parts_;  // BindFanOutParts
  bool drain_ = true;
  JobTransport* transport_ = nullptr;
  CounterCache* counter_cache_ = nullptr;
  SeenCache* seen_cache_ = nullptr;
  MessageCache* message_cache_ = nullptr;
  std::string request_id_, request_op_, request_fingerprint_;
  std::vector<std::string> warnings_;
  std::function<void(const Json&)> event_sink_;
  ProgressFn progress_;
};

}  // namespace weibo

#endif  // WEIBO_JOBS_CONTEXT_H_
