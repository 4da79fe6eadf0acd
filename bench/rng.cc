#include "rng.h"

#include <algorithm>
#include <cmath>

namespace weibo::bench {

uint64_t Rng::Next() {
  uint64_t z = (state_ += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

uint64_t Rng::Below(uint64_t n) {
  return static_cast<uint64_t>((static_cast<unsigned __int128>(Next()) * n) >> 64);
}

double Rng::Unit() { return static_cast<double>(Next() >> 11) * 0x1.0p-53; }

Rng Rng::Fork(uint64_t salt) { return Rng(Next() ^ (salt * 0xd1b54a32d192ed03ULL)); }

Zipf::Zipf(uint64_t n, double s) : cdf_(n) {
  double sum = 0;
  for (uint64_t r = 0; r < n; ++r) {
    sum += 1.0 / std::pow(static_cast<double>(r + 1), s);
    cdf_[r] = sum;
  }
  for (double& c : cdf_) c /= sum;
}

uint64_t Zipf::Sample(Rng& rng) const {
  double u = rng.Unit();
  auto it = std::upper_bound(cdf_.begin(), cdf_.end(), u);
  return std::min<uint64_t>(it - cdf_.begin(), cdf_.size() - 1);
}

std::vector<uint64_t> Permutation(uint64_t n, Rng& rng) {
  std::vector<uint64_t> p(n);
  for (uint64_t i = 0; i < n; ++i) p[i] = i;
  for (uint64_t i = n; i > 1; --i) std::swap(p[i - 1], p[rng.Below(i)]);
  return p;
}

uint64_t ParetoCount(Rng& rng, double mean, double alpha) {
  // A Pareto variable with minimum m has mean m * alpha / (alpha - 1).
  double m = mean * (alpha - 1) / alpha;
  double x = m / std::pow(1.0 - rng.Unit(), 1.0 / alpha);
  return std::max<uint64_t>(1, static_cast<uint64_t>(std::llround(x)));
}

}  // namespace weibo::bench
