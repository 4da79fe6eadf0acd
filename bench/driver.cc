#include "driver.h"

#include <algorithm>
#include <ostream>

#include "probe.h"

namespace weibo::bench {

Result<std::vector<ModeRun>> RunModes(const Trace& trace, const TraceModel& model,
                                      const DriverOptions& options, const std::string& work_dir,
                                      Progress& progress, const AfterMode& after) {
  Probe::Install();
  std::vector<ModeRun> runs;
  for (const std::string& feed : options.feeds) {
    ReplayOptions r;
    r.feed = feed;
    r.data_dir = work_dir + "/" + feed;
    r.cluster = options.cluster;
    r.default_now_ms = options.default_now_ms;
    r.durable_setup = options.durable_setup;
    r.async = options.async;
    r.count_reads = options.count_reads;
    r.progress = &progress;
    r.connect = options.connect;
    r.timeout_ms = options.timeout_ms;
    r.token = options.token;
    Replayer replayer(trace, model, r);
    Status s = replayer.Run();
    progress.Clear();
    if (s.ok() && after) s = after(replayer);
    if (!s.ok()) return Status(s.code(), feed + ": " + s.message());
    runs.push_back(replayer.result());
  }
  return runs;
}

Status ExplainTimeline(const std::string& feed, const std::string& data_dir,
                       const TraceModel& model, int64_t count, std::ostream& out) {
  if (model.final_followees.empty()) return Status::Ok();
  auto most = std::max_element(model.final_followees.begin(), model.final_followees.end());
  int64_t user = (most - model.final_followees.begin()) + 1;
  // The library's own explain log replaces the probe's trace callback: keep them apart.
  ProbePause pause;
  EmbeddedOptions options;
  options.data_dir = data_dir;
  options.explain = true;
  auto executor = OpenEmbedded(options);
  Request read{"timeline", Json{{"user", std::to_string(user)}, {"count", count}}};
  // Twice: the first read opens the shards (and logs their opening), the second is the one
  // every later read looks like.
  for (int i = 0; i < 2; ++i) {
    Result<Json> result = executor->Execute(read);
    if (!result.ok()) return result.status();
  }
  struct Statement {
    std::string sql;
    int64_t runs = 0;
    std::vector<std::string> shards;
  };
  std::vector<Statement> statements;  // in the order first run
  std::vector<std::string> shards;
  std::vector<std::string> lines = executor->Explain();
  for (const auto& line : lines) {
    size_t colon = line.find(": ");
    std::string shard = line.substr(0, colon), sql = line.substr(colon + 2);
    if (std::find(shards.begin(), shards.end(), shard) == shards.end()) shards.push_back(shard);
    auto it = std::find_if(statements.begin(), statements.end(),
                           [&](const Statement& s) { return s.sql == sql; });
    if (it == statements.end()) it = statements.insert(statements.end(), Statement{sql, 0, {}});
    ++it->runs;
    if (std::find(it->shards.begin(), it->shards.end(), shard) == it->shards.end())
      it->shards.push_back(shard);
  }
  out << "-- explain: " << feed << ": timeline of user " << user << " (follows " << *most
      << "), count " << count << ": " << lines.size() << " statements on " << shards.size()
      << " shards\n";
  for (const auto& s : statements)
    out << "  " << s.runs << "x on " << s.shards.size()
        << (s.shards.size() == 1 ? " shard:  " : " shards: ") << s.sql << "\n";
  return Status::Ok();
}

}  // namespace weibo::bench
