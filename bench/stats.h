// Latencies: every sample of one kind of op, for percentiles by nearest rank.
#ifndef WEIBO_BENCH_STATS_H_
#define WEIBO_BENCH_STATS_H_

#include <cstdint>
#include <vector>

namespace weibo::bench {

// The nearest-rank percentile (p in 0..100) of sorted, a non-empty ascending list: the
// smallest value that at least p% of the values are at or under.
int64_t NearestRank(const std::vector<int64_t>& sorted, double p);

class Latencies {
 public:
  void Add(int64_t ns);
  int64_t count() const { return static_cast<int64_t>(ns_.size()); }
  double TotalSeconds() const { return total_ns_ / 1e9; }
  // Nearest-rank percentile (p in 0..100) in milliseconds; 0 without samples.
  double PercentileMs(double p) const;
  double MaxMs() const;
  // Index (in Add order) of the slowest sample; -1 without samples.
  int64_t SlowestIndex() const;
  // count / TotalSeconds(): the rate of one client doing only this; 0 without samples.
  double PerSecond() const;

 private:
  std::vector<int64_t> ns_;
  mutable std::vector<int64_t> sorted_;
  double total_ns_ = 0;
};

}  // namespace weibo::bench

#endif  // WEIBO_BENCH_STATS_H_
