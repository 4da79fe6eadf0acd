// Rng and the distributions of the workload generator.
//
// A trace must be the same for a seed on every machine and every standard library, so
// nothing here uses <random>'s distributions (their algorithms are implementation-defined);
// only splitmix64, whose output is fixed by its definition, and arithmetic on top of it.
#ifndef WEIBO_BENCH_RNG_H_
#define WEIBO_BENCH_RNG_H_

#include <cstdint>
#include <vector>

namespace weibo::bench {

class Rng {
 public:
  explicit Rng(uint64_t seed) : state_(seed) {}
  uint64_t Next();
  // Uniform in [0, n); n > 0. Lemire's multiply-shift: no modulo bias worth measuring.
  uint64_t Below(uint64_t n);
  // Uniform in [0, 1) with 53 bits.
  double Unit();
  // A new generator whose stream does not overlap this one's in practice.
  Rng Fork(uint64_t salt);

 private:
  uint64_t state_;
};

// Zipf over ranks 0..n-1: P(rank r) is proportional to 1 / (r + 1)^s.
class Zipf {
 public:
  Zipf(uint64_t n, double s);
  uint64_t Sample(Rng& rng) const;  // a rank
  uint64_t size() const { return cdf_.size(); }

 private:
  std::vector<double> cdf_;
};

// A seeded permutation of 0..n-1 (Fisher-Yates), to map Zipf ranks onto users.
std::vector<uint64_t> Permutation(uint64_t n, Rng& rng);

// A discrete Pareto draw with tail exponent alpha and the given mean, at least 1:
// the out-degree of a user in the follow graph (a few users follow very many).
uint64_t ParetoCount(Rng& rng, double mean, double alpha);

}  // namespace weibo::bench

#endif  // WEIBO_BENCH_RNG_H_
