// weibo-sim: one workload under push, pull and hybrid, side by side, for teaching; and a
// check that every user's home timeline is the same in all three. See weibo-sim(1).
#include <iostream>
#include <sstream>

#include "cli_support.h"
#include "driver.h"
#include "metrics.h"
#include "report.h"
#include "svg_chart.h"
#include "timelines.h"
#include "weibo/cli.h"
#include "weibo/request.h"
#include "weibo/version.h"

namespace weibo::bench {
namespace {

constexpr const char* kProgram = "weibo-sim";
constexpr size_t kMaxReports = 10;

struct SimFlags {
  ClusterFlags cluster;
  std::string trace_path, csv, svg, data, now = "2024-01-01T00:00:00Z", token, connect;
  int timeout_ms = 10000;
  int64_t verify_depth = 1000;
  int64_t hot_likes = 0;
  bool json = false, jsonl = false, explain = false, async = false;
  bool progress = false;  // --progress: the bar even when standard error is no terminal
  std::string jq;         // --jq EXPR
};

Table SimTable(const std::vector<ModeMetrics>& modes) {
  Table t;
  t.show_units = true;
  for (const auto& m : modes) t.columns.push_back(m.feed);
  auto col = [&](double ModeMetrics::*field) {
    std::vector<double> v;
    for (const auto& m : modes) v.push_back(m.*field);
    return v;
  };
  std::vector<double> kib;
  for (const auto& m : modes) kib.push_back(m.db_bytes / 1024.0);
  t.Add("rows written per post", "rows", col(&ModeMetrics::rows_per_post), 1);
  t.Add("inbox rows per post", "rows", col(&ModeMetrics::deliveries_per_post), 1);
  t.Add("database bytes per post", "bytes", col(&ModeMetrics::db_bytes_per_post), 0);
  t.Add("database size at the end", "KiB", kib, 0);
  t.Add("rows read per timeline", "rows", col(&ModeMetrics::rows_read_per_read), 1);
  t.Add("statements per timeline", "statements", col(&ModeMetrics::statements_per_read), 1);
  t.Add("shards touched per timeline", "shards", col(&ModeMetrics::shards_per_read), 2);
  t.Add("post latency p50", "ms", col(&ModeMetrics::post_p50), 2);
  t.Add("post latency p99", "ms", col(&ModeMetrics::post_p99), 2);
  t.Add("timeline latency p50", "ms", col(&ModeMetrics::read_p50), 3);
  t.Add("timeline latency p99", "ms", col(&ModeMetrics::read_p99), 3);
  return t;
}

std::string Verdict(const Comparison& c, const std::vector<std::string>& feeds) {
  std::string modes;
  for (size_t i = 0; i < feeds.size(); ++i)
    modes += (i == 0 ? "" : i + 1 == feeds.size() ? " and " : ", ") + feeds[i];
  if (c.users_differing == 0)
    return "timelines: identical in " + modes + ": all " + std::to_string(c.users) +
           " users' home timelines, " + std::to_string(c.items) + " items, item for item";
  return "timelines: MISMATCH: " + std::to_string(c.users_differing) + " of " +
         std::to_string(c.users) + " users' home timelines differ between " + modes;
}

Json SimJson(const Json& workload, const std::string& trace, const ClusterOptions& cluster,
             const std::vector<ModeMetrics>& modes, const Comparison& c) {
  Json j{{"program", kProgram}, {"version", kVersion}, {"workload", workload}};
  j["trace"] = trace.empty() ? Json(nullptr) : Json(trace);
  j["cluster"] = {{"shards", cluster.shards},
                  {"celebrity_threshold", cluster.celebrity_threshold},
                  {"active_list", cluster.active_list},
                  {"inbox_cap", cluster.inbox_cap != 0 ? Json(cluster.inbox_cap) : Json(nullptr)}};
  j["modes"] = Json::array();
  for (const auto& m : modes) j["modes"].push_back(m.ToJson());
  j["timelines"] = {{"identical", c.users_differing == 0},
                    {"users", c.users},
                    {"items", c.items},
                    {"users_differing", c.users_differing},
                    {"differences", c.reports}};
  return j;
}

void AddOptions(CLI::App& app, WorkloadSpec* spec, SimFlags* f) {
  AddWorkloadOptions(&app, spec);
  AddClusterOptions(&app, &f->cluster);
  app.add_option("--trace", f->trace_path, "run this trace instead of generating a workload");
  app.add_option("--csv", f->csv, "write the table as CSV to FILE");
  app.add_option("--svg", f->svg, "draw the table as an SVG bar chart in FILE");
  app.add_option("--verify-depth", f->verify_depth, "timeline items compared per user")
      ->capture_default_str();
  app.add_option("--hot-likes", f->hot_likes,
                 "instead: N likes of one message, each applied alone vs merged (seed 004)")
      ->check(CLI::Range(1, 100000));
  app.add_option("--data", f->data, "keep the clusters in DIR/push, DIR/pull, DIR/hybrid")
      ->type_name("DIR");
  app.add_option("--now", f->now, "clock of the first op, pinned")->capture_default_str();
  app.add_flag("--json", f->json, "print one JSON object instead of the table");
  app.add_flag("--jsonl", f->jsonl, "print one JSON object a mode, then the verdict");
  app.add_option("--jq", f->jq,
                 "print what the jq expression EXPR makes of the JSON object (implies --json)")
      ->type_name("EXPR");
  app.add_flag("--progress", f->progress,
               "report progress on standard error even when it is not a terminal (CI logs)");
  app.add_flag("--explain", f->explain, "print the statements of one timeline read per mode");
  app.add_flag("--async", f->async, "writes return before fan-out; a drain op follows each");
  app.add_option("--token", f->token, "accepted for symmetry with weibo(1); not used");
  // The common options of weibo(1); a sim needs three clusters of its own.
  app.add_option("--connect", f->connect, "refused: the sim runs embedded");
  app.add_option("--timeout", f->timeout_ms, "refused with --connect");
}

Status CheckFlags(const CLI::App& app, const SimFlags& f) {
  if (app.count("--connect") > 0 || app.count("--timeout") > 0)
    return Status(Code::kInvalidArgument,
                  "--connect: weibo-sim compares three clusters of its own and cannot run "
                  "against a daemon (see weibo-bench --connect)");
  if (f.verify_depth < 1)
    return Status(Code::kInvalidArgument, "--verify-depth must be at least 1");
  return Status::Ok();
}

// The trace to run: the --trace file, or the workload generated from spec.
Result<Trace> LoadOrGenerate(const SimFlags& f, int64_t clock_ms, WorkloadSpec spec) {
  if (!f.trace_path.empty()) return LoadTrace(f.trace_path);
  spec.start_ms = clock_ms;
  Status s = CheckSpec(spec);
  if (!s.ok()) return s;
  return Generate(spec);
}

// --hot-likes: what N likes of one hot message write, counted from the statements the shards
// ran (--explain's log): each like's counter_delta applied by its own request, as an
// embedded command does, or all left pending and applied by one drain, merged (seed 004).
struct LikeWrites {
  int64_t counter_updates = 0;  // UPDATE msg_counter statements
  int64_t writes = 0;           // INSERT, UPDATE and DELETE statements, all tables
};

void CountWrites(const std::vector<std::string>& log, LikeWrites* w) {
  for (const std::string& line : log) {
    size_t sql = line.find(": ");
    std::string stmt = sql == std::string::npos ? line : line.substr(sql + 2);
    if (stmt.rfind("UPDATE msg_counter", 0) == 0) ++w->counter_updates;
    if (stmt.rfind("INSERT", 0) == 0 || stmt.rfind("UPDATE", 0) == 0 ||
        stmt.rfind("DELETE", 0) == 0)
      ++w->writes;
  }
}

Result<LikeWrites> HotLikes(const std::string& dir, int64_t likes, bool merged, int64_t now_ms) {
  EmbeddedOptions eo;
  eo.data_dir = dir;
  eo.now_ms = now_ms;
  auto setup = OpenEmbedded(eo);
  auto run = [](Executor& e, Request r) -> Result<Json> { return e.Execute(r); };
  Result<Json> done = run(*setup, Request{"init", Json{{"shards", 4}}});
  for (int64_t u = 0; done.ok() && u <= likes; ++u)
    done = run(*setup, Request{"user_add", Json{{"name", "u" + std::to_string(u)}}});
  if (done.ok()) done = run(*setup, Request{"post", Json{{"user", 1}, {"content", "hot"}}});
  if (!done.ok()) return done.status();
  const Json msg = done.value().at("id");
  eo.explain = true;
  eo.drain = !merged;
  auto explained = OpenEmbedded(eo);
  LikeWrites w;
  for (int64_t u = 2; u <= likes + 1; ++u) {
    Result<Json> liked = run(*explained, Request{"like", Json{{"user", u}, {"msg", msg}}});
    if (!liked.ok()) return liked.status();
    CountWrites(explained->Explain(), &w);
  }
  if (merged) {
    eo.drain = true;
    auto drainer = OpenEmbedded(eo);
    Result<Json> drained = run(*drainer, Request{"drain"});
    if (!drained.ok()) return drained.status();
    CountWrites(drainer->Explain(), &w);
  }
  return w;
}

int HotLikesMain(const SimFlags& f, int64_t clock_ms) {
  bool json = f.json || f.jsonl;
  auto work = WorkDir::Make(f.data, kProgram);
  if (!work.ok()) return cli::ReportError(kProgram, work.status(), json);
  SetDurableCommits(false);  // what is written is counted, not how fast
  std::vector<LikeWrites> runs;
  for (bool merged : {false, true}) {
    auto w =
        HotLikes(work.value().Sub(merged ? "merged" : "unmerged"), f.hot_likes, merged, clock_ms);
    if (!w.ok()) return cli::ReportError(kProgram, w.status(), json);
    runs.push_back(w.value());
  }
  const double per = 1000.0 / static_cast<double>(f.hot_likes);
  if (json) {
    Json j{{"program", kProgram}, {"version", kVersion}, {"likes", f.hot_likes}};
    for (size_t i = 0; i < runs.size(); ++i)
      j[i == 0 ? "unmerged" : "merged"] = {
          {"counter_updates_per_1000_likes", runs[i].counter_updates * per},
          {"write_statements_per_1000_likes", runs[i].writes * per}};
    std::cout << j.dump(f.json ? 2 : -1) << "\n";
    return 0;
  }
  Table t;
  t.columns = {"unmerged", "merged"};
  t.Add("UPDATE msg_counter per 1000 likes", "statements",
        {runs[0].counter_updates * per, runs[1].counter_updates * per}, 1);
  t.Add("write statements per 1000 likes", "statements",
        {runs[0].writes * per, runs[1].writes * per}, 1);
  std::cout << kProgram << ": " << f.hot_likes
            << " likes of one message by as many users, 4 shards; unmerged: each like's "
               "counter delta applied by its own request; merged: all left pending, then "
               "one drain\n\n";
  t.Print(std::cout);
  return 0;
}

// What the sim found, for the output.
struct SimResult {
  Json workload;  // null for a --trace
  ClusterOptions cluster;
  std::vector<std::string> feeds;
  std::vector<ModeMetrics> metrics;
  Comparison compared;
  std::string subtitle, explained;
};

// The table, CSV, SVG and verdict; exit 1 on a mismatch, reported loudly on stderr.
int Output(const SimFlags& f, const SimResult& r, const WorkDir& dir) {
  bool json = f.json || f.jsonl || !f.jq.empty();
  Table table = SimTable(r.metrics);
  Json all = SimJson(r.workload, f.trace_path, r.cluster, r.metrics, r.compared);
  if (!f.jq.empty()) {
    cli::Jq jq(f.jq);
    std::string out;
    Status filtered = jq.Run(all.dump(), &out);
    std::cout << out;
    if (!filtered.ok()) return cli::ReportError(kProgram, filtered, true);
  } else if (f.json) {
    std::cout << all.dump(2) << "\n";
  } else if (f.jsonl) {
    for (const auto& m : all["modes"]) std::cout << m.dump() << "\n";
    std::cout << Json{{"timelines", all["timelines"]}}.dump() << "\n";
  } else {
    std::cout << kProgram << ": " << r.subtitle << "\n\n";
    table.Print(std::cout);
    std::cout << "\n" << Verdict(r.compared, r.feeds) << "\n";
  }
  // Standard output stays pure JSON when JSON was asked for.
  std::ostream& notes = json ? std::cerr : std::cout;
  if (f.explain) notes << "\n" << r.explained;
  if (!dir.temporary()) notes << "\nclusters kept in " << dir.path() << "\n";
  std::cout << std::flush;
  Status s;
  if (!f.csv.empty()) {
    std::ostringstream csv;
    table.WriteCsv(csv);
    s = WriteText(f.csv, csv.str());
  }
  if (s.ok() && !f.svg.empty())
    s = WriteText(f.svg, SvgBarChart(table, "weibo-sim: push vs pull vs hybrid", r.subtitle));
  if (!s.ok()) return cli::ReportError(kProgram, s, json);
  if (r.compared.users_differing == 0) return 0;
  std::cerr << kProgram << ": " << Verdict(r.compared, r.feeds) << "\n";
  for (const auto& line : r.compared.reports)
    std::cerr << kProgram << ": MISMATCH: " << line << "\n";
  return 1;
}

int Main(int argc, char** argv) {
  CLI::App app("Run one workload under push, pull and hybrid and compare them, for teaching.",
               kProgram);
  app.set_version_flag("--version", std::string(kProgram) + " " + kVersion);
  WorkloadSpec spec;
  spec.kind = "retwis";
  spec.users = 200;
  spec.posts = 50;
  spec.ops = 300;
  SimFlags f;
  AddOptions(app, &spec, &f);
  if (auto exit = cli::ParseArgs(app, argc, argv)) return *exit;
  bool json = f.json || f.jsonl || !f.jq.empty();
  Status s = CheckFlags(app, f);
  if (s.ok() && !f.jq.empty()) s = cli::Jq(f.jq).Check();  // before the run, not after
  if (!s.ok()) return cli::ReportError(kProgram, s, json);
  auto clock = ParseClock(f.now);
  if (!clock.ok()) return cli::ReportError(kProgram, clock.status(), json);
  // Under the system clock, posts of one millisecond sort by gene, not by order, and the
  // three runs would disagree for no fault of the feed modes.
  if (clock.value() == 0)
    return cli::ReportError(
        kProgram,
        Status(Code::kInvalidArgument,
               "--now none: the sim compares the modes' timelines item for item, which "
               "needs a pinned clock"),
        json);
  if (f.hot_likes > 0) return HotLikesMain(f, clock.value());
  auto trace = LoadOrGenerate(f, clock.value(), spec);
  if (!trace.ok()) return cli::ReportError(kProgram, trace.status(), json);
  TraceModel model = ModelTrace(trace.value(), f.cluster.shards);

  SimResult r;
  r.workload = f.trace_path.empty() ? spec.ToJson() : Json(nullptr);
  r.feeds = {"push", "pull", "hybrid"};
  DriverOptions options;
  options.feeds = r.feeds;
  if (!(s = ResolveCluster(f.cluster, model, &options.cluster)).ok())
    return cli::ReportError(kProgram, s, json);
  r.cluster = options.cluster;
  options.default_now_ms = f.trace_path.empty() ? 0 : clock.value();
  options.durable_setup = f.cluster.durable_setup;
  options.async = f.async;
  options.count_reads = true;
  auto work = WorkDir::Make(f.data, kProgram);
  if (!work.ok()) return cli::ReportError(kProgram, work.status(), json);
  WorkDir dir = std::move(work.value());

  Progress progress(f.progress);
  std::vector<Timelines> timelines;
  std::ostringstream explained;
  auto after = [&](Replayer& replayer) -> Status {
    const std::string& feed = replayer.result().feed;
    progress.Stage(feed + ": verify", 0);
    auto collected =
        CollectTimelines(replayer.executor(), model.users, replayer.message_ids(), f.verify_depth);
    if (!collected.ok()) return collected.status();
    timelines.push_back(std::move(collected.value()));
    if (!f.explain) return Status::Ok();
    return ExplainTimeline(feed, dir.Sub(feed), model, spec.count, explained);
  };
  auto runs = RunModes(trace.value(), model, options, dir.path(), progress, after);
  progress.Clear();
  if (!runs.ok()) return cli::ReportError(kProgram, runs.status(), json);

  for (const ModeRun& run : runs.value()) {
    r.metrics.push_back(Derive(run, model, nullptr, true));
    for (const auto& sample : run.error_samples)
      std::cerr << kProgram << ": warning: " << run.feed << ": " << sample << "\n";
  }
  r.compared = CompareTimelines(r.feeds, timelines, kMaxReports);
  r.subtitle = (f.trace_path.empty() ? spec.kind + " workload, seed " + std::to_string(spec.seed)
                                     : "trace " + f.trace_path) +
               ": " + DescribeTrace(trace.value(), model) + "; " +
               std::to_string(r.cluster.shards) + " shards, celebrity threshold " +
               std::to_string(r.cluster.celebrity_threshold) + " fans, active list " +
               std::to_string(r.cluster.active_list);
  r.explained = explained.str();
  return Output(f, r, dir);
}

}  // namespace
}  // namespace weibo::bench

int main(int argc, char** argv) { return weibo::bench::Main(argc, argv); }
