// ModeMetrics: the numbers of weibo-bench(1) and weibo-sim(1) for one feed mode, derived
// from what the Replayer measured. The man pages say what each one means; in short:
//
//   posts/s            post ops / seconds spent inside post ops (one client, back to back)
//   deliveries         msg_index rows added during the measured phase (inbox rows: one per
//                      follower reached, plus the author's own), counted from outside
//   deliveries/s       deliveries / seconds spent inside write ops (with async, including
//                      the drain that applied each write's jobs)
//   baselines          the rates of plain SQLite inserting the same delivery rows in three
//                      commit shapes (baselines.h), and deliveries/s as a fraction of each
//   rows/post          rows the library inserted, updated or deleted inside post ops, per post
//   db bytes/post      growth of the bytes stored in the shard databases' pages (dbstat)
//                      over the measured phase, per post; the files plus WALs grow unevenly,
//                      as the library truncates a WAL past 4 MiB (JSON: file_bytes_per_post)
//   written bytes/post bytes passed to write(2) inside post ops, per post
//   reads/s and the percentiles: timeline ops, timed the same way
//   pulled authors/read  followees a home read merged from their own posts instead of its
//                      inbox (every one in pull; celebrities and authors whose active list
//                      lacks the reader in hybrid): mean, median and 90th percentile
//   counter writes/like  UPDATE msg_counter statements of the measured phase (rows of
//                      msg_counter updated, counted by a trigger: counters.h) per like op;
//                      every counter update counts, comments' and reposts' too
#ifndef WEIBO_BENCH_METRICS_H_
#define WEIBO_BENCH_METRICS_H_

#include <cstdint>
#include <limits>
#include <string>

#include "baselines.h"
#include "model.h"
#include "replay.h"
#include "weibo/request.h"

namespace weibo::bench {

constexpr double kNone = std::numeric_limits<double>::quiet_NaN();  // "not measured"

// A rate of deliveries beside the baselines of the same rows: their rows/s, and the rate
// as a fraction of each (kNone when no baseline ran).
struct Against {
  double same_commits = kNone, txn_per_post = kNone, ceiling = kNone;
  double vs_same_commits = kNone, vs_txn_per_post = kNone, vs_ceiling = kNone;

  static Against Of(double rows_per_s, const Baselines& baselines);
  Json ToJson() const;  // {"baselines_rows_per_s": {...}, "ratios": {...}}
};

// --star: one post to many fans after the measured phase (star.h).
struct StarMetrics {
  int64_t fans = 0, deliveries = 0;
  double ms = kNone, deliveries_per_s = kNone;
  Against against;
};

struct ModeMetrics {
  std::string feed;
  int64_t setup_ops = 0;
  double setup_seconds = 0;
  // The whole trace: setup_seconds plus the seconds spent inside every measured op (and
  // the final settle): what one client replaying the trace alone would take.
  double trace_seconds = 0;
  int64_t posts = 0, reads = 0, errors = 0;
  double posts_per_s = kNone, post_p50 = kNone, post_p99 = kNone, post_p999 = kNone,
         post_max = kNone;
  double completed_p50 = kNone, completed_p99 = kNone;  // async: post + drain
  double slowest_ms = kNone;  // the slowest post (async: post + drain): the largest fan-out
  int64_t slowest_author = 0, slowest_fans = 0;
  double deliveries = kNone;
  double deliveries_per_post = kNone, deliveries_per_s = kNone;
  double rows_per_post = kNone, db_bytes_per_post = kNone, file_bytes_per_post = kNone,
         written_bytes_per_post = kNone;
  double reads_per_s = kNone, read_p50 = kNone, read_p99 = kNone, read_p999 = kNone,
         read_max = kNone;
  double rows_read_per_read = kNone, statements_per_read = kNone, shards_per_read = kNone;
  // Followees a home read merged from their own posts (pulled), over the reads of an
  // embedded run: mean, median, 90th percentile (kNone through a daemon).
  double pulled_per_read = kNone, pulled_p50 = kNone, pulled_p90 = kNone;
  int64_t db_bytes = 0, file_bytes = 0;  // at the end: bytes stored; files + WALs
  int64_t likes = 0;
  double likes_per_s = kNone, counter_writes_per_like = kNone;
  Against against;  // deliveries/s beside the baselines run right after this mode
  bool has_star = false;
  StarMetrics star;

  Json ToJson() const;
};

// A figure in JSON: null when not measured (kNone).
Json Number(double v);
// a / b, or kNone when either is not measured or b is 0.
double Ratio(double a, double b);

// baselines null: none were run, no ratios. count_reads: whether the probe counted reads.
ModeMetrics Derive(const ModeRun& run, const TraceModel& model, const Baselines* baselines,
                   bool count_reads);

}  // namespace weibo::bench

#endif  // WEIBO_BENCH_METRICS_H_
