#include "driver.h"

#include <algorithm>
#include <memory>
#include <ostream>

#include "baselines.h"
#include "probe.h"
#include "retwis.h"
#include "weibo/cluster.h"
#include "weibod_child.h"

namespace weibo::bench {

std::string DaemonLabel(const std::string& feed) { return feed + "/weibod"; }

namespace {

// The measured ops of one feed mode's runs, alternating in blocks of kPairBlock between
// them, the first of each block taking turns: whatever slows the machine for a while slows
// them all alike.
using Measure = std::function<Status(size_t from, size_t to)>;

Status Interleave(const std::vector<Measure>& runs, size_t from, size_t to, size_t block_ops) {
  Status s;
  size_t block = 0;
  for (size_t i = from; i < to && s.ok(); i += block_ops, ++block)
    for (size_t k = 0; k < runs.size() && s.ok(); ++k)
      s = runs[(block + k) % runs.size()](i, i + block_ops);
  return s;
}

// The same-commits baseline's step for the trace's ops [a, b): the posts among them, by
// their index in model.fan_outs (every post and repost of the measured phase, in order).
Measure BaselineSteps(SameCommitsSteps& steps, const TraceModel& model, size_t size) {
  auto before = std::make_shared<std::vector<size_t>>(size + 1, 0);  // posts before op i
  for (size_t i = 0; i < size; ++i)
    (*before)[i + 1] = (*before)[i] + (i >= model.setup_ops && model.author[i] != 0 ? 1 : 0);
  return [&steps, before, size](size_t a, size_t b) {
    return steps.Run((*before)[std::min(a, size)], (*before)[std::min(b, size)]);
  };
}

// One feed mode, embedded, and with options.daemon through a weibod of its own on a second
// cluster loaded alike (both setups run embedded: a daemon would load the same rows, only
// slower; then weibod is started on the second cluster), and with a peer beside them: the
// setups first, then the measured ops interleaved in blocks of `block` ops. With steps, the
// same-commits baseline takes its turn in the interleave too, and is finished after the
// embedded run.
Status RunMode(Replayer& embedded, Replayer* daemon, RetwisPeer* peer, SameCommitsSteps* steps,
               size_t block, const std::string& dir, const DriverOptions& options,
               const Trace& trace, const TraceModel& model) {
  if (daemon == nullptr && peer == nullptr && steps == nullptr) return embedded.Run();
  Status s = embedded.Setup();
  if (s.ok() && daemon != nullptr) s = daemon->Setup();
  if (s.ok() && peer != nullptr) s = peer->Setup(trace, model);
  if (!s.ok()) return s;
  std::vector<Measure> runs = {[&](size_t a, size_t b) { return embedded.Measure(a, b); }};
  std::unique_ptr<WeibodChild> weibod;
  if (daemon != nullptr) {
    daemon->Close();  // syncs the setup's last deliveries and closes the shards: weibod's now
    auto started =
        WeibodChild::Start(options.weibod.empty() ? WeibodNextToProgram() : options.weibod, dir,
                           options.cluster.group_commit, dir + "/weibod.log");
    if (!started.ok()) return started.status();
    weibod = std::move(started.value());
    daemon->Reconnect(weibod->endpoint());
    runs.push_back([&](size_t a, size_t b) { return daemon->Measure(a, b); });
  }
  if (peer != nullptr)
    runs.push_back([&](size_t a, size_t b) { return peer->Measure(trace, a, b); });
  if (steps != nullptr) runs.push_back(BaselineSteps(*steps, model, trace.size()));
  s = Interleave(runs, model.setup_ops, trace.size(), block);
  if (s.ok()) s = embedded.Finish();
  if (s.ok() && daemon != nullptr) s = daemon->Finish();
  if (s.ok() && peer != nullptr) s = peer->Finish();
  Status stopped = weibod ? weibod->Stop() : Status::Ok();
  return s.ok() ? stopped : s;
}

Result<std::unique_ptr<RetwisPeer>> StartPeer(const DriverOptions& options,
                                              const std::string& work_dir) {
  auto server = RetwisPeer::FindServer();
  if (!server.ok()) return server.status();
  return RetwisPeer::Start(server.value(), work_dir + "/" + kRetwisLabel,
                           options.cluster.durability);
}

}  // namespace

Result<std::vector<ModeRun>> RunModes(const Trace& trace, const TraceModel& model,
                                      const DriverOptions& options, const std::string& work_dir,
                                      Progress& progress, const AfterMode& after) {
  Probe::Install();
  std::vector<ModeRun> runs;
  std::unique_ptr<RetwisPeer> peer;
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
    std::string paired_dir;
    if (options.daemon) {
      ReplayOptions d = r;
      d.label = DaemonLabel(feed);
      d.data_dir = paired_dir = r.data_dir + "-weibod";
      d.progress = nullptr;  // the embedded replay shows the progress of both
      paired = std::make_unique<Replayer>(trace, model, d);
    }
    Status s;
    const bool with_peer = !options.peer.empty() && !peer;  // the first mode only
    if (with_peer) {
      auto started = StartPeer(options, work_dir);
      if (!started.ok())
        return Status(started.status().code(), "--peer: " + started.status().message());
      peer = std::move(started.value());
    }
    std::unique_ptr<SameCommitsSteps> steps;
    if (options.interleave_baseline && options.connect.empty() && !model.fan_outs.empty()) {
      auto opened = SameCommitsSteps::Open(r.data_dir + "-same-commits", model.fan_outs,
                                           options.cluster.shards, options.cluster.group_commit);
      if (!opened.ok()) return opened.status();
      steps = std::move(opened.value());
    }
    const size_t block = options.daemon || with_peer ? kPairBlock : kBaselineBlock;
    s = RunMode(replayer, paired.get(), with_peer ? peer.get() : nullptr, steps.get(), block,
                paired_dir, options, trace, model);
    BaselineRun same_commits;
    if (s.ok() && steps) {
      auto finished = steps->Finish();
      s = finished.status();
      if (s.ok()) same_commits = finished.value();
      same_commits.interleaved_block = static_cast<int64_t>(block);
    }
    steps.reset();  // its files removed
    progress.Clear();
    const BaselineRun* same = same_commits.interleaved_block > 0 ? &same_commits : nullptr;
    if (s.ok() && after) s = after(replayer, same);
    if (s.ok() && paired && after) s = after(*paired, same);
    if (!s.ok()) return Status(s.code(), feed + ": " + s.message());
    runs.push_back(replayer.result());
    if (paired) runs.push_back(paired->result());
  }
  if (peer) runs.push_back(peer->result());
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
