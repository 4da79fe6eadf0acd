#include "strategies.h"

#include <algorithm>
#include <filesystem>
#include <iostream>

#include "cluster.h"
#include "metrics.h"
#include "probe.h"
#include "rng.h"
#include "weibo/cli.h"
#include "weibo/version.h"

namespace weibo::bench {

const char* const kStrategies[3] = {"gene", "uid-mapping", "tid"};

const StrategyKind kStrategyKinds[kKindCount] = {{"post", "post"},
                                                 {"show", "show by id"},
                                                 {"user_timeline", "user timeline"},
                                                 {"timeline", "home timeline"},
                                                 {"delete", "delete"}};

Result<Trace> StrategyProbeTrace(const Trace& trace, const TraceModel& model, int64_t samples,
                                 uint64_t seed, std::vector<size_t>* blocks) {
  const size_t setup = std::min(model.setup_ops, trace.size());
  Trace out(trace.begin(), trace.begin() + static_cast<std::ptrdiff_t>(setup));
  // The setup's posts: "#k" (k counts every message-creating op) and the author.
  struct Made {
    int64_t k, author;
  };
  std::vector<Made> made;
  int64_t k = 0;
  for (size_t i = 0; i < setup; ++i) {
    if (!CreatesMessage(trace[i].op)) continue;
    ++k;
    if (trace[i].op == "post" && model.author[i] > 0) made.push_back(Made{k, model.author[i]});
  }
  if (made.empty() || model.setup_users < 1)
    return Status(Code::kInvalidArgument,
                  "--strategy all shows and deletes the posts of the workload's setup, and "
                  "this one has none (give --history or a trace whose setup posts)");
  Rng rng(seed);
  auto user = [&] { return static_cast<int64_t>(1 + rng.Below(model.setup_users)); };
  blocks->clear();
  for (int64_t i = 0; i < samples; ++i)
    out.push_back(Request{
        "post", Json{{"user", user()}, {"content", "strategy probe " + std::to_string(i)}}});
  blocks->push_back(out.size());
  // Distinct posts to show and then delete: a shuffled prefix (fewer when the setup has fewer).
  for (size_t i = made.size(); i > 1; --i) std::swap(made[i - 1], made[rng.Below(i)]);
  const size_t picked = std::min(made.size(), static_cast<size_t>(samples));
  for (size_t i = 0; i < picked; ++i)
    out.push_back(Request{"show", Json{{"msg", "#" + std::to_string(made[i].k)}}});
  blocks->push_back(out.size());
  for (int64_t i = 0; i < samples; ++i)
    out.push_back(Request{"timeline", Json{{"user", user()}, {"posts", true}}});
  blocks->push_back(out.size());
  for (int64_t i = 0; i < samples; ++i) out.push_back(Request{"timeline", Json{{"user", user()}}});
  blocks->push_back(out.size());
  for (size_t i = 0; i < picked; ++i)
    out.push_back(Request{
        "delete", Json{{"user", made[i].author}, {"msg", "#" + std::to_string(made[i].k)}}});
  blocks->push_back(out.size());
  return out;
}

namespace {

Status RunStrategy(const Trace& probe, const TraceModel& model, const std::vector<size_t>& blocks,
                   const StrategyOptions& o, const std::string& dir, Progress& progress,
                   StrategyRun* out) {
  ReplayOptions r;
  r.feed = o.feed;
  r.label = out->strategy;
  r.data_dir = dir;
  r.cluster = o.cluster;
  r.cluster.strategy = out->strategy;
  r.default_now_ms = o.default_now_ms;
  r.durable_setup = o.durable_setup;
  r.count_reads = true;
  r.progress = &progress;
  Replayer replayer(probe, model, r);
  Status s = replayer.Setup();
  if (!s.ok() && s.code() == Code::kInvalidArgument &&
      s.message().find("--strategy") != std::string::npos &&
      !std::filesystem::exists(dir + "/shard-00.db")) {
    out->built = false;  // weibo-init refused the strategy: nothing to measure
    out->why_not = s.message();
    return Status::Ok();
  }
  // Each kind in a process of its own, as it were: nothing learned by one kind's ops (the
  // placements uid-mapping caches) helps the next.
  size_t from = model.setup_ops;
  for (size_t end : blocks) {
    if (s.ok() && from != model.setup_ops) s = replayer.Reopen();
    if (s.ok()) s = replayer.Measure(from, end);
    from = end;
  }
  if (s.ok()) s = replayer.Finish();
  replayer.Close();
  if (!s.ok()) return s;
  const ModeRun& run = replayer.result();
  for (size_t i = 0; i < kKindCount; ++i) {
    auto it = run.ops.find(kStrategyKinds[i].stats);
    if (it == run.ops.end()) continue;
    const OpStats& stats = it->second;
    StrategyRun::Kind& kind = out->kinds[i];
    kind.ops = stats.latency.count();
    kind.errors = stats.errors;
    if (kind.ops == 0) continue;
    const double n = static_cast<double>(kind.ops);
    kind.shards = static_cast<double>(stats.shards_touched) / n;
    kind.msg_shards = static_cast<double>(stats.msg_shards_touched) / n;
    kind.statements = static_cast<double>(stats.statements) / n;
    kind.rows_read = static_cast<double>(stats.rows_read) / n;
    kind.p50_ms = stats.latency.PercentileMs(50);
    kind.p99_ms = stats.latency.PercentileMs(99);
  }
  if (run.errors > 0)
    return Status(run.first_error.code(),
                  out->strategy + ": " + std::to_string(run.errors) +
                      " probe op(s) refused, the first: " + run.first_error.message());
  return Status::Ok();
}

// NaN where the strategy was not measured.
double Field(const StrategyRun& run, size_t kind, double StrategyRun::Kind::*field) {
  return run.built && run.kinds[kind].ops > 0 ? run.kinds[kind].*field : kNone;
}

void AddRows(Table* t, const std::vector<StrategyRun>& runs, bool latency) {
  for (size_t k = 0; k < kKindCount; ++k) {
    auto col = [&](double StrategyRun::Kind::*field) {
      std::vector<double> v;
      for (const StrategyRun& r : runs) v.push_back(Field(r, k, field));
      return v;
    };
    const std::string title = kStrategyKinds[k].title;
    t->Add(title + ": shards", "shards", col(&StrategyRun::Kind::shards), 2);
    t->Add(title + ": message shards", "shards", col(&StrategyRun::Kind::msg_shards), 2);
    t->Add(title + ": statements", "statements", col(&StrategyRun::Kind::statements), 1);
    if (!latency) continue;
    t->Add(title + ": p50", "ms", col(&StrategyRun::Kind::p50_ms), 3);
    t->Add(title + ": p99", "ms", col(&StrategyRun::Kind::p99_ms), 3);
  }
}

// The lines under the table: the strategies not built, and why.
std::string StrategyNotes(const std::vector<StrategyRun>& runs) {
  std::string notes;
  for (const StrategyRun& r : runs)
    if (!r.built) notes += r.strategy + ": not measured: " + r.why_not + "\n";
  return notes;
}

Table Columns(const std::vector<StrategyRun>& runs) {
  Table t;
  t.show_units = true;
  for (const StrategyRun& r : runs) t.columns.push_back(r.strategy);
  return t;
}

}  // namespace

Result<std::vector<StrategyRun>> CompareStrategies(const Trace& trace, const TraceModel& model,
                                                   const std::vector<std::string>& strategies,
                                                   const StrategyOptions& options,
                                                   const std::string& work_dir,
                                                   Progress& progress) {
  std::vector<size_t> blocks;
  auto probe = StrategyProbeTrace(trace, model, options.samples, options.seed, &blocks);
  if (!probe.ok()) return probe.status();
  const TraceModel probe_model = ModelTrace(probe.value(), options.cluster.shards);
  Probe::Install();
  std::vector<StrategyRun> runs;
  for (const std::string& strategy : strategies) {
    StrategyRun run;
    run.strategy = strategy;
    const std::string dir = work_dir + "/" + strategy;
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    Status s = RunStrategy(probe.value(), probe_model, blocks, options, dir, progress, &run);
    if (!s.ok()) return s;
    runs.push_back(std::move(run));
  }
  return runs;
}

Table StrategyTable(const std::vector<StrategyRun>& runs) {
  Table t = Columns(runs);
  AddRows(&t, runs, true);
  return t;
}

Table StrategyShapeTable(const std::vector<StrategyRun>& runs) {
  Table t = Columns(runs);
  AddRows(&t, runs, false);
  return t;
}

Json StrategiesJson(const std::vector<StrategyRun>& runs, const StrategyOptions& options) {
  Json list = Json::array();
  for (const StrategyRun& r : runs) {
    Json ops = Json::object();
    for (size_t k = 0; k < kKindCount; ++k) {
      if (!r.built) break;
      const StrategyRun::Kind& kind = r.kinds[k];
      ops[kStrategyKinds[k].stats] = {
          {"ops", kind.ops},
          {"errors", kind.errors},
          {"shards", Number(Field(r, k, &StrategyRun::Kind::shards))},
          {"msg_shards", Number(Field(r, k, &StrategyRun::Kind::msg_shards))},
          {"statements", Number(Field(r, k, &StrategyRun::Kind::statements))},
          {"rows_read", Number(Field(r, k, &StrategyRun::Kind::rows_read))},
          {"p50_ms", Number(Field(r, k, &StrategyRun::Kind::p50_ms))},
          {"p99_ms", Number(Field(r, k, &StrategyRun::Kind::p99_ms))}};
    }
    list.push_back(Json{{"strategy", r.strategy},
                        {"built", r.built},
                        {"why_not", r.built ? Json(nullptr) : Json(r.why_not)},
                        {"ops", r.built ? ops : Json(nullptr)}});
  }
  return Json{{"feed", options.feed},
              {"shards", options.cluster.shards},
              {"samples", options.samples},
              {"strategies", list}};
}

int CompareAndReport(const Trace& trace, const TraceModel& model, const StrategyOptions& options,
                     const StrategyReport& report, const std::string& subtitle,
                     std::vector<StrategyRun>* runs) {
  const bool json = report.json || !report.jq.empty();
  auto work = WorkDir::Make(report.data, report.program);
  if (!work.ok()) return cli::ReportError(report.program, work.status(), json);
  WorkDir dir = std::move(work.value());
  Progress progress(report.progress);
  auto ran = CompareStrategies(trace, model, {std::begin(kStrategies), std::end(kStrategies)},
                               options, dir.path(), progress);
  progress.Clear();
  if (!ran.ok()) return cli::ReportError(report.program, ran.status(), json);
  *runs = std::move(ran.value());
  Json all = StrategiesJson(*runs, options);
  all["program"] = report.program;
  all["version"] = kVersion;
  if (report.extra.is_object()) all.update(report.extra);
  int exit = 0;
  if (!report.jq.empty()) {
    cli::Jq jq(report.jq);
    std::string out;
    Status filtered = jq.Run(all.dump(), &out);
    std::cout << out;
    if (!filtered.ok()) exit = cli::ReportError(report.program, filtered, true);
  } else if (report.json) {
    std::cout << all.dump(report.json_indent) << "\n";
  } else {
    std::cout << report.program << ": " << subtitle << "\n\n";
    StrategyTable(*runs).Print(std::cout);
    const std::string notes = StrategyNotes(*runs);
    if (!notes.empty()) std::cout << "\n" << notes;
  }
  // Standard output stays pure JSON when JSON was asked for.
  if (!dir.temporary())
    (json ? std::cerr : std::cout) << "\nclusters kept in " << dir.path() << "\n";
  std::cout << std::flush;
  return exit;
}

std::string DescribeStrategyProbe(const StrategyOptions& o) {
  return std::to_string(o.samples) +
         " ops of each kind after the setup, reads by a fresh process; " + o.feed + ", " +
         std::to_string(o.cluster.shards) + " shards";
}

}  // namespace weibo::bench
