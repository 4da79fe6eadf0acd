#include "metrics.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "stats.h"
#include "trace.h"

namespace weibo::bench {
namespace {

double Per(double value, int64_t n) { return n > 0 ? value / static_cast<double>(n) : kNone; }

}  // namespace

Json Number(double v) { return std::isnan(v) ? Json(nullptr) : Json(v); }

double Ratio(double a, double b) { return b > 0 && !std::isnan(a) ? a / b : kNone; }

Against Against::Of(double rows_per_s, const Baselines& baselines) {
  Against a;
  if (baselines.ceiling.rows == 0) return a;
  a.same_commits = baselines.same_commits.RowsPerSecond();
  a.txn_per_post = baselines.txn_per_post.RowsPerSecond();
  a.ceiling = baselines.ceiling.RowsPerSecond();
  a.vs_same_commits = Ratio(rows_per_s, a.same_commits);
  a.vs_txn_per_post = Ratio(rows_per_s, a.txn_per_post);
  a.vs_ceiling = Ratio(rows_per_s, a.ceiling);
  return a;
}

Json Against::ToJson() const {
  return Json{{"baselines_rows_per_s",
               {{"same_commits", Number(same_commits)},
                {"one_txn_per_post", Number(txn_per_post)},
                {"ceiling", Number(ceiling)}}},
              {"ratios",
               {{"same_commits", Number(vs_same_commits)},
                {"one_txn_per_post", Number(vs_txn_per_post)},
                {"ceiling", Number(vs_ceiling)}}}};
}

ModeMetrics Derive(const ModeRun& run, const TraceModel& model, const Baselines* baselines,
                   bool count_reads) {
  ModeMetrics m;
  m.feed = run.feed;
  m.setup_ops = run.setup_ops;
  m.setup_seconds = run.setup_seconds;
  m.errors = run.errors;
  m.db_bytes = run.after.db_bytes;
  m.file_bytes = run.after.file_bytes;
  if (run.storage_measured)
    m.deliveries = static_cast<double>(run.after.inbox_rows - run.before.inbox_rows);

  m.trace_seconds = run.setup_seconds + run.settle_seconds;
  for (const auto& [op, s] : run.ops)
    m.trace_seconds +=
        s.completed.count() > 0 ? s.completed.TotalSeconds() : s.latency.TotalSeconds();
  double write_seconds = 0;
  for (const auto& [op, s] : run.ops)
    if (Writes(op))
      write_seconds +=
          s.completed.count() > 0 ? s.completed.TotalSeconds() : s.latency.TotalSeconds();
  write_seconds += run.settle_seconds;
  if (write_seconds > 0 && run.storage_measured) m.deliveries_per_s = m.deliveries / write_seconds;
  if (baselines != nullptr) m.against = Against::Of(m.deliveries_per_s, *baselines);

  auto post = run.ops.find("post");
  if (post != run.ops.end() && post->second.latency.count() > 0) {
    const OpStats& s = post->second;
    m.posts = s.latency.count();
    m.posts_per_s = s.latency.PerSecond();
    m.post_p50 = s.latency.PercentileMs(50);
    m.post_p99 = s.latency.PercentileMs(99);
    m.post_p999 = s.latency.PercentileMs(99.9);
    m.post_max = s.latency.MaxMs();
    m.slowest_ms = m.post_max;
    if (s.completed.count() > 0) {
      m.completed_p50 = s.completed.PercentileMs(50);
      m.completed_p99 = s.completed.PercentileMs(99);
      m.slowest_ms = s.completed.MaxMs();
    }
    m.deliveries_per_post = Per(m.deliveries, m.posts);
    if (run.storage_measured) {
      m.rows_per_post = Per(static_cast<double>(s.rows_written), m.posts);
      m.written_bytes_per_post = Per(static_cast<double>(s.bytes_written), m.posts);
      m.db_bytes_per_post =
          Per(static_cast<double>(run.after.db_bytes - run.before.db_bytes), m.posts);
      m.file_bytes_per_post =
          Per(static_cast<double>(run.after.file_bytes - run.before.file_bytes), m.posts);
    }
  }
  if (run.slowest_post_op >= 0) {
    m.slowest_author = model.author[static_cast<size_t>(run.slowest_post_op)];
    m.slowest_fans = model.fans[static_cast<size_t>(run.slowest_post_op)];
  }
  auto like = run.ops.find("like");
  if (like != run.ops.end() && like->second.latency.count() > 0) {
    m.likes = like->second.latency.count();
    m.likes_per_s = like->second.latency.PerSecond();
    if (run.storage_measured && run.before.counter_updates >= 0)
      m.counter_writes_per_like =
          Per(static_cast<double>(run.after.counter_updates - run.before.counter_updates), m.likes);
  }
  auto read = run.ops.find("timeline");
  if (read != run.ops.end() && read->second.latency.count() > 0) {
    const OpStats& s = read->second;
    m.reads = s.latency.count();
    m.reads_per_s = s.latency.PerSecond();
    m.read_p50 = s.latency.PercentileMs(50);
    m.read_p99 = s.latency.PercentileMs(99);
    m.read_p999 = s.latency.PercentileMs(99.9);
    m.read_max = s.latency.MaxMs();
    if (count_reads && run.storage_measured) {
      m.rows_read_per_read = Per(static_cast<double>(s.rows_read), m.reads);
      m.statements_per_read = Per(static_cast<double>(s.statements), m.reads);
      m.shards_per_read = Per(static_cast<double>(s.shards_touched), m.reads);
    }
    if (!s.pulled_authors.empty()) {
      std::vector<int64_t> pulled = s.pulled_authors;
      std::sort(pulled.begin(), pulled.end());
      double sum = 0;
      for (int64_t p : pulled) sum += static_cast<double>(p);
      m.pulled_per_read = sum / static_cast<double>(pulled.size());
      m.pulled_p50 = static_cast<double>(NearestRank(pulled, 50));
      m.pulled_p90 = static_cast<double>(NearestRank(pulled, 90));
    }
  }
  return m;
}

Json ModeMetrics::ToJson() const {
  return Json{{"feed", feed},
              {"setup", {{"ops", setup_ops}, {"seconds", setup_seconds}}},
              {"trace_seconds", trace_seconds},
              {"posts", posts},
              {"posts_per_s", Number(posts_per_s)},
              {"post_latency_ms",
               {{"p50", Number(post_p50)},
                {"p99", Number(post_p99)},
                {"p999", Number(post_p999)},
                {"max", Number(post_max)}}},
              {"post_completed_latency_ms",
               {{"p50", Number(completed_p50)}, {"p99", Number(completed_p99)}}},
              {"slowest_post",
               {{"ms", Number(slowest_ms)}, {"author", slowest_author}, {"fans", slowest_fans}}},
              {"deliveries", Number(deliveries)},
              {"deliveries_per_post", Number(deliveries_per_post)},
              {"deliveries_per_s", Number(deliveries_per_s)},
              {"deliveries_per_s_against", against.ToJson()},
              {"rows_written_per_post", Number(rows_per_post)},
              {"db_bytes_per_post", Number(db_bytes_per_post)},
              {"file_bytes_per_post", Number(file_bytes_per_post)},
              {"written_bytes_per_post", Number(written_bytes_per_post)},
              {"likes", likes},
              {"likes_per_s", Number(likes_per_s)},
              {"counter_writes_per_like", Number(counter_writes_per_like)},
              {"timeline_reads", reads},
              {"timeline_reads_per_s", Number(reads_per_s)},
              {"timeline_latency_ms",
               {{"p50", Number(read_p50)},
                {"p99", Number(read_p99)},
                {"p999", Number(read_p999)},
                {"max", Number(read_max)}}},
              {"rows_read_per_timeline", Number(rows_read_per_read)},
              {"statements_per_timeline", Number(statements_per_read)},
              {"shards_per_timeline", Number(shards_per_read)},
              {"pulled_authors_per_timeline",
               {{"mean", Number(pulled_per_read)},
                {"p50", Number(pulled_p50)},
                {"p90", Number(pulled_p90)}}},
              {"db_bytes", db_bytes},
              {"file_bytes", file_bytes},
              {"errors", errors},
              {"star", has_star ? Json{{"fans", star.fans},
                                       {"ms", Number(star.ms)},
                                       {"deliveries", star.deliveries},
                                       {"deliveries_per_s", Number(star.deliveries_per_s)},
                                       {"deliveries_per_s_against", star.against.ToJson()}}
                                : Json(nullptr)}};
}

}  // namespace weibo::bench
