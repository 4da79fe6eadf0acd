#include "stats.h"

#include <algorithm>
#include <cmath>

namespace weibo::bench {

void Latencies::Add(int64_t ns) {
  ns_.push_back(ns);
  total_ns_ += static_cast<double>(ns);
}

int64_t NearestRank(const std::vector<int64_t>& sorted, double p) {
  size_t rank = static_cast<size_t>(std::ceil(p / 100.0 * static_cast<double>(sorted.size())));
  return sorted[std::clamp<size_t>(rank, 1, sorted.size()) - 1];
}

double Latencies::PercentileMs(double p) const {
  if (ns_.empty()) return 0;
  if (sorted_.size() != ns_.size()) {
    sorted_ = ns_;
    std::sort(sorted_.begin(), sorted_.end());
  }
  return NearestRank(sorted_, p) / 1e6;
}

double Latencies::MaxMs() const { return PercentileMs(100); }

int64_t Latencies::SlowestIndex() const {
  if (ns_.empty()) return -1;
  return std::max_element(ns_.begin(), ns_.end()) - ns_.begin();
}

double Latencies::PerSecond() const { return total_ns_ > 0 ? count() / TotalSeconds() : 0; }

}  // namespace weibo::bench
