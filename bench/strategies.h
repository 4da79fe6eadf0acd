// Seed 003's comparison of the ways to shard posts, measured (weibo-bench --strategy all,
// weibo-sim --strategy all; weibo(7), STRATEGIES).
//
// For each strategy (gene, uid-mapping, tid) a fresh cluster of one feed mode runs the
// trace's setup (the graph and the history posts), then a probe phase of five kinds of op,
// `samples` of each, counted from outside by the probe (probe.h) and timed one by one:
//
//   post           a new original by a random user of the setup
//   show           one message by id, a distinct post of the setup each time (as many
//                  as the setup made, when it made fewer than `samples`)
//   user timeline  a user's own posts (timeline --posts), a random user
//   home timeline  a user's home timeline, a random user
//   delete         the shown messages, by their authors
//
// Each kind runs as a block of its own, in that order (deletes last: they change what the
// timelines hold), and the executor is reopened between blocks (Replayer::Reopen), so that
// each kind runs as a new process would: uid-mapping's cache of placements, which would
// have learned every message this process made or read (a timeline's rows name their
// messages' authors), starts empty, and a read by id pays the mapping lookup the seed
// describes. Within a block the cache does learn, as it would in a server; the shows are
// of distinct messages, so none of them is a hit.
//
// For each kind: shards that ran a statement, message shards (those that ran one on
// msg_info or tid_map: where the messages were looked for or written, the seed's count;
// the others held their authors' names and lists and their readers' inboxes), statements
// (BEGIN and COMMIT included) and rows read per op, and the latency's p50 and p99. A strategy
// weibo-init refuses in this build is reported as not built, with init's reason, and measured as
// nothing.
#ifndef WEIBO_BENCH_STRATEGIES_H_
#define WEIBO_BENCH_STRATEGIES_H_

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "model.h"
#include "progress.h"
#include "replay.h"
#include "table.h"
#include "trace.h"

namespace weibo::bench {

// The strategies "all" compares, in order.
extern const char* const kStrategies[3];

// The probe's kinds: the name in ModeRun::ops (StatsName) and the name shown.
struct StrategyKind {
  const char* stats;  // "post", "show", "user_timeline", "timeline", "delete"
  const char* title;  // "post", "show by id", ...
};
constexpr size_t kKindCount = 5;
extern const StrategyKind kStrategyKinds[kKindCount];

struct StrategyOptions {
  std::string feed = "hybrid";
  ClusterOptions cluster;  // its strategy is set per run
  int64_t default_now_ms = 0;
  bool durable_setup = false;
  int64_t samples = 200;  // ops of each kind
  uint64_t seed = 3;      // of the probe's random picks
};

struct StrategyRun {
  std::string strategy;
  bool built = true;
  std::string why_not;  // weibo-init's refusal when not built
  struct Kind {
    int64_t ops = 0, errors = 0;
    double shards = 0, msg_shards = 0, statements = 0, rows_read = 0, p50_ms = 0, p99_ms = 0;
  };
  Kind kinds[kKindCount];  // as kStrategyKinds
};

// The setup of trace followed by the probe ops (the header comment), a block of each kind
// in kStrategyKinds' order; *blocks gets the end of each block. Fails when the setup made
// no posts to show.
Result<Trace> StrategyProbeTrace(const Trace& trace, const TraceModel& model, int64_t samples,
                                 uint64_t seed, std::vector<size_t>* blocks);

// Each strategy of `strategies` in work_dir/<strategy>.
Result<std::vector<StrategyRun>> CompareStrategies(const Trace& trace, const TraceModel& model,
                                                   const std::vector<std::string>& strategies,
                                                   const StrategyOptions& options,
                                                   const std::string& work_dir, Progress& progress);

// One column a strategy; per kind its shards, statements, p50 and p99 (the SVG's panels
// take the shards and statements rows: StrategyShapeTable).
Table StrategyTable(const std::vector<StrategyRun>& runs);
Table StrategyShapeTable(const std::vector<StrategyRun>& runs);
// {"feed", "samples", "strategies": [{"strategy", "built", "why_not", "ops": {"post":
// {"ops", "errors", "shards", "statements", "rows_read", "p50_ms", "p99_ms"}, ...}}]}
Json StrategiesJson(const std::vector<StrategyRun>& runs, const StrategyOptions& options);
// How a program's --strategy all runs and prints (CompareAndReport).
struct StrategyReport {
  std::string program;
  std::string data;      // --data: the work directory, kept; "": a temporary one
  std::string jq;        // --jq EXPR: print what it makes of the JSON
  bool json = false;     // --json: print the JSON
  int json_indent = -1;  // nlohmann's dump indent of --json
  bool progress = false;
  Json extra;  // merged into the JSON (program and version always are)
};

// Runs every strategy of kStrategies in a work directory and prints the result as asked:
// the jq output, the JSON, or "program: " + subtitle(runs' options), the table and the
// notes; then where the clusters were kept, when they were. *runs gets what ran. The exit
// status: 0, or the error's (reported on standard error).
int CompareAndReport(const Trace& trace, const TraceModel& model, const StrategyOptions& options,
                     const StrategyReport& report, const std::string& subtitle,
                     std::vector<StrategyRun>* runs);
// "post" etc. and the probe's shape, for the report's subtitle.
std::string DescribeStrategyProbe(const StrategyOptions& options);

}  // namespace weibo::bench

#endif  // WEIBO_BENCH_STRATEGIES_H_
