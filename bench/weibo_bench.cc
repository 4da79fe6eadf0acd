// weibo-bench: the feed modes under one reproducible workload (SPEC §13).
//
//   gen     writes the workload as a trace (JSON Lines)
//   replay  runs a trace in a fresh cluster per feed mode and reports
//   run     gen + replay in process
//   counters  the targets of seed 004's counters, hot and cold, likes, notifications
//   search  the search index: load, 3-character queries, bytes (bench/search_bench.h)
//
// See weibo-bench(1) for what each number means.
#include <cstdio>
#include <iostream>
#include <sstream>

#include "archive_bench.h"
#include "baselines.h"
#include "cli_support.h"
#include "counters.h"
#include "driver.h"
#include "metrics.h"
#include "report.h"
#include "retwis.h"
#include "search_bench.h"
#include "star.h"
#include "strategies.h"
#include "weibo/cli.h"
#include "weibo/version.h"

namespace weibo::bench {
namespace {

constexpr const char* kProgram = "weibo-bench";

struct RunFlags {
  std::string feed = "all";
  ClusterFlags cluster;
  bool no_baselines = false;
  int64_t star = 0;  // run: --star N
  std::string data;
  std::string json_file;  // --json-out FILE
  bool json = false, jsonl = false, explain = false, async = false;
  bool progress = false;  // --progress: the bar even when standard error is no terminal
  std::string jq;         // --jq EXPR
  std::string connect;    // a daemon instead of the bench's own clusters
  int timeout_ms = 10000;
  std::string token;                       // sent to the daemon; an embedded run checks no token
  bool daemon = false;                     // pair each mode with a weibod run of its own
  std::string weibod;                      // the weibod binary for --daemon
  std::string peer;                        // --peer retwis (retwis.h)
  int64_t strategy_ops = 200;              // --strategy all: ops of each kind
  std::vector<CLI::Option*> cluster_only;  // options that mean nothing with --connect
};

void AddRunOptions(CLI::App* app, RunFlags* f, std::string* now, const char* now_help) {
  f->cluster_only.push_back(
      app->add_option("--feed", f->feed, "push, pull, hybrid or all")->capture_default_str());
  for (CLI::Option* o : AddClusterOptions(app, &f->cluster)) f->cluster_only.push_back(o);
  app->add_option("--strategy-ops", f->strategy_ops,
                  "with --strategy all: ops of each kind measured per strategy")
      ->check(CLI::Range(1, 100000))
      ->capture_default_str();
  app->add_flag("--no-baselines", f->no_baselines,
                "run no baselines after the modes (and show no ratios to them)");
  f->cluster_only.push_back(
      app->add_option("--data", f->data, "keep the clusters in DIR/push, DIR/pull, DIR/hybrid")
          ->type_name("DIR"));
  app->add_option("--now", *now, now_help)->capture_default_str();
  app->add_option("--json-out", f->json_file, "also write the results as JSON to FILE")
      ->type_name("FILE");
  app->add_flag("--json", f->json, "print the results as one JSON object instead of the table");
  app->add_flag("--jsonl", f->jsonl, "print one JSON object a mode instead of the table");
  app->add_option("--jq", f->jq,
                  "print what the jq expression EXPR makes of the results' JSON (implies --json)")
      ->type_name("EXPR");
  app->add_flag("--progress", f->progress,
                "report progress on standard error even when it is not a terminal (CI logs)");
  f->cluster_only.push_back(
      app->add_flag("--explain", f->explain, "print the statements of one timeline read per mode"));
  app->add_flag("--async", f->async, "writes return before fan-out; a drain op follows each");
  app->add_option("--connect", f->connect,
                  "replay into the weibod daemon at ENDPOINT instead (a fresh cluster)");
  app->add_option("--timeout", f->timeout_ms, "with --connect: milliseconds to wait for a reply")
      ->capture_default_str();
  app->add_option("--token", f->token, "with --connect: the access token sent with each op");
  app->add_flag("--daemon", f->daemon,
                "also run each mode through a weibod of its own on an identical cluster, "
                "interleaved with the embedded run, and print the ratios");
  app->add_option("--weibod", f->weibod,
                  "with --daemon: the weibod binary (default: next to this one)")
      ->type_name("PATH");
  f->cluster_only.push_back(
      app->add_option("--peer", f->peer,
                      "also replay the trace on the Retwis model in a redis-server of its own, "
                      "interleaved with the first mode, and print the ratios")
          ->check(CLI::IsMember({"retwis"}))
          ->type_name("retwis"));
}

// Checks what the parser cannot: --connect excludes the options that shape the bench's
// own clusters (they would be silently ignored).
Status CheckFlags(const RunFlags& f) {
  if (!f.jq.empty()) {
    Status compiled = cli::Jq(f.jq).Check();  // before the run, not after it
    if (!compiled.ok()) return compiled;
  }
  if (f.star < 0 || f.star > 10000000)
    return Status(Code::kInvalidArgument, "--star must be from 0 to 10000000");
  if (!f.weibod.empty() && !f.daemon)
    return Status(Code::kInvalidArgument, "--weibod is the binary --daemon starts: give --daemon");
  if (f.daemon && !f.connect.empty())
    return Status(Code::kInvalidArgument,
                  "--daemon starts a weibod of its own; --connect uses a running one: give one");
  if (f.connect.empty()) return Status::Ok();
  if (f.star > 0)
    return Status(Code::kInvalidArgument,
                  "--star sets up users of its own in the bench's clusters: not with --connect");
  for (const CLI::Option* o : f.cluster_only)
    if (o->count() > 0)
      return Status(Code::kInvalidArgument,
                    o->get_name() +
                        " shapes the bench's own clusters; with --connect the "
                        "daemon's cluster is used as it is");
  if (f.timeout_ms < 1 || f.timeout_ms > 3600000)
    return Status(Code::kInvalidArgument, "--timeout must be from 1 to 3600000");
  return Status::Ok();
}

// The driver's options from the flags, and what the report says about them.
Result<DriverOptions> MakeOptions(const RunFlags& f, const TraceModel& model,
                                  int64_t default_now_ms, RunInfo* info) {
  DriverOptions options;
  if (f.connect.empty()) {
    auto feeds = ParseFeeds(f.feed);
    if (!feeds.ok()) return feeds.status();
    options.feeds = feeds.value();
  } else {
    options.feeds = {"daemon"};
  }
  Status s = ResolveCluster(f.cluster, model, &options.cluster);
  if (!s.ok()) return s;
  options.default_now_ms = default_now_ms;
  options.durable_setup = f.cluster.durable_setup;
  options.async = f.async;
  options.connect = f.connect;
  options.timeout_ms = f.timeout_ms;
  options.token = f.token;
  options.daemon = f.daemon;
  options.weibod = f.weibod;
  options.peer = f.peer;
  options.interleave_baseline = !f.no_baselines;
  info->cluster = options.cluster;
  info->threshold_auto = f.cluster.threshold == "auto";
  info->active_list_auto = f.cluster.active_list == "auto";
  info->async = f.async;
  info->durable_setup = f.cluster.durable_setup;
  info->connect = f.connect;
  info->daemon = f.daemon;
  info->peer = f.peer;
  return options;
}

// The table (or JSON Lines) on standard output, the JSON file, and the exit status: 1 when
// the library refused ops of the trace, whatever their code, as that is the trace's fault.
int Report(const RunFlags& f, const RunInfo& info, const TraceModel& model,
           const std::vector<ModeRun>& runs, const std::vector<AfterModeResults>& after,
           const std::string& explained, const WorkDir& dir) {
  std::vector<ModeMetrics> metrics;
  int64_t errors = 0;
  Status first;
  for (size_t i = 0; i < runs.size(); ++i) {
    const AfterModeResults* a = i < after.size() ? &after[i] : nullptr;
    metrics.push_back(Derive(runs[i], model, a && a->baselines ? &*a->baselines : nullptr, false));
    if (a && a->star) {
      StarMetrics& star = metrics.back().star;
      metrics.back().has_star = true;
      star.fans = a->star->fans;
      star.deliveries = a->star->deliveries;
      star.ms = a->star->seconds * 1000;
      star.deliveries_per_s = a->star->DeliveriesPerSecond();
      star.against = Against::Of(star.deliveries_per_s, a->star->baselines);
    }
    errors += runs[i].errors;
    if (runs[i].errors > 0 && first.ok()) first = runs[i].first_error;
    for (const auto& sample : runs[i].error_samples)
      std::cerr << kProgram << ": warning: " << runs[i].feed << ": " << sample << "\n";
  }
  if (f.jsonl) {
    for (const auto& m : metrics) std::cout << m.ToJson().dump() << "\n";
  } else if (!f.jq.empty()) {
    cli::Jq jq(f.jq);
    std::string out;
    Status filtered = jq.Run(BenchJson(info, model, metrics, after).dump(), &out);
    std::cout << out;
    if (!filtered.ok()) return cli::ReportError(kProgram, filtered, true);
  } else if (f.json) {
    std::cout << BenchJson(info, model, metrics, after).dump() << "\n";
  } else {
    PrintBench(std::cout, info, model, metrics, after);
  }
  // Standard output stays pure JSON when JSON was asked for there.
  std::ostream& notes = f.jsonl || f.json || !f.jq.empty() ? std::cerr : std::cout;
  if (f.explain) notes << "\n" << explained;
  if (!dir.temporary()) notes << "\nclusters kept in " << dir.path() << "\n";
  std::cout << std::flush;
  if (!f.json_file.empty()) {
    Status s = WriteText(f.json_file, BenchJson(info, model, metrics, after).dump(2) + "\n");
    if (!s.ok()) return cli::ReportError(kProgram, s, false);
  }
  if (errors == 0) return 0;
  cli::ReportError(
      kProgram, Status(first.code(), std::to_string(errors) + " op(s) of the trace were refused"),
      false);
  return 1;
}

// --strategy all: the strategies compared on the trace's setup (strategies.h) instead of
// the feed modes on the whole trace.
int StrategiesMain(const Trace& trace, const RunFlags& f, int64_t default_now_ms,
                   const std::string& what) {
  const bool json = f.json || !f.jq.empty();
  std::string other;
  if (f.daemon) other = "--daemon";
  if (!f.peer.empty()) other = "--peer";
  if (f.star > 0) other = "--star";
  if (f.explain) other = "--explain";
  if (f.async) other = "--async";
  if (f.jsonl) other = "--jsonl";
  if (!f.json_file.empty()) other = "--json-out";
  if (!other.empty())
    return cli::ReportError(kProgram,
                            Status(Code::kInvalidArgument,
                                   "--strategy all compares the strategies on its own probe "
                                   "ops and does not combine with " +
                                       other),
                            json);
  auto feeds = ParseFeeds(f.feed);
  if (!feeds.ok()) return cli::ReportError(kProgram, feeds.status(), json);
  TraceModel model = ModelTrace(trace, f.cluster.shards);
  StrategyOptions o;
  o.feed = feeds.value().size() == 1 ? feeds.value()[0] : "hybrid";
  Status s = ResolveCluster(f.cluster, model, &o.cluster);
  if (!s.ok()) return cli::ReportError(kProgram, s, json);
  o.default_now_ms = default_now_ms;
  o.durable_setup = f.cluster.durable_setup;
  o.samples = f.strategy_ops;
  StrategyReport report;
  report.program = kProgram;
  report.data = f.data;
  report.jq = f.jq;
  report.json = f.json;
  report.progress = f.progress;
  std::vector<StrategyRun> runs;
  return CompareAndReport(trace, model, o, report, what + "; " + DescribeStrategyProbe(o), &runs);
}

// star: --star's options (fans 0: none).
int RunAndReport(const Trace& trace, RunInfo info, const RunFlags& f, int64_t default_now_ms,
                 int64_t read_count, StarOptions star) {
  Status s = CheckFlags(f);
  if (!s.ok()) return cli::ReportError(kProgram, s, false);
  if (f.cluster.strategy == "all")
    return StrategiesMain(
        trace, f, default_now_ms,
        info.trace.empty() ? "run: the generated workload" : "replay: " + info.trace);
  RunFlags flags = f;
  if (!flags.peer.empty()) {
    auto server = RetwisPeer::FindServer();
    if (!server.ok()) {  // a machine without Redis still runs the bench, and says so
      std::cerr << kProgram << ": warning: --peer retwis skipped: " << server.status().message()
                << "\n";
      flags.peer.clear();
    }
  }
  TraceModel model = ModelTrace(trace, f.cluster.shards);
  info.trace_ops = static_cast<int64_t>(trace.size());
  auto options = MakeOptions(flags, model, default_now_ms, &info);
  if (!options.ok()) return cli::ReportError(kProgram, options.status(), false);
  auto work = WorkDir::Make(f.data, kProgram);
  if (!work.ok()) return cli::ReportError(kProgram, work.status(), false);
  WorkDir dir = std::move(work.value());

  Progress progress(f.progress);
  std::ostringstream explained;
  std::vector<AfterModeResults> after_modes;
  // Right after each mode, while the disk is in the same state: the baselines, --star, then
  // the explain sample.
  AfterMode after = [&](Replayer& r, const BaselineRun* same_commits) -> Status {
    const std::string& feed = r.result().feed;
    // A daemon's column (storage not measured) shares its embedded twin's baselines, run on
    // the same disk just now. Against --connect there is nothing to compare with.
    if (!r.result().storage_measured) {
      after_modes.push_back(f.daemon && !after_modes.empty() ? after_modes.back()
                                                             : AfterModeResults());
      return Status::Ok();
    }
    AfterModeResults results;
    if (!f.no_baselines) {
      progress.Stage(feed + ": baselines", 0);
      auto b = RunBaselines(dir.path(), model.fan_outs, options.value().cluster.shards,
                            options.value().cluster.group_commit, same_commits);
      if (!b.ok()) return b.status();
      results.baselines = b.value();
    }
    if (star.fans > 0) {
      star.feed = feed;
      star.first_user = model.users + 1;
      star.cluster = options.value().cluster;
      star.durable_setup = f.cluster.durable_setup;
      auto s = RunStar(r.executor(), dir.Sub(feed), dir.path(), star, progress);
      if (!s.ok()) return s.status();
      results.star = s.value();
    }
    after_modes.push_back(std::move(results));
    if (!f.explain) return Status::Ok();
    return ExplainTimeline(feed, dir.Sub(feed), model, read_count, explained);
  };
  auto runs = RunModes(trace, model, options.value(), dir.path(), progress, after);
  progress.Clear();
  if (!runs.ok()) return cli::ReportError(kProgram, runs.status(), false);
  return Report(flags, info, model, runs.value(), after_modes, explained.str(), dir);
}

struct CountersFlags {
  std::string data, now = "2024-01-01T00:00:00Z";
  bool json = false, progress = false;
};

void AddCountersOptions(CLI::App* app, CountersOptions* o, CountersFlags* f) {
  app->add_option("--shards", o->shards, "shards of each cluster")
      ->check(CLI::IsMember({1, 2, 4, 8, 16, 32, 64, 128, 256}))
      ->capture_default_str();
  app->add_option("--ids", o->ids, "message ids per count call")
      ->check(CLI::Range(1, 200))
      ->capture_default_str();
  app->add_option("--rounds", o->rounds, "count calls on each side, hot and cold")
      ->check(CLI::Range(1, 100000))
      ->capture_default_str();
  app->add_option("--likes", o->likes, "likes of the one message, by as many users")
      ->check(CLI::Range(1, 1000000))
      ->capture_default_str();
  app->add_option("--small-users", o->small_users, "users of the smaller notify cluster")
      ->check(CLI::Range(1, 100000000))
      ->capture_default_str();
  app->add_option("--large-users", o->large_users, "users of the larger notify cluster")
      ->check(CLI::Range(1, 100000000))
      ->capture_default_str();
  app->add_option("--sends", o->sends, "notify sends timed in each cluster")
      ->check(CLI::Range(1, 100000))
      ->capture_default_str();
  app->add_option("--unreads", o->unreads, "unread calls in each cluster, random users")
      ->check(CLI::Range(1, 10000000))
      ->capture_default_str();
  app->add_option("--weibod", o->weibod, "the weibod binary (default: next to this one)")
      ->type_name("PATH");
  app->add_option("--data", f->data, "keep the clusters in DIR")->type_name("DIR");
  app->add_option("--now", f->now, "clock of the setup")->capture_default_str();
  app->add_flag("--json", f->json, "print the results as one JSON object instead of the tables");
  app->add_flag("--progress", f->progress,
                "report progress on standard error even when it is not a terminal (CI logs)");
}

int CountersMain(CountersOptions o, const CountersFlags& f) {
  auto clock = ParseClock(f.now);
  if (!clock.ok()) return cli::ReportError(kProgram, clock.status(), f.json);
  if (clock.value() != 0) o.now_ms = clock.value();
  auto work = WorkDir::Make(f.data, kProgram);
  if (!work.ok()) return cli::ReportError(kProgram, work.status(), f.json);
  Progress progress(f.progress);
  auto r = RunCounters(work.value().path(), o, progress);
  if (!r.ok()) return cli::ReportError(kProgram, r.status(), f.json);
  if (f.json)
    std::cout << r.value().ToJson().dump() << "\n";
  else
    r.value().Print(std::cout);
  if (!work.value().temporary()) std::cerr << "\nclusters kept in " << work.value().path() << "\n";
  return 0;
}

int Main(int argc, char** argv) {
  CLI::App app("Benchmark the push, pull and hybrid feed modes on one reproducible workload.",
               kProgram);
  app.set_version_flag("--version", std::string(kProgram) + " " + kVersion);
  app.require_subcommand(1);

  WorkloadSpec spec;
  std::string gen_now = "2024-01-01T00:00:00Z", output = "-";
  CLI::App* gen = app.add_subcommand("gen", "write the workload as a trace, JSON Lines");
  AddWorkloadOptions(gen, &spec);
  gen->add_option("--now", gen_now, "clock of the first op (none: no clock in the trace)")
      ->capture_default_str();
  gen->add_option("-o,--output", output, "the trace file (- for stdout)")->capture_default_str();

  RunFlags flags;
  std::string trace_path, replay_now = "none", run_now = "2024-01-01T00:00:00Z";
  CLI::App* replay = app.add_subcommand("replay", "run a trace in a fresh cluster per feed mode");
  replay->add_option("TRACE", trace_path, "the trace file (- for stdin)")->required();
  AddRunOptions(replay, &flags, &replay_now,
                "clock until the trace's first \"now\" (none: system)");
  CLI::App* run = app.add_subcommand("run", "generate a workload and run it in every feed mode");
  AddWorkloadOptions(run, &spec);
  AddRunOptions(run, &flags, &run_now, "clock of the first op (none: the system clock)");
  run->add_option("--star", flags.star,
                  "after each mode, a new author with N fans of its own posts three times, "
                  "measured alone (the median post)")
      ->capture_default_str();

  CountersOptions counters;
  CountersFlags counters_flags;
  CLI::App* counters_cmd = app.add_subcommand(
      "counters", "measure hot and cold counts, 1000 likes and notifications through weibod");
  AddCountersOptions(counters_cmd, &counters, &counters_flags);
  SearchBenchSpec search_spec;
  LoadFlags search_flags;
  CLI::App* search = app.add_subcommand(
      "search", "load posts of mixed Chinese and English, time 3-character searches");
  AddLoadOptions(search, &search_spec, &search_flags, "their authors (Zipf)",
                 "seed of the texts, authors and queries", "keep the cluster in DIR/search");
  search->add_option("--queries", search_spec.queries, "searches timed")->capture_default_str();
  search->add_flag("--reuse", search_spec.reuse,
                   "time the queries on the cluster an earlier run kept in --data (the same "
                   "--posts, --users, --shards and --seed), without loading it again");
  search->add_option("--count", search_spec.count, "results per search, 1 to 200")
      ->capture_default_str();

  ArchiveBenchSpec archive_spec;
  LoadFlags archive_flags;
  CLI::App* archive = app.add_subcommand(
      "archive", "live shards' size and timeline latency before and after weibo-archive");
  AddLoadOptions(archive, &archive_spec, &archive_flags, "their authors (Zipf)",
                 "seed of the graph, authors and readers", "keep the cluster in DIR/archive");
  archive->add_option("--follows", archive_spec.follows, "followees of each user")
      ->capture_default_str();
  archive->add_option("--reads", archive_spec.reads, "home timeline reads timed on each side")
      ->capture_default_str();
  archive->add_option("--fraction", archive_spec.fraction, "the oldest posts archived")
      ->capture_default_str();
  archive->add_option("--feed", archive_spec.feed, "push, pull or hybrid")->capture_default_str();

  if (auto exit = cli::ParseArgs(app, argc, argv)) return *exit;
  if (counters_cmd->parsed()) return CountersMain(counters, counters_flags);

  if (archive->parsed())
    return RunLoadBench(
        kProgram, &archive_spec, archive_flags, [&] { return RunArchiveBench(archive_spec); },
        ArchiveBenchTable);
  if (search->parsed())
    return RunLoadBench(
        kProgram, &search_spec, search_flags, [&] { return RunSearchBench(search_spec); },
        SearchBenchTable);
  if (replay->parsed()) {
    auto clock = ParseClock(replay_now);
    if (!clock.ok()) return cli::ReportError(kProgram, clock.status(), false);
    auto trace = LoadTrace(trace_path);
    if (!trace.ok()) return cli::ReportError(kProgram, trace.status(), false);
    RunInfo info;
    info.command = "replay";
    info.workload = nullptr;
    info.trace = trace_path;
    return RunAndReport(trace.value(), info, flags, clock.value(), 20, StarOptions());
  }
  auto clock = ParseClock(gen->parsed() ? gen_now : run_now);
  if (!clock.ok()) return cli::ReportError(kProgram, clock.status(), false);
  spec.start_ms = clock.value();
  Status s = CheckSpec(spec);
  if (!s.ok()) return cli::ReportError(kProgram, s, false);
  Trace trace = Generate(spec);
  if (gen->parsed()) {
    std::ostringstream text;
    WriteTrace(text, trace);
    s = WriteText(output, text.str());
    return s.ok() ? 0 : cli::ReportError(kProgram, s, false);
  }
  RunInfo info;
  info.command = "run";
  info.workload = spec.ToJson();
  StarOptions star;
  star.fans = flags.star;
  // The star's ops go on with the trace's clock, one step an op.
  if (spec.start_ms != 0) star.first_ms = spec.start_ms + int64_t(trace.size()) * spec.step_ms;
  star.step_ms = spec.step_ms;
  return RunAndReport(trace, info, flags, 0, spec.count, star);
}

}  // namespace
}  // namespace weibo::bench

int main(int argc, char** argv) { return weibo::bench::Main(argc, argv); }
