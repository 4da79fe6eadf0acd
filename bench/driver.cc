#include "driver.h"

#include <algorithm>
#include <ostream>

#include "probe.h"
#include "weibo/cluster.h"
#include "weibod_child.h"

namespace weibo::bench {

std::string DaemonLabel(const std::string& feed) { return feed + "/weibod"; }

namespace {

// One feed mode twice over, embedded and through a weibod of its own, on two clusters
// loaded alike: both setups run embedded (a daemon would load the same rows, only slower),
// then weibod is started on the second cluster and the measured ops alternate between the
// two in blocks.
Status RunPaired(Replayer& embedded, Replayer& daemon, const std::string& dir,
                 const DriverOptions& options, const TraceModel& model, size_t ops) {
  Status s = embedded.Setup();
  if (s.ok()) s = daemon.Setup();
  if (!s.ok()) return s;
  daemon.Close();  // syncs the setup's last deliveries and closes the shards: weibod's now
  auto weibod = WeibodChild::Start(options.weibod.empty() ? WeibodNextToProgram() : options.weibod,
                                   dir, options.cluster.group_commit, dir + "/weibod.log");
  if (!weibod.ok()) return weibod.status();
  daemon.Reconnect(weibod.value()->endpoint());
  size_t block = 0;
  for (size_t i = model.setup_ops; i < ops && s.ok(); i += kPairBlock, ++block) {
    Replayer& first = block % 2 == 0 ? embedded : daemon;
    Replayer& second = block % 2 == 0 ? daemon : embedded;
    s = first.Measure(i, i + kPairBlock);
    if (s.ok()) s = second.Measure(i, i + kPairBlock);
  }
  if (s.ok()) s = embedded.Finish();
  if (s.ok()) s = daemon.Finish();
  Status stopped = weibod.value()->Stop();
  return s.ok() ? stopped : s;
}

}  // namespace

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
    std::unique_ptr<Replayer> paired;
    Status s;
    if (options.daemon) {
      ReplayOptions d = r;
      d.label = DaemonLabel(feed);
      d.data_dir = r.data_dir + "-weibod";
      d.progress = nullptr;  // the embedded replay shows the progress of both
      paired = std::make_unique<Replayer>(trace, model, d);
      s = RunPaired(replayer, *paired, d.data_dir, options, model, trace.size());
    } else {
      s = replayer.Run();
    }
    progress.Clear();
    if (s.ok() && after) s = after(replayer);
    if (s.ok() && paired && after) s = after(*paired);
    if (!s.ok()) return Status(s.code(), feed + ": " + s.message());
    runs.push_back(replayer.result());
    if (paired) runs.push_back(paired->result());
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
