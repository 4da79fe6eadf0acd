// RunModes: one trace, one fresh cluster per feed mode, in one work directory — the part
// weibo-bench(1) and weibo-sim(1) share.
#ifndef WEIBO_BENCH_DRIVER_H_
#define WEIBO_BENCH_DRIVER_H_

#include <functional>
#include <iosfwd>
#include <string>
#include <vector>

#include "cluster.h"
#include "model.h"
#include "progress.h"
#include "replay.h"
#include "trace.h"

namespace weibo::bench {

struct DriverOptions {
  std::vector<std::string> feeds;  // in order, e.g. push, pull, hybrid
  ClusterOptions cluster;
  int64_t default_now_ms = 0;
  bool durable_setup = false, async = false, count_reads = false;
  std::string connect, token;  // a daemon instead of clusters of our own (feeds: "daemon")
  int timeout_ms = 10000;
  // --daemon: each feed mode also runs through a weibod on a second, identical cluster,
  // interleaved with the embedded run in blocks of kPairBlock measured ops.
  bool daemon = false;
  std::string weibod;  // that weibod's binary; empty: the one next to this program
  // --peer retwis: the trace also runs on the Retwis model in a redis-server of the bench's
  // own (retwis.h), interleaved in blocks of kPairBlock with the first feed mode (and its
  // daemon twin); its column comes last, labelled kRetwisLabel.
  std::string peer;
  // The same-commits baseline (baselines.h) runs in steps between the embedded run's blocks
  // of measured ops, and `after` gets its run; not against --connect.
  bool interleave_baseline = false;
};

// The measured ops of a paired run alternate between the embedded cluster and the daemon's
// in blocks of this many (about 0.1 s of ops), the first of each pair taking turns:
// whatever slows the machine for a while slows both alike. Not much shorter: a daemon
// syncs its group commit once it has been idle for 2 ms, and blocks of 20 ops gave it an
// idle spell and a sync at every switch — far more syncs than the same ops in one stream
// (paired runs of the timeline workload: posts 0.48-0.54 of the embedded rate with blocks
// of 20, 0.61-0.66 with blocks of 200; reads 0.59-0.65 with both).
constexpr size_t kPairBlock = 200;
// The blocks when the same-commits baseline is the embedded run's only partner: no daemon
// to sync when idle between them, and the default fanout run (100 posts) is then five pairs.
constexpr size_t kBaselineBlock = 20;
// The column of the daemon's run paired with feed's.
std::string DaemonLabel(const std::string& feed);

struct BaselineRun;
// Called after each mode's replay, while its executor is still open; same_commits is the
// same-commits baseline run interleaved with it (options.interleave_baseline), or nullptr.
using AfterMode = std::function<Status(Replayer&, const BaselineRun* same_commits)>;

// Runs the trace in work_dir/<feed> for each feed. Stops at the first failure. With
// options.daemon, each feed's run is followed in the result by its daemon run (DaemonLabel),
// on work_dir/<feed>-weibod, and `after` is called for both. With options.peer, the peer's
// run (in work_dir/retwis) is the last of the result, and `after` is not called for it.
Result<std::vector<ModeRun>> RunModes(const Trace& trace, const TraceModel& model,
                                      const DriverOptions& options, const std::string& work_dir,
                                      Progress& progress, const AfterMode& after);

// --explain: the statements of one home-timeline read, of the user who follows the most
// (the costliest read under pull), in the cluster at data_dir; printed to out, one line a
// distinct statement with how often it ran and on how many shards.
Status ExplainTimeline(const std::string& feed, const std::string& data_dir,
                       const TraceModel& model, int64_t count, std::ostream& out);

}  // namespace weibo::bench

#endif  // WEIBO_BENCH_DRIVER_H_
