// The baselines of weibo-bench(1): the delivery rows of the measured phase (TraceModel's
// fan_outs: one inbox row per fan of each post's author, plus the author's own) inserted by
// plain SQLite, with none of the library around it, in three commit shapes:
//
//   same commits      the commits a push fan-out makes, with the durability the library
//                     gives them: per post, the author's own row and the fans on the
//                     author's shard in one transaction that fsyncs (the post's own
//                     commit, durable when the post returns), and each other shard's fans in
//                     a transaction of that shard without an fsync; once a post leaves
//                     group_commit or more such transactions unsynced (at once when it is
//                     0), one sync of each of those shards' WALs, and one more at the end —
//                     what jobs/jobs.cc's group commit does; and as a group-committing
//                     process holds deliveries back (GroupCommit::held_deliveries), the
//                     other shards' fans of many posts (1024 jobs' worth, at most
//                     group_commit) in one transaction per shard. One file per shard.
//   one txn per post  the same transactions, each with its own fsync: what a design that
//                     makes every delivery durable at once costs (the shape the bench used
//                     before group commit).
//   ceiling           every row in one transaction on one file, in primary-key order,
//                     then one fsync: the most SQLite does with these rows on this disk.
//                     No mode can beat it, as every mode commits every post durably. Run
//                     kCeilingRuns times, each on a fresh file, and the fastest kept.
//
// Every file is set up as a shard is (storage/shard.cc): WAL, synchronous=FULL (NORMAL for a
// commit that is synced later), no automatic checkpoint, no checkpoint on close, and a WAL
// file already CheckpointWalBytes long (weibo/storage.h), as a shard's is once it has been
// checkpointed, so that commits write over allocated blocks as the library's do; the table
// is msg_index as in schema version 8 (user_id, msg_id, author_id, time, WITHOUT ROWID, its
// primary key and no other index). Each row is one prepared INSERT, the cheapest way
// SQLite takes a row.
#ifndef WEIBO_BENCH_BASELINES_H_
#define WEIBO_BENCH_BASELINES_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "model.h"
#include "weibo/request.h"
#include "weibo/status.h"

namespace weibo::bench {

constexpr int kCeilingRuns = 3;

struct BaselineRun {
  int64_t rows = 0, transactions = 0;
  int64_t fsyncs = 0;  // commits with synchronous=FULL plus explicit syncs of a WAL
  int files = 0;
  double seconds = 0;
  int runs = 1;  // the ceiling: the fastest of this many runs, each on a fresh file
  // Same commits only (else -1 and 0): the group commit it applied, the transactions it
  // committed without an fsync, and how often it synced them.
  int group_commit = -1;
  int64_t deferred = 0, sync_rounds = 0;
  // Run in steps between blocks of this many of the mode's measured ops (SameCommitsSteps),
  // or 0: after the mode.
  int64_t interleaved_block = 0;

  double RowsPerSecond() const { return seconds > 0 ? rows / seconds : 0; }
  Json ToJson() const;
};

struct Baselines {
  BaselineRun same_commits, txn_per_post, ceiling;
  Json ToJson() const;  // {"same_commits": ..., "one_txn_per_post": ..., "ceiling": ...}
};

// Runs the three in dir/baselines (created, and removed afterwards), one after the other;
// with same_commits or ceiling, that baseline is not run: the run given is taken as its.
// posts empty: nothing is run, and every rate is 0.
Result<Baselines> RunBaselines(const std::string& dir, const std::vector<PostFanOut>& posts,
                               int shards, int group_commit,
                               const BaselineRun* same_commits = nullptr,
                               const BaselineRun* ceiling = nullptr);
// The ceiling alone, `runs` times in dir/baselines (created and removed), the fastest kept
// (its runs says how many): for --star, which runs it once after each of its posts.
Result<BaselineRun> RunCeiling(const std::string& dir, const std::vector<PostFanOut>& posts,
                               int runs);

// The same-commits baseline run in steps: Run(from, to) commits posts [from, to) as the
// baseline does, timed; Finish applies what is still held and makes the last sync, timed
// too, and returns the run. weibo-bench runs it between blocks of a mode's measured ops
// (driver.cc), so that whatever slows the disk or the processors for a while slows the mode
// and its baseline alike (run after the mode, the default fanout run's ratio ranged
// 0.40-0.62 over eleven runs of one build; interleaved, 0.47-0.57 over eleven). Its files
// are in dir (created; removed with it).
class SameCommitsSteps {
 public:
  static Result<std::unique_ptr<SameCommitsSteps>> Open(const std::string& dir,
                                                        const std::vector<PostFanOut>& posts,
                                                        int shards, int group_commit);
  ~SameCommitsSteps();
  Status Run(size_t from, size_t to);
  Result<BaselineRun> Finish();

 private:
  SameCommitsSteps() = default;
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace weibo::bench

#endif  // WEIBO_BENCH_BASELINES_H_
