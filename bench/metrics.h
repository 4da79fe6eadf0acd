// ModeMetrics: the numbers of weibo-bench(1) and weibo-sim(1) for one feed mode, derived
// from what the Replayer measured. The man pages say what each one means; in short:
//
//   posts/s            post ops / seconds spent inside post ops (one client, back to back)
//   deliveries         msg_index rows added during the measured phase (inbox rows: one per
//                      follower reached, plus the author's own), counted from outside
//   deliveries/s       deliveries / seconds spent inside write ops (with async, including
//                      the drain that applied each write's jobs)
//   rows/post          rows the library inserted, updated or deleted inside post ops, per post
//   db bytes/post      growth of the bytes stored in the shard databases' pages (dbstat)
//                      over the measured phase, per post; the files plus WALs grow unevenly,
//                      as the library truncates a WAL past 4 MiB (JSON: file_bytes_per_post)
//   written bytes/post bytes passed to write(2) inside post ops, per post
//   reads/s and the percentiles: timeline ops, timed the same way
#ifndef WEIBO_BENCH_METRICS_H_
#define WEIBO_BENCH_METRICS_H_

#include <cstdint>
#include <limits>
#include <string>

#include "model.h"
#include "replay.h"
#include "weibo/request.h"

namespace weibo::bench {

constexpr double kNone = std::numeric_limits<double>::quiet_NaN();  // "not measured"

struct ModeMetrics {
  std::string feed;
  int64_t setup_ops = 0;
  double setup_seconds = 0;
  int64_t posts = 0, reads = 0, errors = 0;
  double posts_per_s = kNone, post_p50 = kNone, post_p99 = kNone, post_p999 = kNone,
         post_max = kNone;
  double completed_p50 = kNone, completed_p99 = kNone;  // async: post + drain
  double slowest_ms = kNone;  // the slowest post (async: post + drain): the largest fan-out
  int64_t slowest_author = 0, slowest_fans = 0;
  double deliveries = kNone;
  double deliveries_per_post = kNone, deliveries_per_s = kNone, raw_ratio = kNone;
  double rows_per_post = kNone, db_bytes_per_post = kNone, file_bytes_per_post = kNone,
         written_bytes_per_post = kNone;
  double reads_per_s = kNone, read_p50 = kNone, read_p99 = kNone, read_p999 = kNone,
         read_max = kNone;
  double rows_read_per_read = kNone, statements_per_read = kNone, shards_per_read = kNone;
  int64_t db_bytes = 0, file_bytes = 0;  // at the end: bytes stored; files + WALs
  double raw_rows_per_s = kNone;         // the raw-insert baseline run right after this mode

  Json ToJson() const;
};

// raw_rows_per_s <= 0: no baseline, no ratio. count_reads: whether the probe counted reads.
// A figure in JSON: null when not measured (kNone).
Json Number(double v);

ModeMetrics Derive(const ModeRun& run, const TraceModel& model, double raw_rows_per_s,
                   bool count_reads);

}  // namespace weibo::bench

#endif  // WEIBO_BENCH_METRICS_H_
