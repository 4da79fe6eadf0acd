#include "report.h"

#include <cmath>
#include <map>
#include <ostream>

#include "driver.h"
#include "retwis.h"
#include "weibo/version.h"

namespace weibo::bench {
namespace {

std::vector<double> Column(const std::vector<ModeMetrics>& modes, double ModeMetrics::*field) {
  std::vector<double> v;
  for (const auto& m : modes) v.push_back(m.*field);
  return v;
}

template <typename Get>
std::vector<double> Values(const std::vector<ModeMetrics>& modes, Get get) {
  std::vector<double> v;
  for (const auto& m : modes) v.push_back(static_cast<double>(get(m)));
  return v;
}

// The rows of the baselines of one rate, and the rate over each: "<prefix> / ceiling".
void AddAgainst(Table& t, const std::string& prefix, const std::vector<ModeMetrics>& modes,
                Against (*of)(const ModeMetrics&)) {
  t.Add("  same commits rows/s", "rows/s",
        Values(modes, [&](auto& m) { return of(m).same_commits; }), 1);
  t.Add("  one txn per post rows/s", "rows/s",
        Values(modes, [&](auto& m) { return of(m).txn_per_post; }), 1);
  t.Add("  ceiling rows/s", "rows/s", Values(modes, [&](auto& m) { return of(m).ceiling; }), 1);
  t.Add(prefix + " / same commits", "ratio",
        Values(modes, [&](auto& m) { return of(m).vs_same_commits; }), 3);
  t.Add(prefix + " / one txn per post", "ratio",
        Values(modes, [&](auto& m) { return of(m).vs_txn_per_post; }), 3);
  t.Add(prefix + " / ceiling", "ratio", Values(modes, [&](auto& m) { return of(m).vs_ceiling; }),
        3);
}

template <typename Int>
std::vector<double> Counts(const std::vector<ModeMetrics>& modes, Int ModeMetrics::*field) {
  std::vector<double> v;
  for (const auto& m : modes) v.push_back(static_cast<double>(m.*field));
  return v;
}

// The embedded mode a daemon column (driver.h's DaemonLabel) was paired with, or null.
const ModeMetrics* PairedWith(const std::vector<ModeMetrics>& modes, const ModeMetrics& m) {
  for (const auto& e : modes)
    if (&e != &m && DaemonLabel(e.feed) == m.feed) return &e;
  return nullptr;
}

// The Retwis peer's column (retwis.h), or null.
const ModeMetrics* Peer(const std::vector<ModeMetrics>& modes) {
  for (const auto& m : modes)
    if (m.feed == kRetwisLabel) return &m;
  return nullptr;
}

// One column against the peer: rates as ours / peer's (above 1: we are faster), times as
// ours / peer's (below 1: we are faster).
Json VsPeer(const ModeMetrics& m, const ModeMetrics& peer) {
  return Json{{"timeline_reads_per_s", Number(Ratio(m.reads_per_s, peer.reads_per_s))},
              {"timeline_p50_ms", Number(Ratio(m.read_p50, peer.read_p50))},
              {"timeline_p99_ms", Number(Ratio(m.read_p99, peer.read_p99))},
              {"posts_per_s", Number(Ratio(m.posts_per_s, peer.posts_per_s))},
              {"post_p50_ms", Number(Ratio(m.post_p50, peer.post_p50))},
              {"post_p99_ms", Number(Ratio(m.post_p99, peer.post_p99))},
              {"setup_seconds", Number(Ratio(m.setup_seconds, peer.setup_seconds))},
              {"trace_seconds", Number(Ratio(m.trace_seconds, peer.trace_seconds))}};
}

void PrintVsPeer(std::ostream& out, const std::vector<ModeMetrics>& modes) {
  const ModeMetrics* peer = Peer(modes);
  if (peer == nullptr) return;
  out << "\nagainst " << kRetwisLabel
      << " (rates: ours / Retwis's, above 1 is faster; times: ours / Retwis's, below 1 is "
         "faster; interleaved in blocks of "
      << kPairBlock << "):\n";
  for (const auto& m : modes) {
    if (&m == peer) continue;
    Json v = VsPeer(m, *peer);
    auto f = [&](const char* key) {
      return v[key].is_null() ? std::string("-") : FormatNumber(v[key].get<double>(), 3);
    };
    out << "  " << m.feed << ": timeline reads/s " << f("timeline_reads_per_s") << ", p99 "
        << f("timeline_p99_ms") << "; posts/s " << f("posts_per_s") << ", p99 " << f("post_p99_ms")
        << "; setup " << f("setup_seconds") << "; whole trace " << f("trace_seconds") << "\n";
  }
}

Json ClusterJson(const RunInfo& info) {
  return Json{
      {"shards", info.cluster.shards},
      {"celebrity_threshold", info.cluster.celebrity_threshold},
      {"celebrity_threshold_auto", info.threshold_auto},
      {"active_list", info.cluster.active_list},
      {"group_commit", info.cluster.group_commit},
      {"durability", info.cluster.durability},
      {"strategy", info.cluster.strategy},
      {"active_list_auto", info.active_list_auto},
      {"inbox_cap", info.cluster.inbox_cap != 0 ? Json(info.cluster.inbox_cap) : Json(nullptr)}};
}

}  // namespace

std::string DescribeTrace(const Trace& trace, const TraceModel& model) {
  std::map<std::string, int64_t> ops;
  for (size_t i = model.setup_ops; i < trace.size(); ++i) ++ops[trace[i].op];
  std::string text = std::to_string(model.setup_users) + " users, " +
                     std::to_string(model.setup_posts) + " posts, " +
                     std::to_string(model.setup_follows) + " follows in setup; measured:";
  if (ops.empty()) return text + " nothing";
  bool first = true;
  for (const auto& [op, n] : ops) {
    text += (first ? " " : ", ") + std::to_string(n) + " " + op;
    first = false;
  }
  return text;
}

Table BenchTable(const std::vector<ModeMetrics>& modes, bool async) {
  Table t;
  for (const auto& m : modes) t.columns.push_back(m.feed);
  using M = ModeMetrics;
  t.Add("posts", "ops", Counts(modes, &M::posts), 0);
  t.Add("posts/s", "1/s", Column(modes, &M::posts_per_s), 1);
  t.Add("post p50 ms", "ms", Column(modes, &M::post_p50), 2);
  t.Add("post p99 ms", "ms", Column(modes, &M::post_p99), 2);
  t.Add("post p999 ms", "ms", Column(modes, &M::post_p999), 2);
  if (async) {
    t.Add("post+drain p50 ms", "ms", Column(modes, &M::completed_p50), 2);
    t.Add("post+drain p99 ms", "ms", Column(modes, &M::completed_p99), 2);
  }
  t.Add("slowest fan-out ms", "ms", Column(modes, &M::slowest_ms), 2);
  t.Add("  its author's fans", "fans", Counts(modes, &M::slowest_fans), 0);
  t.Add("deliveries (inbox rows)", "rows", Column(modes, &M::deliveries), 0);
  t.Add("deliveries/post", "rows", Column(modes, &M::deliveries_per_post), 1);
  t.Add("deliveries/s", "rows/s", Column(modes, &M::deliveries_per_s), 1);
  AddAgainst(t, "deliveries/s", modes, [](const M& m) { return m.against; });
  t.Add("rows written/post", "rows", Column(modes, &M::rows_per_post), 1);
  t.Add("db bytes/post", "bytes", Column(modes, &M::db_bytes_per_post), 0);
  t.Add("written bytes/post", "bytes", Column(modes, &M::written_bytes_per_post), 0);
  t.Add("timeline reads", "ops", Counts(modes, &M::reads), 0);
  t.Add("timeline reads/s", "1/s", Column(modes, &M::reads_per_s), 1);
  t.Add("timeline p50 ms", "ms", Column(modes, &M::read_p50), 3);
  t.Add("timeline p99 ms", "ms", Column(modes, &M::read_p99), 3);
  t.Add("timeline p999 ms", "ms", Column(modes, &M::read_p999), 3);
  bool pulled = false;
  for (const auto& m : modes) pulled = pulled || !std::isnan(m.pulled_per_read);
  if (pulled) {
    t.Add("pulled authors/read", "authors", Column(modes, &M::pulled_per_read), 1);
    t.Add("  median", "authors", Column(modes, &M::pulled_p50), 0);
    t.Add("  90th percentile", "authors", Column(modes, &M::pulled_p90), 0);
  }
  bool likes = false;
  for (const auto& m : modes) likes = likes || m.likes > 0;
  if (likes) {
    t.Add("likes", "ops", Counts(modes, &M::likes), 0);
    t.Add("likes/s", "1/s", Column(modes, &M::likes_per_s), 1);
    t.Add("counter writes/like", "statements", Column(modes, &M::counter_writes_per_like), 3);
  }
  t.Add("errors", "ops", Counts(modes, &M::errors), 0);
  if (Peer(modes) != nullptr) {
    t.Add("setup s", "s", Column(modes, &M::setup_seconds), 1);
    t.Add("whole trace s", "s", Column(modes, &M::trace_seconds), 1);
  }
  bool star = false;
  for (const auto& m : modes) star = star || m.has_star;
  if (!star) return t;
  t.Add("star post: fans", "fans", Values(modes, [](const M& m) { return m.star.fans; }), 0);
  t.Add("star post ms", "ms", Values(modes, [](const M& m) { return m.star.ms; }), 1);
  t.Add("star deliveries", "rows", Values(modes, [](const M& m) { return m.star.deliveries; }), 0);
  t.Add("star deliveries/s", "rows/s",
        Values(modes, [](const M& m) { return m.star.deliveries_per_s; }), 1);
  AddAgainst(t, "star deliveries/s", modes, [](const M& m) { return m.star.against; });
  return t;
}

namespace {

// The line under the table that says what the baselines did.
void DescribeBaselines(std::ostream& out, const char* what, const Baselines& b) {
  const BaselineRun& same = b.same_commits;
  out << "\nbaselines (" << what << "): plain SQLite, msg_index's rows, a shard's settings, "
      << same.rows << " rows; same commits: " << same.transactions << " transactions on "
      << same.files << " files, " << same.deferred << " without fsync, group commit "
      << same.group_commit << ", " << same.fsyncs << " fsyncs"
      << (same.interleaved_block > 0 ? ", interleaved with the mode in blocks of " +
                                           std::to_string(same.interleaved_block) + " ops"
                                     : std::string())
      << "; one txn per post: " << b.txn_per_post.transactions << " transactions, "
      << b.txn_per_post.fsyncs
      << " fsyncs; ceiling: 1 transaction on 1 file, 1 fsync, the fastest of " << b.ceiling.runs
      << " runs";
}

}  // namespace

void PrintBench(std::ostream& out, const RunInfo& info, const TraceModel& model,
                const std::vector<ModeMetrics>& modes, const std::vector<AfterModeResults>& after) {
  out << "weibo-bench " << info.command << ": ";
  if (!info.workload.is_null())
    out << info.workload["workload"].get<std::string>() << " workload, seed "
        << info.workload["seed"].get<uint64_t>();
  else
    out << "trace " << info.trace;
  out << " (" << info.trace_ops << " ops)\n";
  out << "setup: " << model.setup_users << " users, " << model.setup_posts << " posts, "
      << model.setup_follows << " follows (" << model.setup_ops << " ops, "
      << (!info.connect.empty()
              ? std::string("on the daemon")
              : std::string("synchronous=") + (info.durable_setup ? "FULL" : "OFF"))
      << "):";
  for (const auto& m : modes)
    out << " " << m.feed << " " << FormatNumber(m.setup_seconds, 1) << " s";
  if (!info.connect.empty()) {
    out << "\ndaemon: " << info.connect << " (its own cluster, feed mode and limits)";
  } else {
    out << "\ncluster: " << info.cluster.shards << " shards, celebrity threshold "
        << info.cluster.celebrity_threshold
        << (info.threshold_auto ? " fans (auto: top 1%)" : " fans") << ", active list "
        << info.cluster.active_list << (info.active_list_auto ? " (auto: the threshold)" : "")
        << ", inbox cap "
        << (info.cluster.inbox_cap != 0 ? std::to_string(info.cluster.inbox_cap)
                                        : std::string("default"))
        << ", group commit "
        << (info.cluster.group_commit != 0 ? std::to_string(info.cluster.group_commit) + " jobs"
                                           : std::string("off"))
        << ", durability " << info.cluster.durability << ", strategy " << info.cluster.strategy;
  }
  out << (info.async ? ", async writes + drain" : "") << "\n\n";
  BenchTable(modes, info.async).Print(out);
  // Every mode's baselines insert the same rows in the same shapes: the first describes all.
  bool described = false;
  for (const auto& a : after)
    if (a.baselines && !described) {
      DescribeBaselines(out, "push's deliveries of the measured phase", *a.baselines);
      described = true;
    }
  for (const auto& a : after)
    if (a.star) {
      DescribeBaselines(out, "the star post's deliveries", a.star->baselines);
      described = true;
      break;
    }
  if (described) out << "\n";
  for (const auto& m : modes) {
    const ModeMetrics* e = PairedWith(modes, m);
    if (e == nullptr) continue;
    out << "\n"
        << m.feed << " / " << e->feed << ": posts/s "
        << FormatNumber(Ratio(m.posts_per_s, e->posts_per_s), 3) << ", timeline reads/s "
        << FormatNumber(Ratio(m.reads_per_s, e->reads_per_s), 3)
        << " (same ops, interleaved in blocks of " << kPairBlock << ")";
  }
  if (info.daemon) out << "\n";
  PrintVsPeer(out, modes);
  for (const auto& m : modes)
    if (m.errors > 0) out << "\n" << m.feed << ": " << m.errors << " op(s) refused\n";
}

Json BenchJson(const RunInfo& info, const TraceModel& model, const std::vector<ModeMetrics>& modes,
               const std::vector<AfterModeResults>& after) {
  Json j{{"program", "weibo-bench"}, {"version", kVersion}, {"command", info.command}};
  j["workload"] = info.workload;
  j["trace"] = info.trace.empty() ? Json(nullptr) : Json(info.trace);
  j["trace_ops"] = info.trace_ops;
  j["setup"] = {{"ops", model.setup_ops},
                {"users", model.setup_users},
                {"posts", model.setup_posts},
                {"follows", model.setup_follows},
                {"synchronous", info.durable_setup ? "FULL" : "OFF"}};
  j["cluster"] = info.connect.empty() ? ClusterJson(info) : Json(nullptr);
  j["connect"] = info.connect.empty() ? Json(nullptr) : Json(info.connect);
  j["async"] = info.async;
  j["daemon"] = info.daemon;
  j["peer"] = info.peer.empty() ? Json(nullptr) : Json(info.peer);
  j["modes"] = Json::array();
  for (size_t i = 0; i < modes.size(); ++i) {
    Json mode = modes[i].ToJson();
    const AfterModeResults* a = i < after.size() ? &after[i] : nullptr;
    mode["baselines"] = a && a->baselines ? a->baselines->ToJson() : Json(nullptr);
    if (a && a->star) {
      mode["star"]["setup_seconds"] = a->star->setup_seconds;
      mode["star"]["posts"] = a->star->posts;
      Json post_ms = Json::array();
      for (double sec : a->star->post_seconds) post_ms.push_back(sec * 1000);
      mode["star"]["post_ms"] = std::move(post_ms);
      mode["star"]["baselines"] = a->star->baselines.ToJson();
    }
    if (const ModeMetrics* e = PairedWith(modes, modes[i]))
      mode["vs_embedded"] = {
          {"feed", e->feed},
          {"posts_per_s", Number(Ratio(modes[i].posts_per_s, e->posts_per_s))},
          {"timeline_reads_per_s", Number(Ratio(modes[i].reads_per_s, e->reads_per_s))}};
    const ModeMetrics* peer = Peer(modes);
    if (peer != nullptr && peer != &modes[i]) mode["vs_retwis"] = VsPeer(modes[i], *peer);
    j["modes"].push_back(mode);
  }
  return j;
}

}  // namespace weibo::bench
