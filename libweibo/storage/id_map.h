// IdMap: an int64 value by int64 key (a user's or a message's id), that only grows: one
// array of (key, value) pairs, probed linearly from the key's Fibonacci hash
// (storage/fibonacci_hash.h) and doubled when half full. No removal: each owner drops the
// whole map (jobs/context.h, GroupCommit::HeldReaders, dropped with the deliveries it
// indexes; flows/message.h, MessageView, a page's rows by message, dropped with the page).
//
// Why not std::unordered_map: an insert there allocates a node, and a lookup follows a
// bucket's chain. The held deliveries' index by reader (flows/fanout.cc, HeldInboxIds)
// inserts a reader per first delivery and is looked up at every home read; as an
// unordered_map it was 3% of a home read's time (perf, r3k trace, session 47), most of it
// the inserts' allocations and rehashes. A page's rows were a node each too.
#ifndef WEIBO_STORAGE_ID_MAP_H_
#define WEIBO_STORAGE_ID_MAP_H_

#include <cstddef>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <vector>

#include "storage/fibonacci_hash.h"

namespace weibo {

class IdMap {
 public:
  // The key that marks a free pair: never a key (ids are positive; Emplace refuses it).
  static constexpr int64_t kFree = std::numeric_limits<int64_t>::min();

  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }

  // key's value, or nullptr. Good until the map next grows.
  const int64_t* Find(int64_t key) const {
    if (size_ == 0 || key == kFree) return nullptr;
    const Pair& p = pairs_[Probe(key)];
    return p.key == key ? &p.value : nullptr;
  }
  // key's value, made `value` first when key is not in the map. key must not be kFree.
  int64_t& Emplace(int64_t key, int64_t value) {
    if (key == kFree) throw std::out_of_range("IdMap: the free key is not a key");
    if (2 * (size_ + 1) > pairs_.size()) Grow();
    Pair& p = pairs_[Probe(key)];
    if (p.key != key) {
      p = Pair{key, value};
      ++size_;
    }
    return p.value;
  }

 private:
  struct Pair {
    int64_t key = kFree;
    int64_t value = 0;
  };
  // key's pair, or the free one where it would go.
  size_t Probe(int64_t key) const {
    const size_t mask = pairs_.size() - 1;
    for (size_t i = FibonacciHash(key, bits_);; i = (i + 1) & mask)
      if (pairs_[i].key == key || pairs_[i].key == kFree) return i;
  }
  void Grow() {
    std::vector<Pair> old = std::move(pairs_);
    const size_t n = old.empty() ? 64 : old.size() * 2;
    pairs_.assign(n, Pair{});
    bits_ = 0;
    for (size_t k = n; k > 1; k >>= 1) ++bits_;
    for (const Pair& p : old)
      if (p.key != kFree) pairs_[Probe(p.key)] = p;
  }

  std::vector<Pair> pairs_;
  size_t size_ = 0;
  int bits_ = 0;
};

}  // namespace weibo

#endif  // WEIBO_STORAGE_ID_MAP_H_
