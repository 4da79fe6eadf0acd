// Replayer: runs a trace in one fresh cluster of one feed mode and measures each op.
//
// Setup (TraceModel::setup_ops, the graph) runs first and is timed as a whole; its runs of
// follows go in as import ops (weibo-import(1): batched transactions per shard, one sync
// at the end), the rest op by op. Unless durable_setup, its connections run with
// synchronous=OFF, as the cluster is throwaway and a fsync per transaction would make a
// large graph take minutes. Then synchronous goes
// back to FULL and the measured phase runs: each op alone is timed (steady clock, around
// Execute only), and around it, untimed, the probe counts the rows it wrote (and read),
// and /proc/self/io the bytes it wrote. Before and after the measured phase the bench
// counts msg_index rows and shard file bytes from outside.
//
// "#k" in args becomes the id the k-th message-creating op returned; "now" becomes the
// request's clock and stays in force until the next "now". An op the library refuses is
// counted as an error and the replay goes on; a storage_error (or, against a daemon,
// unavailable) stops it.
#ifndef WEIBO_BENCH_REPLAY_H_
#define WEIBO_BENCH_REPLAY_H_

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "cluster.h"
#include "model.h"
#include "progress.h"
#include "stats.h"
#include "trace.h"
#include "weibo/request.h"

namespace weibo::bench {

struct ReplayOptions {
  std::string feed;      // push | pull | hybrid
  std::string label;     // the result's name (its column); empty: the feed
  std::string data_dir;  // where the cluster is created
  ClusterOptions cluster;
  int64_t default_now_ms = 0;  // the clock before the trace's first "now"; 0: system
  bool durable_setup = false;  // setup with synchronous=FULL too
  bool async = false;          // writes return before their jobs; a drain op follows
  bool count_reads = false;    // rows read, statements, shards touched per op
  // Non-empty: send every op to the weibod daemon at this endpoint instead, into whatever
  // cluster it serves (which should be fresh); nothing is measured on the storage side.
  std::string connect;
  int timeout_ms = 10000;
  std::string token;  // sent to the daemon with every request
  Progress* progress = nullptr;
};

// Everything measured for one kind of op in the measured phase.
struct OpStats {
  Latencies latency;    // the op itself: what its caller waits for
  Latencies completed;  // with async: the op and the drain that applied its jobs
  int64_t errors = 0;
  int64_t rows_written = 0, rows_read = 0, statements = 0, shards_touched = 0;
  int64_t msg_shards_touched = 0;  // ProbeCounters::msg_shards, summed over the ops
  int64_t bytes_written = 0;       // write(2) bytes; 0 where /proc/self/io is missing
  // Home timelines read by this process's executor: the followees each one pulled
  // (weibo/request.h, HomeReadCounts), one entry a read.
  std::vector<int64_t> pulled_authors;
};

// The name an op's figures are kept under in ModeRun::ops: its op's, except a timeline
// of the user's own posts (posts: true), "user_timeline".
std::string StatsName(const Request& request);

struct ModeRun {
  std::string feed;
  int64_t setup_ops = 0;
  double setup_seconds = 0;
  std::map<std::string, OpStats> ops;  // by StatsName; a drain's rows and bytes count to its op
  double settle_seconds = 0;           // the final group commit after the last op (Executor::Idle)
  struct Snapshot {
    int64_t inbox_rows = 0;                // msg_index rows
    int64_t db_bytes = 0;                  // bytes stored in the shard databases' pages
    int64_t file_bytes = 0;                // shard files and their WALs
    int64_t counter_updates = -1;          // msg_counter rows updated so far; -1: not counted
  } before, after;                         // the measured phase
  int64_t slowest_post_op = -1;            // trace index of the slowest post, or -1
  std::vector<std::string> error_samples;  // the first few, "line N: op: code: message"
  bool storage_measured = true;            // false against a daemon: no rows, bytes, deliveries
  int64_t errors = 0;                      // setup and measured phase
  Status first_error;                      // the first refused op's
};

class Replayer {
 public:
  Replayer(const Trace& trace, const TraceModel& model, ReplayOptions options);
  // Creates the cluster and runs the trace. Not ok only for a storage_error (or a cluster
  // that cannot be created); refused ops are counted in the result instead.
  Status Run();
  // Run in steps, for two replays interleaved op block by op block (weibo-bench --daemon):
  // Setup creates the cluster (or connects) and runs the setup ops; Measure runs the
  // measured ops from..to-1; Finish settles the group commit and takes the storage figures.
  Status Setup();
  Status Measure(size_t from, size_t to);
  Status Finish();
  // Finishes the executor's deferred work (the group commit) and closes it.
  void Close();
  // Embedded: settles the writes so far and opens a new executor on the cluster, so the
  // next ops run as another process would, with nothing this one learned in memory (the
  // uid-mapping's cache of placements: weibo-bench(1), STRATEGIES).
  Status Reopen();
  // After an embedded Setup: sends the measured ops to the weibod daemon at endpoint, which
  // serves the same cluster (nothing is then measured on the storage side).
  void Reconnect(const std::string& endpoint);

  const ModeRun& result() const { return run_; }
  // The executor, still open on the cluster (for the sim's timeline comparison).
  Executor& executor() { return *executor_; }
  // The message ids of the message-creating ops, in trace order (0 where the op failed).
  const std::vector<int64_t>& message_ids() const { return message_ids_; }

 private:
  Status RunOne(size_t index, bool measured);
  // Setup's follows, from `from` on, in one import op (weibo-import(1)) of up to
  // kImportBatch edges (through a daemon, fewer: a request's size is bounded); *next is the
  // first op not imported (from when none was).
  Status ImportFollows(size_t from, size_t to, size_t* next);
  static constexpr size_t kImportBatch = 20000;
  void OpenRemoteExecutor(const std::string& endpoint);
  void OpenEmbeddedExecutor();
  void Record(size_t index, const Result<Json>& result);
  Result<Request> Prepare(size_t index);
  Status Take(ModeRun::Snapshot* snapshot);

  const Trace& trace_;
  const TraceModel& model_;
  ReplayOptions options_;
  std::unique_ptr<Executor> executor_;
  std::vector<int64_t> message_ids_;
  int64_t now_ms_ = 0;
  int64_t slowest_post_ns_ = -1;
  ModeRun run_;
};

}  // namespace weibo::bench

#endif  // WEIBO_BENCH_REPLAY_H_
