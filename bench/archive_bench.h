// weibo-bench archive (weibo-bench(1), ARCHIVE): seed 000's archive measured — a cluster
// loaded with --posts posts (default 10^6) through the real post flow, by Zipf-drawn
// authors among users who each follow --follows others, then the live shards' size and
// the home timeline's latency (first pages of random readers) before and after
// weibo-archive moves the oldest --fraction (default 0.9) of the posts into the archive.
#ifndef WEIBO_BENCH_ARCHIVE_BENCH_H_
#define WEIBO_BENCH_ARCHIVE_BENCH_H_

#include <cstdint>
#include <string>

#include "load_bench.h"
#include "weibo/status.h"
#include "weibo/storage.h"

namespace weibo::bench {

struct ArchiveBenchSpec : LoadSpec {
  ArchiveBenchSpec() {
    posts = 1000000;
    users = 10000;
  }
  int64_t follows = 20;   // followees per user, drawn uniformly
  int64_t reads = 1000;   // timeline reads timed on each side
  double fraction = 0.9;  // the oldest posts archived
  std::string feed = "push";
};

// The results as JSON ({"before": {"live_bytes", "timeline_ms": {"p50","p99"}}, "after":
// {...}, "archive": {...}}); Status on a refused op or a storage failure.
Result<Json> RunArchiveBench(const ArchiveBenchSpec& spec);
// The human table of those results.
std::string ArchiveBenchTable(const Json& results);

}  // namespace weibo::bench

#endif  // WEIBO_BENCH_ARCHIVE_BENCH_H_
