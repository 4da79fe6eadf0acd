// The output of weibo-bench(1): the human table on standard output and the same numbers as
// JSON (--json FILE), one column / one object per feed mode.
#ifndef WEIBO_BENCH_REPORT_H_
#define WEIBO_BENCH_REPORT_H_

#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

#include "cluster.h"
#include "metrics.h"
#include "model.h"
#include "star.h"
#include "table.h"

namespace weibo::bench {

// What was run, for the header of the table and the top of the JSON.
struct RunInfo {
  std::string command;  // "run" or "replay"
  Json workload;        // WorkloadSpec::ToJson(), or null for a replayed trace
  std::string trace;    // the trace file replayed, or ""
  int64_t trace_ops = 0;
  ClusterOptions cluster;
  bool threshold_auto = false;
  bool active_list_auto = false;
  bool async = false, durable_setup = false;
  std::string connect;  // the daemon replayed into, or ""
  bool daemon = false;  // --daemon: each mode paired with a run through a weibod of its own
  std::string peer;     // --peer: "retwis", or "" (retwis.h)
};

// What ran right after a mode: the baselines of its measured phase, and --star.
struct AfterModeResults {
  std::optional<Baselines> baselines;
  std::optional<StarResult> star;
};

Table BenchTable(const std::vector<ModeMetrics>& modes, bool async);
void PrintBench(std::ostream& out, const RunInfo& info, const TraceModel& model,
                const std::vector<ModeMetrics>& modes, const std::vector<AfterModeResults>& after);
Json BenchJson(const RunInfo& info, const TraceModel& model, const std::vector<ModeMetrics>& modes,
               const std::vector<AfterModeResults>& after);

// "2000 users, 19876 follows, 200 posts, 1000 timeline reads" — what a trace holds.
std::string DescribeTrace(const Trace& trace, const TraceModel& model);

}  // namespace weibo::bench

#endif  // WEIBO_BENCH_REPORT_H_
