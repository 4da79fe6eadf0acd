// Applying outbox jobs (SPEC §5). A job is applied on its target shard in one transaction
// together with its job_applied mark, then marked done on its source shard. Handlers may
// enqueue further jobs into the target's transaction (a fan-out becomes one deliver job
// per shard); DrainCreated follows those too. With group commit (GroupCommit, context.h),
// plain deliveries to other shards commit without an fsync and are marked done only after
// one shared sync of each target's WAL (SyncAppliedJobs; the reasoning is in jobs.cc).
#ifndef WEIBO_JOBS_JOBS_H_
#define WEIBO_JOBS_JOBS_H_

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "jobs/context.h"
#include "tables/outbox.h"

namespace weibo {

// Applies one job idempotently and marks it done. False when its job_applied mark shows it
// was applied before; a self-idempotent job (below) has no mark and always gives true.
bool ApplyJob(Context& ctx, const JobRow& job);
// Applies one job inside the target's open write transaction, with its job_applied mark
// unless it is self-idempotent; false when the mark shows it was applied before.
bool ApplyJobInTxn(Context& ctx, Shard& target, const JobRow& job);
// Whether applying the job twice is harmless without a job_applied mark (its kind says).
bool SelfIdempotentJob(const JobRow& job);
// Applies a job another process sent here (a cluster node's: its target shard is this
// process's, its source another's) in its own transaction on the target, without marking it
// done — the source does, on the acknowledgement — then drains the jobs it created. False
// when its job_applied mark shows it was applied before.
bool ApplyDeliveredJob(Context& ctx, const JobRow& job);
// Applies every job the context created (and the jobs those create); returns how many.
int64_t DrainCreated(Context& ctx);
// Applies every pending job of every shard (worker, fsck --repair); returns how many. On a
// cluster node only the outboxes of the shards it owns (OwnsShard). keep_held: a server's
// own periodic pass, which leaves the counter deltas this process holds back
// (GroupCommit::deferred) pending until they are due, so that they merge; any other drain
// (a drain request, fsck) applies them too.
int64_t DrainAllPending(Context& ctx, bool keep_held = false);
// Whether this process drains the shard's outbox: every shard, but on a cluster node only
// its own (the context's JobTransport says which).
bool OwnsShard(Context& ctx, int shard);
// Group commit (jobs.cc): syncs the WAL of every shard this process delivered to without
// an fsync, then marks those jobs done. DrainCreated calls it once GroupCommit::limit
// such jobs have gathered (at once when that is 0); a server calls it through
// Executor::Idle() when idle and at least every few tens of milliseconds, and a closing
// executor calls it too.
// It first ends a sync started by StartSyncAppliedJobs.
void SyncAppliedJobs(ShardSet& shards, GroupCommit& group_commit);
// The same sync, on a thread of its own: the WALs are synced while the caller goes on,
// and the jobs stay pending (and this process's: GroupCommit::syncing) until it has ended
// and FinishSyncInFlight marks them done — at a later drain, or first thing in the next
// sync. A server's DrainCreated starts one once GroupCommit::limit jobs have gathered, so
// that no request waits for the fsyncs of 16 WALs (weibo(7), STORAGE AND THE WAL-RESET BUG).
void StartSyncAppliedJobs(ShardSet& shards, GroupCommit& group_commit);
// Waits for the sync StartSyncAppliedJobs started, if any, and marks its jobs done;
// rethrows its failure (the jobs then stay pending, to be applied again).
void FinishSyncInFlight(ShardSet& shards, GroupCommit& group_commit);
// The same once that sync has ended, waiting at most `wait` for it.
void CollectEndedSync(ShardSet& shards, GroupCommit& group_commit,
                      std::chrono::milliseconds wait = std::chrono::milliseconds(0));
// Applies the jobs deferred in the context's GroupCommit (defer_merged), merged; returns how
// many. A server calls it through Executor::Idle(), fsck before it looks, and DrainCreated
// once kMaxDeferred have gathered. A crash before loses nothing: they are pending.
int64_t ApplyDeferredJobs(Context& ctx);
constexpr size_t kMaxDeferred = 4096;
// Applies the jobs held only until the server is idle (GroupCommit::held_to_idle), merged;
// returns how many. Executor::Idle() calls it, the search op before it reads, a drain
// before it looks, ApplyDeferredJobs too, and DrainCreated once kMaxDeferred have gathered.
int64_t ApplyHeldToIdle(Context& ctx);
// Applies the jobs held to be applied in a batch (GroupCommit::held_to_batch), one
// transaction per target, and the jobs they create; returns how many. Executor::Idle()
// calls it, an op that is not known to commute with held jobs before it runs, a drain
// before it looks, and DrainCreated once enough have gathered (below). A crash before
// loses nothing: they are pending in their outboxes.
int64_t ApplyHeldToBatch(Context& ctx);
// A request that holds such jobs applies them once kHeldToBatchRequests requests (first
// home reads) have held some since the last batch, or kMaxHeldToBatch jobs are held: each
// author shard's transaction then carries the joins of many readers rather than one's,
// while a small trace (weibo-sim's) still sees its joins applied as it runs. Counted, not
// timed, so that a replay's results do not depend on the machine's speed.
constexpr size_t kHeldToBatchRequests = 32;
constexpr size_t kMaxHeldToBatch = 2048;
// Applies the deliveries a server holds back (GroupCommit::held_deliveries) for one
// target shard, or for every target when target < 0, with group commit, and the jobs
// they create (the next tiers); returns how many. A crash before loses nothing: they are
// pending in their source outboxes, and each is applied as if it had never been held (a
// delivery re-checks its readers and its message when it is applied: flows/fanout.cc).
// They are applied from the copies held (HeldJob), not read from the outboxes again; one
// that a drain applied meanwhile is applied again only as any job is: a plain delivery is
// idempotent by itself (it re-checks its readers and its message), another kind finds
// its job_applied mark.
int64_t ApplyHeldDeliveries(Context& ctx, int target = -1);
// How many deliveries a server holds at most (DrainCreated then applies one target's, the
// next target round the shards each time, until fewer are held), and never
// more than its group commit's limit: about 64 posts' worth on 16 shards, each target's
// transaction then carrying 64 posts' rows, so that several of them land on one inbox
// page (a push post on the retwis trace wrote 459 KB with 256 held, 266 KB with 1024:
// posts 0.43 -> 0.60 of Retwis's). A home read served meanwhile looks its reader up in an
// index of them (GroupCommit::held_readers), so holding more does not slow it.
constexpr size_t kMaxHeldDeliveries = 1024;
// Background applies. A server may apply its held batches (a target's held deliveries
// once over kMaxHeldDeliveries, the list joins once kHeldToBatchRequests requests held
// some) on a thread with connections of its own, one batch at a time, while requests go
// on: no request then waits for the transaction of many posts' deliveries or of many
// readers' joins. The thread applies the batch as a command would (each target's
// transaction, the jobs they create, one sync of the WALs written, the done marks), and
// the batch stays this server's (GroupCommit::held) until a later drain collects it; a
// home read meanwhile sees a delivery batch from memory, as it sees held ones. A crash
// loses nothing: every job is pending in its outbox until applied and synced. It also
// writes the home reads' held marks and activity (HandOffReads, below), which are hints
// rather than jobs: a crash loses those as it would before they were written. The
// reasoning and the measurements are in jobs.cc, "background applies".
//
// The applier: connections of its own to the server's shards (opened here, on the calling
// thread), used by one batch's thread at a time.
class BackgroundApplier {
 public:
  explicit BackgroundApplier(const std::string& dir);
  ~BackgroundApplier();
  BackgroundApplier(const BackgroundApplier&) = delete;
  BackgroundApplier& operator=(const BackgroundApplier&) = delete;
  // Applies jobs (all deliveries held for one target, or all list joins), then what they
  // create, on the calling thread and these connections; returns the jobs applied with
  // group commit (deliveries, merges), whose targets the server syncs with its own.
  // patched: the jobs' deliveries name no reader (PatchedDeliveries, tables/msg_index.h:
  // the server calls GroupCommit::delivered for them once it collects the batch).
  UnsyncedJobs Apply(const std::vector<HeldJob>& jobs, Clock clock,
                     std::map<int64_t, std::shared_ptr<const std::vector<int64_t>>> fans_read,
                     bool patched = false);
  // Runs work on a context of its own over these connections, then applies what it
  // created, as Apply does; returns what Apply returns.
  UnsyncedJobs Run(const std::function<void(Context&)>& work, Clock clock);

 private:
  std::unique_ptr<ShardSet> shards_;
};
// Hands a batch of held read marks to the background applier, which must be free (no
// batch in flight): reads, the marks, are the batch's (GroupCommit::InFlightApply::reads)
// until it is collected, and pay writes them on the applier's context (flows/timeline.cc,
// HandOffHeldReads). The jobs pay creates (list joins, their merges) are applied there too.
void HandOffReads(Context& ctx, std::shared_ptr<const GroupCommit::HeldReads> reads,
                  std::function<void(Context&)> pay);
// Gives the group commit a background applier on dir's shards.
void EnableBackgroundApplies(GroupCommit& group_commit, const std::string& dir);
// Collects the background batch once it has ended (with wait, waits for it first): its
// jobs are no longer held, a held fan-out's parts count as applied. A failed batch leaves
// its jobs pending and no longer this process's (the next drain applies them, as after a
// crash) and is rethrown. Nothing in flight: nothing to do.
void FinishBackgroundApply(GroupCommit& group_commit, bool wait);
// A server under steady load (Executor::Tick: at least every 50 ms) applies no held batch
// on that clock, since each one is a transaction a request would wait for: it hands the
// background applier, when it is free, a batch whose oldest job was held kHeldMaxAgeMs ago
// (the list joins, or else the target whose deliveries have waited longest), and applies
// the jobs held until idle once the oldest is that old. Everything else is applied by
// count, as it is held (DrainCreated), or when the server is idle. So another process
// reading the same shards sees a held job at the latest about kHeldMaxAgeMs after it was
// held, or after one more batch when the applier is busy. Handing a target's deliveries to
// the applier every 50 ms instead cost the daemon 40% of its reads on the retwis trace
// (3000 users: 1082 against 1788 reads/s): more, smaller transactions, each of which
// throws away the request connection's page cache of that shard.
constexpr int64_t kHeldMaxAgeMs = 1000;
// A background applier's transactions: at most this many jobs of one target each, and this
// long a pause between two of them, longer than the 100 us a waiting writer sleeps
// (storage/shard.cc, OnBusy). A post whose shard the applier was writing waited for the
// whole batch (about 64 posts' deliveries, 3 ms): those were nine in ten of the posts
// between the 98.5th and 99.5th percentile on the retwis trace at 10 000 users, a fifth of
// their time on the processor. Alternated there, embedded: post p99 3.81 and 3.57 ms
// before, 2.14 and 1.91 with 32 (1.69 and 1.74 with 16, but reads/s 7284 and 7090 against
// 7683 and 8728: each commit of another connection empties the request connection's page
// cache of the shard); reads/s 7833 and 8593 with 32.
constexpr size_t kChunkedJobs = 32;
constexpr int kChunkPauseUs = 250;
// The steady clock in ms: when a job (or a read's marks) was held, and what the holds are
// measured against.
int64_t SteadyMs();
// Hands the background applier, if there is one and it is free, the oldest held batch
// once it is kHeldMaxAgeMs old; whether it did.
bool HandOffOldHeld(Context& ctx);
// Whether the jobs held until idle (GroupCommit::held_to_idle) have waited kHeldMaxAgeMs.
bool HeldToIdleDue(const GroupCommit& group_commit);
// How long a server holds counter deltas back before Idle() (or a drain pass) applies them:
// once none has come for kDeferredQuietMs (the burst is over), and at the latest once the
// oldest is kDeferredHoldMs old, so a message liked without a pause, one request at a
// time, costs one UPDATE per kDeferredHoldMs however fast the likes come (1000 likes at
// 100 a second: two), and a lone like is applied after a second. A fixed hold of one
// second cost one UPDATE a second for as long as the likes lasted. Readers count pending
// deltas in the same statement as the row, so what a read sees does not depend on these;
// the outbox's length does, and kMaxDeferred bounds it.
constexpr int64_t kDeferredQuietMs = 1000;
constexpr int64_t kDeferredHoldMs = 10000;
// Whether the held-back jobs are due: kMaxDeferred of them, the newest kDeferredQuietMs
// old, or the oldest kDeferredHoldMs old; now_ms in milliseconds of std::chrono's steady
// clock, which the second form reads.
bool DeferredJobsDue(const GroupCommit& group_commit, int64_t now_ms);
bool DeferredJobsDue(const GroupCommit& group_commit);

// The job kinds. This layer knows none: the layer above owns the table (flows/job_kinds.cc)
// and registers it here before any job is applied (OpenEmbedded does, through
// RegisterFlowJobKinds), so the drains call up only through it.
//
// Handler of one job kind: runs inside the target shard's write transaction.
using JobHandler = void (*)(Context& ctx, Shard& target, const Json& payload);
struct JobKind {
  const char* name;
  JobHandler handler;
  // Whether a job of this kind with this payload may be applied twice without harm and so
  // needs no job_applied mark (the reasoning is the handler's); nullptr: never.
  bool (*self_idempotent)(const Json& payload);
  // Set for kinds whose jobs merge (seed 004's counter batching): every job of the kind in
  // one drain transaction of a target is applied by one call with all their payloads, in
  // the order written, after the transaction's other jobs (so they must commute with
  // them), each with its job_applied mark. nullptr: one handler call per job.
  void (*merge)(Context& ctx, Shard& target, const std::vector<const Json*>& payloads) = nullptr;
  // A merging kind whose jobs for their own source shard a server may hold back to merge
  // them across requests (GroupCommit::defer_merged): readers must not need them applied,
  // or apply them first (counter deltas are read with the row; search applies the index
  // jobs).
  bool deferrable = false;
  // A deferrable kind held only until the server is idle (GroupCommit::held_to_idle), not
  // until kDeferredQuietMs: another process reading what it writes (a search, fsck) would
  // otherwise wait a second for it.
  bool until_idle = false;
  // Whether a job of this kind writes to its target shard only: it creates no job for
  // another shard (a deliver job: inbox rows, its mark, the next tier's job on the same
  // shard). Group commit may then commit it without an fsync (jobs.cc).
  bool target_only = false;
  // A target_only kind whose jobs for another shard of this process a server may hold
  // back (GroupCommit::held_deliveries) and apply many requests' worth at once, one
  // transaction per target: deliveries, which commute with every other job (they re-check
  // the follow, the fan row and the message when applied, and a purge leaves a tombstone).
  bool held_for_reads = false;
  // A kind whose jobs a server may hold back (GroupCommit::held_to_batch) and apply many
  // requests' worth at once (kHeldToBatchRequests), one transaction per target:
  // active-list joins, which no reply waits for (a reader pulls every author whose list
  // does not hold it yet: flows/active.cc) and which commute with every other job (a join
  // re-checks the fan row and the author's mode when applied, its merge the follow).
  bool held_to_batch = false;
};
struct JobKinds {
  const JobKind* begin;
  const JobKind* end;
};
// Registers the table (which must live as long as the process); a later call replaces it.
void RegisterJobKinds(const JobKinds& kinds);
// The registered kind of that name; nullptr when there is none.
const JobKind* FindJobKind(const std::string& name);

}  // namespace weibo

#endif  // WEIBO_JOBS_JOBS_H_
