// What weibo-bench and weibo-sim share at the command line: the workload and cluster
// options, the clock and the feed list. Errors are reported by weibo::cli::ReportError,
// as every weibo program reports them.
#ifndef WEIBO_BENCH_CLI_SUPPORT_H_
#define WEIBO_BENCH_CLI_SUPPORT_H_

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "cluster.h"
#include "model.h"
#include "workload.h"

namespace weibo::bench {

struct ClusterFlags {
  int shards = 16;
  std::string threshold = "auto";    // or a number of fans
  std::string active_list = "auto";  // or a number of fans per list
  int64_t inbox_cap = 0;
  int group_commit = 1024;  // as weibod's --group-commit default
  bool durable_setup = false;
  std::string durability = "full";  // of the clusters (and the Retwis peer's Redis)
  // Message sharding of the clusters (weibo-init --strategy), or "all": the strategies
  // compared instead of the feed modes (strategies.h).
  std::string strategy = "gene";
};

void AddWorkloadOptions(CLI::App* app, WorkloadSpec* spec);
// Returns the options it added.
std::vector<CLI::Option*> AddClusterOptions(CLI::App* app, ClusterFlags* flags);

// --now: "none" is 0 (no pinned clock), else epoch seconds or ISO 8601 from 2020 on.
Result<int64_t> ParseClock(const std::string& text);
// "push", "pull", "hybrid" or "all" (all three, in that order).
Result<std::vector<std::string>> ParseFeeds(const std::string& text);
// Fills options from flags; an "auto" threshold comes from the model.
Status ResolveCluster(const ClusterFlags& flags, const TraceModel& model, ClusterOptions* options);

Result<Trace> LoadTrace(const std::string& path);                    // "-" is standard input
Status WriteText(const std::string& path, const std::string& text);  // "-" is standard output

}  // namespace weibo::bench

#endif  // WEIBO_BENCH_CLI_SUPPORT_H_
