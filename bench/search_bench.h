// weibo-bench search (weibo-bench(1), SEARCH): the search index of SPEC §7 measured — a
// cluster loaded with posts of mixed Chinese and English text through the real post flow
// (the index fed by the outbox and drained in batches), then 3-character queries taken from
// the posted texts, each a whole weibo-search request on the embedded executor; and the
// index's bytes against msg_info's.
#ifndef WEIBO_BENCH_SEARCH_BENCH_H_
#define WEIBO_BENCH_SEARCH_BENCH_H_

#include <cstdint>
#include <string>

#include "load_bench.h"
#include "weibo/status.h"
#include "weibo/storage.h"

namespace weibo::bench {

struct SearchBenchSpec : LoadSpec {
  SearchBenchSpec() {
    posts = 100000;
    users = 1000;
  }
  int64_t queries = 1000;
  int64_t count = 20;  // results per query, as weibo-search --count
  // --reuse: time the queries on the cluster an earlier run of the same --posts, --users,
  // --shards and --seed kept in --data, instead of loading it again. The texts are drawn
  // again (not posted) so that the queries are the same; load_seconds is then 0.
  bool reuse = false;
};

// The results as JSON ({"posts", "queries", "latency_ms": {"p50","p99","max"}, ...});
// Status on a refused op or a storage failure.
Result<Json> RunSearchBench(const SearchBenchSpec& spec);
// The human table of those results.
std::string SearchBenchTable(const Json& results);

}  // namespace weibo::bench

#endif  // WEIBO_BENCH_SEARCH_BENCH_H_
