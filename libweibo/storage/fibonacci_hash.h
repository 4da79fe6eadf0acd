// FibonacciHash: the slot of a key in a table of 2^bits slots, for the in-memory caches of a
// server (tables/counter_cache.h, tables/seen_cache.h), whose keys are ids handed out in
// sequence or in strides (a shard's).
//
// The key times 2^64 / phi, and then its top `bits` bits: consecutive keys land far apart
// and evenly. Only the top bits: the middle ones of consecutive keys repeat, and once
// crowded 10^6 users into a quarter of a cache's sets.
#ifndef WEIBO_STORAGE_FIBONACCI_HASH_H_
#define WEIBO_STORAGE_FIBONACCI_HASH_H_

#include <cstddef>
#include <cstdint>

namespace weibo {

// bits: 0 to 63; 0 is a table of one slot.
inline size_t FibonacciHash(int64_t key, int bits) {
  if (bits == 0) return 0;
  return static_cast<size_t>((static_cast<uint64_t>(key) * 0x9E3779B97F4A7C15ull) >> (64 - bits));
}

}  // namespace weibo

#endif  // WEIBO_STORAGE_FIBONACCI_HASH_H_
