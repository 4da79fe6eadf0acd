// weibo-sim: one workload under push, pull and hybrid, side by side, for teaching; and a
// check that every user's home timeline is the same in all three. See weibo-sim(1).
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <iostream>
#include <sstream>

#include "cli_support.h"
#include "driver.h"
#include "metrics.h"
#include "report.h"
#include "strategies.h"
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
  bool progress = false;       // --progress: the bar even when standard error is no terminal
  std::string jq;              // --jq EXPR
  std::string sweep;           // --sweep-active-list L1,L2,...
  int64_t strategy_ops = 200;  // --strategy all: ops of each kind
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
  t.Add("pulled authors per timeline", "authors", col(&ModeMetrics::pulled_per_read), 1);
  t.Add("  median", "authors", col(&ModeMetrics::pulled_p50), 0);
  t.Add("  90th percentile", "authors", col(&ModeMetrics::pulled_p90), 0);
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
                  {"strategy", cluster.strategy},
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
  app.add_option("--sweep-active-list", f->sweep,
                 "instead: hybrid once per active-list length (L1,L2,...), push for reference")
      ->type_name("LIST");
  app.add_option("--strategy-ops", f->strategy_ops,
                 "with --strategy all: ops of each kind measured per strategy")
      ->check(CLI::Range(1, 100000))
      ->capture_default_str();
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
  if (!f.sweep.empty() && (app.count("--active-list") > 0 || f.explain || f.hot_likes > 0))
    return Status(Code::kInvalidArgument,
                  "--sweep-active-list sets the active list itself and does not combine with "
                  "--active-list, --explain or --hot-likes");
  if (f.cluster.strategy == "all" &&
      (!f.sweep.empty() || f.explain || f.hot_likes > 0 || f.async || f.jsonl))
    return Status(Code::kInvalidArgument,
                  "--strategy all compares the strategies on its own probe ops and does not "
                  "combine with --sweep-active-list, --explain, --hot-likes, --async or --jsonl");
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

// --jq, --json or --jsonl: prints all as asked and returns true (*exit set, non-zero on a
// jq error); false when the text is wanted. --jsonl prints a line per element of
// all[list], then the timelines' verdict.
bool PrintJson(const SimFlags& f, const Json& all, const char* list, int* exit) {
  *exit = 0;
  if (!f.jq.empty()) {
    cli::Jq jq(f.jq);
    std::string out;
    Status filtered = jq.Run(all.dump(), &out);
    std::cout << out;
    if (!filtered.ok()) *exit = cli::ReportError(kProgram, filtered, true);
  } else if (f.json) {
    std::cout << all.dump(2) << "\n";
  } else if (f.jsonl) {
    for (const auto& row : all[list]) std::cout << row.dump() << "\n";
    std::cout << Json{{"timelines", all["timelines"]}}.dump() << "\n";
  } else {
    return false;
  }
  return true;
}

// Exit 0 when the timelines agree; else 1, the verdict and the differences on stderr.
int ComparedExit(const Comparison& c, const std::vector<std::string>& feeds) {
  if (c.users_differing == 0) return 0;
  std::cerr << kProgram << ": " << Verdict(c, feeds) << "\n";
  for (const auto& line : c.reports) std::cerr << kProgram << ": MISMATCH: " << line << "\n";
  return 1;
}

// The driver options both runs share: the cluster's knobs resolved for the trace, and the
// read counting the sim's figures need.
Status SimDriverOptions(const SimFlags& f, const TraceModel& model, int64_t clock_ms,
                        DriverOptions* options) {
  options->default_now_ms = f.trace_path.empty() ? 0 : clock_ms;
  options->durable_setup = f.cluster.durable_setup;
  options->async = f.async;
  options->count_reads = true;
  return ResolveCluster(f.cluster, model, &options->cluster);
}

// --sweep-active-list: the lengths, ascending and each once.
Result<std::vector<int64_t>> ParseLengths(const std::string& text) {
  std::vector<int64_t> lengths;
  std::istringstream in(text);
  for (std::string part; std::getline(in, part, ',');) {
    const bool digits = !part.empty() && part.size() <= 9 &&
                        part.find_first_not_of("0123456789") == std::string::npos;
    if (!digits || std::stoll(part) < 1)
      return Status(
          Code::kInvalidArgument,
          "--sweep-active-list wants positive lengths separated by commas, not '" + text + "'");
    lengths.push_back(std::stoll(part));
  }
  std::sort(lengths.begin(), lengths.end());
  lengths.erase(std::unique(lengths.begin(), lengths.end()), lengths.end());
  if (lengths.empty()) return Status(Code::kInvalidArgument, "--sweep-active-list names no length");
  return lengths;
}

// The sweep's table: one row per active-list length (and push's last, for reference), the
// write side's cost against the read side's.
struct SweepColumn {
  const char* name;  // the CSV and JSON name
  const char* title;
  double ModeMetrics::*field;
  int decimals;
};
const SweepColumn kSweepColumns[] = {
    {"rows_per_post", "rows written/post", &ModeMetrics::rows_per_post, 1},
    {"deliveries_per_post", "inbox rows/post", &ModeMetrics::deliveries_per_post, 1},
    {"pulled_per_read", "pulled/read", &ModeMetrics::pulled_per_read, 1},
    {"pulled_p50", "p50", &ModeMetrics::pulled_p50, 0},
    {"pulled_p90", "p90", &ModeMetrics::pulled_p90, 0},
    {"statements_per_read", "statements/read", &ModeMetrics::statements_per_read, 1},
    {"shards_per_read", "shards/read", &ModeMetrics::shards_per_read, 2},
    {"rows_read_per_read", "rows read/read", &ModeMetrics::rows_read_per_read, 1},
    {"read_p50_ms", "read p50 ms", &ModeMetrics::read_p50, 3},
};

void PrintSweep(std::ostream& out, const std::vector<std::string>& labels,
                const std::vector<ModeMetrics>& metrics) {
  std::vector<std::vector<std::string>> cells = {{"active list"}};
  for (const SweepColumn& c : kSweepColumns) cells[0].push_back(c.title);
  for (size_t i = 0; i < metrics.size(); ++i) {
    cells.push_back({labels[i]});
    for (const SweepColumn& c : kSweepColumns)
      cells.back().push_back(FormatNumber(metrics[i].*c.field, c.decimals));
  }
  std::vector<size_t> width(cells[0].size(), 0);
  for (const auto& row : cells)
    for (size_t c = 0; c < row.size(); ++c) width[c] = std::max(width[c], row[c].size());
  for (const auto& row : cells) {
    for (size_t c = 0; c < row.size(); ++c)
      out << (c == 0 ? "" : "  ") << std::string(width[c] - row[c].size(), ' ') << row[c];
    out << "\n";
  }
}

int SweepMain(const SimFlags& f, const WorkloadSpec& spec, const Trace& trace,
              const TraceModel& model, int64_t clock_ms) {
  const bool json = f.json || f.jsonl || !f.jq.empty();
  auto lengths = ParseLengths(f.sweep);
  if (!lengths.ok()) return cli::ReportError(kProgram, lengths.status(), json);
  DriverOptions options;
  Status s = SimDriverOptions(f, model, clock_ms, &options);
  if (!s.ok()) return cli::ReportError(kProgram, s, json);
  auto work = WorkDir::Make(f.data, kProgram);
  if (!work.ok()) return cli::ReportError(kProgram, work.status(), json);
  WorkDir dir = std::move(work.value());
  Progress progress(f.progress);
  // The same trace once per length in a cluster of its own (DIR/list-L/hybrid), then push
  // (DIR/push); every hybrid's timelines are compared with push's, item for item.
  std::vector<std::string> labels, feeds;
  std::vector<ModeMetrics> metrics;
  std::vector<Timelines> timelines;
  auto collect = [&](Replayer& replayer, const BaselineRun*) -> Status {
    auto collected =
        CollectTimelines(replayer.executor(), model.users, replayer.message_ids(), f.verify_depth);
    if (!collected.ok()) return collected.status();
    timelines.push_back(std::move(collected.value()));
    return Status::Ok();
  };
  std::vector<int64_t> runs = lengths.value();
  runs.push_back(0);  // 0: push
  for (int64_t length : runs) {
    DriverOptions o = options;
    o.feeds = {length == 0 ? "push" : "hybrid"};
    o.cluster.active_list = length == 0 ? options.cluster.active_list : length;
    std::string sub = length == 0 ? dir.path() : dir.Sub("list-" + std::to_string(length));
    std::error_code ec;
    std::filesystem::create_directories(sub, ec);
    auto ran = RunModes(trace, model, o, sub, progress, collect);
    if (!ran.ok()) {
      progress.Clear();
      return cli::ReportError(kProgram, ran.status(), json);
    }
    for (const auto& sample : ran.value()[0].error_samples)
      std::cerr << kProgram << ": warning: " << o.feeds[0] << ": " << sample << "\n";
    metrics.push_back(Derive(ran.value()[0], model, nullptr, true));
    labels.push_back(length == 0 ? "push" : std::to_string(length));
    feeds.push_back(length == 0 ? "push" : "hybrid " + std::to_string(length));
  }
  progress.Clear();
  // push first: the reference every hybrid is compared with.
  std::rotate(feeds.rbegin(), feeds.rbegin() + 1, feeds.rend());
  std::vector<Timelines> ordered(timelines.rbegin(), timelines.rbegin() + 1);
  ordered.insert(ordered.end(), timelines.begin(), timelines.end() - 1);
  const Comparison compared = CompareTimelines(feeds, ordered, kMaxReports);
  const std::string subtitle =
      (f.trace_path.empty() ? spec.kind + " workload, seed " + std::to_string(spec.seed)
                            : "trace " + f.trace_path) +
      ": " + DescribeTrace(trace, model) + "; " + std::to_string(options.cluster.shards) +
      " shards, celebrity threshold " + std::to_string(options.cluster.celebrity_threshold) +
      " fans; hybrid per active-list length, push for reference";
  Json all{{"program", kProgram}, {"version", kVersion}};
  all["workload"] = f.trace_path.empty() ? spec.ToJson() : Json(nullptr);
  all["trace"] = f.trace_path.empty() ? Json(nullptr) : Json(f.trace_path);
  all["cluster"] = {{"shards", options.cluster.shards},
                    {"celebrity_threshold", options.cluster.celebrity_threshold}};
  all["sweep"] = Json::array();
  for (size_t i = 0; i < metrics.size(); ++i) {
    Json row{{"active_list", i + 1 == metrics.size() ? Json(nullptr) : Json(runs[i])},
             {"feed", i + 1 == metrics.size() ? "push" : "hybrid"}};
    for (const SweepColumn& c : kSweepColumns) row[c.name] = Number(metrics[i].*c.field);
    all["sweep"].push_back(row);
  }
  all["timelines"] = {{"identical", compared.users_differing == 0},
                      {"users", compared.users},
                      {"users_differing", compared.users_differing}};
  int exit = 0;
  if (PrintJson(f, all, "sweep", &exit)) {
    if (exit != 0) return exit;
  } else {
    std::cout << kProgram << ": " << subtitle << "\n\n";
    PrintSweep(std::cout, labels, metrics);
    std::cout << "\n" << Verdict(compared, feeds) << "\n";
  }
  if (!dir.temporary())
    (json ? std::cerr : std::cout) << "\nclusters kept in " << dir.path() << "\n";
  std::cout << std::flush;
  // CSV: one line a length (push's last, its active_list empty); SVG: one panel a metric,
  // one bar a length, so each panel is the curve of that metric.
  if (!f.csv.empty()) {
    std::ostringstream csv;
    csv << "active_list";
    for (const SweepColumn& c : kSweepColumns) csv << "," << c.name;
    csv << "\n";
    for (size_t i = 0; i < metrics.size(); ++i) {
      csv << (i + 1 == metrics.size() ? "" : std::to_string(runs[i]));
      for (const SweepColumn& c : kSweepColumns) {
        const double v = metrics[i].*c.field;
        csv << ",";
        if (!std::isnan(v)) csv << v;
      }
      csv << "\n";
    }
    s = WriteText(f.csv, csv.str());
  }
  if (s.ok() && !f.svg.empty()) {
    Table t;
    for (const std::string& l : labels) t.columns.push_back(l == "push" ? l : "list " + l);
    for (const SweepColumn& c : kSweepColumns) {
      std::vector<double> v;
      for (const ModeMetrics& m : metrics) v.push_back(m.*c.field);
      t.Add(c.title, "", v, c.decimals);
    }
    s = WriteText(f.svg, SvgBarChart(t, "weibo-sim: hybrid's active-list length", subtitle));
  }
  if (!s.ok()) return cli::ReportError(kProgram, s, json);
  return ComparedExit(compared, feeds);
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
  int exit = 0;
  if (PrintJson(f, all, "modes", &exit)) {
    if (exit != 0) return exit;
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
  return ComparedExit(r.compared, r.feeds);
}

// --strategy all: seed 003's comparison (strategies.h) on the workload's setup, hybrid.
int StrategiesMain(const SimFlags& f, const WorkloadSpec& spec, const Trace& trace,
                   const TraceModel& model, int64_t clock_ms) {
  const bool json = f.json || !f.jq.empty();
  DriverOptions driver;
  Status s = SimDriverOptions(f, model, clock_ms, &driver);
  if (!s.ok()) return cli::ReportError(kProgram, s, json);
  StrategyOptions o;
  o.cluster = driver.cluster;
  o.default_now_ms = driver.default_now_ms;
  o.durable_setup = driver.durable_setup;
  o.samples = f.strategy_ops;
  StrategyReport report;
  report.program = kProgram;
  report.data = f.data;
  report.jq = f.jq;
  report.json = f.json;
  report.json_indent = 2;
  report.progress = f.progress;
  report.extra = {{"workload", f.trace_path.empty() ? spec.ToJson() : Json(nullptr)},
                  {"trace", f.trace_path.empty() ? Json(nullptr) : Json(f.trace_path)}};
  const std::string subtitle =
      (f.trace_path.empty() ? spec.kind + " workload, seed " + std::to_string(spec.seed)
                            : "trace " + f.trace_path) +
      ": the setup (" + std::to_string(model.setup_users) + " users, " +
      std::to_string(model.setup_posts) + " posts, " + std::to_string(model.setup_follows) +
      " follows), then " + DescribeStrategyProbe(o);
  std::vector<StrategyRun> runs;
  if (int exit = CompareAndReport(trace, model, o, report, subtitle, &runs)) return exit;
  if (!f.csv.empty()) {
    std::ostringstream csv;
    StrategyTable(runs).WriteCsv(csv);
    s = WriteText(f.csv, csv.str());
  }
  // The SVG's panels: shards and statements per op kind, one bar a strategy.
  if (s.ok() && !f.svg.empty())
    s = WriteText(f.svg, SvgBarChart(StrategyShapeTable(runs),
                                     "weibo-sim: gene vs uid-mapping vs tid (seed 003)", subtitle));
  if (!s.ok()) return cli::ReportError(kProgram, s, json);
  return 0;
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
  if (!f.sweep.empty()) return SweepMain(f, spec, trace.value(), model, clock.value());
  if (f.cluster.strategy == "all")
    return StrategiesMain(f, spec, trace.value(), model, clock.value());

  SimResult r;
  r.workload = f.trace_path.empty() ? spec.ToJson() : Json(nullptr);
  r.feeds = {"push", "pull", "hybrid"};
  DriverOptions options;
  options.feeds = r.feeds;
  if (!(s = SimDriverOptions(f, model, clock.value(), &options)).ok())
    return cli::ReportError(kProgram, s, json);
  r.cluster = options.cluster;
  auto work = WorkDir::Make(f.data, kProgram);
  if (!work.ok()) return cli::ReportError(kProgram, work.status(), json);
  WorkDir dir = std::move(work.value());

  Progress progress(f.progress);
  std::vector<Timelines> timelines;
  std::ostringstream explained;
  auto after = [&](Replayer& replayer, const BaselineRun*) -> Status {
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
               std::to_string(r.cluster.active_list) +
               (r.cluster.strategy == "gene" ? "" : ", strategy " + r.cluster.strategy);
  r.explained = explained.str();
  return Output(f, r, dir);
}

}  // namespace
}  // namespace weibo::bench

int main(int argc, char** argv) { return weibo::bench::Main(argc, argv); }
