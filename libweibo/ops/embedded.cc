// The embedded executor: runs a Request against the shard files of one data directory.
// Every failure becomes a Status here, at the library's edge: Failure from the flows,
// exceptions from nlohmann/json, anything else as storage_error.
#include <algorithm>
#include <memory>

#include "flows/flows.h"
#include "jobs/context.h"
#include "jobs/jobs.h"
#include "ops/args.h"
#include "ops/authorize.h"
#include "storage/explain_log.h"
#include "storage/failure.h"
#include "tables/counter_cache.h"
#include "tables/message_cache.h"
#include "tables/request_log.h"
#include "tables/seen_cache.h"
#include "weibo/ops.h"
#include "weibo/storage.h"
#include "weibo/time.h"

namespace weibo {
namespace {

class Embedded : public Executor {
 public:
  explicit Embedded(EmbeddedOptions options)
      : options_(std::move(options)),
        log_(options_.explain_log != nullptr ? options_.explain_log : &own_log_) {}
  ~Embedded() override { Finish(true); }

  void Idle() override { Finish(false); }

  // Under steady load (a daemon at least every 50 ms): what is due by the clock, and no
  // batch on the request thread. The counter deltas once due (jobs.h, DeferredJobsDue);
  // the index jobs; through the background applier, one held batch once its oldest is
  // kHeldMaxAgeMs old (jobs.h, HandOffOldHeld), or else the read marks held, as old
  // (flows/flows.h, HandOffHeldReads); and a sync of the group commit's WALs, on a thread of its
  // own. Without a background applier, all of it as when idle.
  void Tick() override {
    if (!shards_) return;
    if (!group_commit_.background) return Finish(false);
    try {  // as in Finish: what fails stays pending (hints: lost), for a later pass
      Context ctx(*shards_, Clock(options_.now_ms), group_commit_);
      if (DeferredJobsDue(group_commit_)) ApplyDeferredJobs(ctx);
      if (HeldToIdleDue(group_commit_)) ApplyHeldToIdle(ctx);
      // An old held batch first (other processes do not see it yet); else the read marks,
      // which are hints, to the applier if it is free and they are as old.
      if (!HandOffOldHeld(ctx)) HandOffHeldReads(ctx, true);
      CollectEndedSync(*shards_, group_commit_);
      if (!group_commit_.syncing && !group_commit_.unsynced.empty())
        StartSyncAppliedJobs(*shards_, group_commit_);
    } catch (const std::exception&) {
    }
  }

  // Idle()'s work one step at a time, on the request thread, so that a daemon gone quiet
  // for a moment (2 ms) stops between steps when a request arrives: the background batch
  // collected (waited for at most 1 ms a step), the counter deltas once due, one shard's
  // read marks, the index jobs, the list joins, one target's held deliveries (the next target
  // round the shards), one shard's checkpoint once its WAL is long, the sync of the WALs written
  // (on its thread, collected at a later step). All of it at once made the request that came next
  // wait for every shard's transaction: weibod's read p999 was 50 ms on the retwis trace, against 8
  // embedded. The steps run here, on the request thread, with or without a background applier.
  bool IdleStep() override {
    if (!shards_) return false;
    GroupCommit& group = group_commit_;
    try {  // as in Finish: what fails stays pending, for a later pass
      if (group.in_flight) {
        if (group.in_flight->done.wait_for(std::chrono::milliseconds(1)) ==
            std::future_status::ready)
          FinishBackgroundApply(group, true);
        return true;
      }
      Context ctx(*shards_, Clock(options_.now_ms), group);
      if (DeferredJobsDue(group)) {
        ApplyDeferredJobs(ctx);
      } else if (!group.held_reads.empty()) {
        try {  // hints: a failure loses them, as a crash would
          PayHeldReads(ctx, group.held_reads.begin()->first);  // one shard's transaction
        } catch (const std::exception&) {
        }
      } else if (!group.held_to_idle.empty()) {
        ApplyHeldToIdle(ctx);
      } else if (!group.held_to_batch.empty()) {
        ApplyHeldToBatch(ctx);
      } else if (!group.held_deliveries.empty()) {
        group.last_held_target = group.NextHeldTarget();
        ApplyHeldDeliveries(ctx, group.last_held_target);
      } else if (shards_->CheckpointOneOpened(CheckpointWalBytes(shards_->count()))) {
        // a shard whose WAL this thread's commits left long (Checkpoint, below)
      } else if (group.syncing) {
        CollectEndedSync(*shards_, group, std::chrono::milliseconds(1));
      } else if (!group.unsynced.empty()) {
        StartSyncAppliedJobs(*shards_, group);
      } else {
        return false;
      }
      return true;
    } catch (const std::exception&) {  // the jobs stay pending; the next drain applies them
      return false;
    }
  }

  // Deferred work: the counter deltas held back once they are due (all of them when
  // closing), the jobs held until idle (search index), then the group commit's sync.
  void Finish(bool closing) {
    if (!shards_) return;
    try {  // a failed background batch leaves its jobs pending: the rest goes on
      FinishBackgroundApply(group_commit_, true);
    } catch (const std::exception&) {
    }
    try {
      if (closing ? !group_commit_.deferred.empty() : DeferredJobsDue(group_commit_)) {
        Context ctx(*shards_, Clock(options_.now_ms), group_commit_);
        ApplyDeferredJobs(ctx);
      }
      if (!group_commit_.held_reads.empty()) {  // the read marks held (flows/timeline.cc)
        try {  // hints: a failure loses them, as a crash would, and the rest goes on
          Context ctx(*shards_, Clock(options_.now_ms), group_commit_);
          PayHeldReads(ctx);
        } catch (const std::exception&) {
        }
      }
      if (!group_commit_.held_to_idle.empty() || !group_commit_.held_deliveries.empty() ||
          !group_commit_.held_to_batch.empty()) {
        Context ctx(*shards_, Clock(options_.now_ms), group_commit_);
        ApplyHeldToIdle(ctx);
        ApplyHeldDeliveries(ctx);
        ApplyHeldToBatch(ctx);
      }
      SyncAppliedJobs(*shards_, group_commit_);
      // A process that wrote leaves no WAL behind when it closes. The next process to open
      // a shard alone (a command, after a daemon or another command) would otherwise rebuild
      // the WAL's index by reading every frame of it: up to 4 MiB a shard, 0.1-1 s for a
      // one-shot weibo-timeline on 16 shards. Only after writes: a reader must not pay for
      // a checkpoint, nor wait on another process's readers.
      if (closing && wrote_) shards_->CheckpointOpened(1);
    } catch (const std::exception&) {  // the jobs stay pending; the next drain applies them
    }
  }

  Result<Json> Execute(const Request& request) override { return Run(request, nullptr); }

  Result<Json> ExecuteForReply(const Request& request, std::string* text) override {
    text->clear();
    return Run(request, text);
  }

  std::vector<std::string> Explain() const override { return log_->Lines(); }
  std::vector<std::string> Warnings() const override { return warnings_; }

 private:
  // Execute, and with text given ExecuteForReply.
  Result<Json> Run(const Request& request, std::string* text) {
    log_->Clear();
    warnings_.clear();
    try {
      const OpSpec* op = FindOperation(request.op);
      if (op == nullptr) Fail(Code::kInvalidRequest, "unknown op '" + request.op + "'");
      Json args = ValidateArgs(*op, request.args);
      // A request's own clock is as untrusted as its args (a trace's "now", a fuzzed one);
      // the CLI and the wire refuse it earlier with their own words (weibo/time.h).
      if (request.now_ms != 0 && !ClockInRange(request.now_ms))
        Fail(Code::kInvalidArgument, "now must be " + ClockRange());
      if (op->local != nullptr && request.authenticate)  // no cluster open to check it against
        Fail(Code::kInvalidRequest, request.op + " is not served to authenticated requests");
      if (op->local != nullptr) {  // init: the cluster it replaces must not stay open
        Finish(true);
        counters_.reset();  // its hooks are on the shards' connections
        seen_.reset();
        group_commit_.delivered = nullptr;
        group_commit_.reads_unpaid = nullptr;
        messages_.reset();
        shards_.reset();
        return op->local(options_.data_dir, args);
      }
      if (!shards_) {
        shards_ = std::make_unique<ShardSet>(options_.data_dir, Log());
        if (options_.counter_cache > 0)
          counters_ = std::make_unique<CounterCache>(options_.counter_cache);
        if (options_.seen_cache > 0)
          seen_ = std::make_unique<SeenCache>(static_cast<size_t>(options_.seen_cache));
        if (options_.message_cache > 0)
          messages_ = std::make_unique<MessageCache>(static_cast<size_t>(options_.message_cache));
        group_commit_ = GroupCommit();
        group_commit_.limit = static_cast<size_t>(std::max(0, options_.group_commit));
        // A server (group commit on) merges counter deltas across requests (jobs.h). Not a
        // cluster node: a request served by another node (fsck, a drain) would find the
        // deltas this one holds pending, and could not apply them first.
        group_commit_.defer_merged = options_.group_commit > 0 && options_.transport == nullptr;
        if (group_commit_.defer_merged && options_.background_applies)
          EnableBackgroundApplies(group_commit_, options_.data_dir);
        // The held deliveries it applies are added to the inboxes it keeps (flows.h).
        if (group_commit_.defer_merged && messages_)
          group_commit_.delivered = [cache = messages_.get()](const Json& payload, int target,
                                                              bool applied) {
            PatchInboxes(*cache, payload, target, applied);
          };
        // The held reads it pays are in the reader states it keeps already (flows.h).
        if (group_commit_.defer_merged && messages_)
          group_commit_.reads_unpaid = [cache = messages_.get()] { cache->ForgetReader(0); };
      }
      if (request.authenticate) {  // on the executor's own clock, not the request's now
        Context auth(*shards_, Clock(options_.now_ms));
        Authorize(auth, *op, args, request, options_.explain);
      }
      Context ctx(*shards_, Clock(request.now_ms != 0 ? request.now_ms : options_.now_ms),
                  group_commit_);
      ctx.set_drain(options_.drain && !request.async);
      ctx.set_transport(options_.transport);
      ctx.set_counter_cache(counters_.get());
      ctx.set_seen_cache(seen_.get());
      ctx.set_message_cache(messages_.get());
      ctx.set_event_sink(options_.on_event);
      // The fingerprint is recorded and compared by writes only (tables/request_log.h).
      ctx.set_request(
          request.id, request.op,
          request.id.empty() || !op->writes ? "" : RequestFingerprint(request.op, request.args));
      ctx.set_progress(options_.progress);
      if (!op->keeps_deliveries_held &&
          (!group_commit_.held_deliveries.empty() || !group_commit_.held_to_batch.empty() ||
           group_commit_.in_flight)) {
        try {
          ApplyHeldDeliveries(ctx);
          ApplyHeldToBatch(ctx);
        } catch (const std::exception&) {  // they stay pending: the op runs, a drain retries
        }
      }
      // The read marks and activity held (flows/timeline.cc) are written before an op that
      // might read them from the shards (notify, user, fsck, a dump): it sees what a command
      // would. A failure loses them (hints, as after a crash) and the op still runs.
      if (!op->keeps_deliveries_held && !group_commit_.held_reads.empty()) {
        try {
          PayHeldReads(ctx);
        } catch (const std::exception& e) {
          ctx.Warn(std::string("the read marks held could not be written: ") + e.what());
        }
      }
      Json result;
      if (text != nullptr && op->text != nullptr)
        *text = op->text(ctx, args);
      else
        result = op->handler(ctx, args);
      warnings_ = ctx.warnings();
      if (op->writes) {
        wrote_ = true;
        Checkpoint();
      }
      return result;
    } catch (const Failure& f) {
      return f.status();
    } catch (const nlohmann::json::exception& e) {
      return Status(Code::kInvalidRequest, std::string("malformed request: ") + e.what());
    } catch (const std::exception& e) {
      return Status(Code::kStorageError, e.what());
    }
  }

  // After a write has committed: a checkpoint that fails (the disk full) loses nothing —
  // the WAL still holds every commit — and the write must not be reported as failed.
  // With a background applier, the applier checkpoints a shard (BackgroundApplier::Apply,
  // after the batch it committed there), and so does a quiet moment (IdleStep); a request
  // checkpoints a shard only past twice the length, when neither has come to that shard:
  // a checkpoint copies up to 8 MiB and syncs the file, and the post that found the WAL
  // long paid for all of it (the retwis trace's post p99).
  void Checkpoint() {
    try {
      const int64_t length = CheckpointWalBytes(shards_->count());
      shards_->CheckpointOpened(group_commit_.background ? 2 * length : length);
    } catch (const std::exception& e) {
      warnings_.push_back(
          std::string("the write is committed, but the checkpoint after it failed (a later "
                      "one copies the WAL back): ") +
          e.what());
    }
  }

  ExplainLog* Log() { return options_.explain ? log_ : nullptr; }
  EmbeddedOptions options_;
  ExplainLog own_log_;  // the statements run, unless the options name a log
  ExplainLog* log_;
  std::unique_ptr<ShardSet> shards_;
  std::unique_ptr<CounterCache> counters_;  // after shards_: destroyed first (its hooks)
  std::unique_ptr<SeenCache> seen_;
  std::unique_ptr<MessageCache> messages_;  // after shards_: destroyed first (its listeners)
  GroupCommit group_commit_;                // the deliveries of every request, synced together
  bool wrote_ = false;                      // some request wrote: checkpoint when closing
  std::vector<std::string> warnings_;       // of the last Execute
};

}  // namespace

std::unique_ptr<Executor> OpenEmbedded(const EmbeddedOptions& options) {
  RegisterFlowJobKinds();
  return std::make_unique<Embedded>(options);
}

HomeReadTotals HomeReadCounts() {
  HomeReadTotals t;
  HomeReadTally(&t.reads, &t.pulled_authors);
  return t;
}

}  // namespace weibo
