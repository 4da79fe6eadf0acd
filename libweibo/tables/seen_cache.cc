#include "tables/seen_cache.h"

#include <sqlite3.h>

#include "storage/fibonacci_hash.h"
#include "storage/shard.h"

namespace weibo {

SeenCache::SeenCache(size_t capacity) : capacity_(0) {
  if (capacity == 0) return;
  size_t n = kWays;
  while (n < capacity && n <= (SIZE_MAX >> 2)) n <<= 1;
  capacity_ = n;
  for (size_t sets = n / kWays; sets > 1; sets >>= 1) ++set_bits_;
}

SeenCache::Entry* SeenCache::SetOf(int64_t user) {
  return &entries_[FibonacciHash(user, set_bits_) * kWays];
}

void SeenCache::Validate(Shard& shard) {
  if (capacity_ != 0) watch_.Validate(shard);
}

bool SeenCache::Find(int shard, int64_t user, int64_t* last_id) {
  if (entries_) {
    Entry* set = SetOf(user);
    const uint64_t generation = watch_.generation(shard);
    for (size_t k = 0; k < kWays; ++k) {
      Entry& e = set[k];
      if (e.generation == 0 || e.user != user) continue;
      if (e.generation != generation) {  // stored before another connection's commit
        e.generation = 0;
        --size_;
        break;
      }
      e.stamp = ++use_;
      *last_id = e.last_id;
      ++hits_;
      return true;
    }
  }
  ++misses_;
  return false;
}

void SeenCache::Put(Shard& shard, int64_t user, int64_t last_id) {
  if (capacity_ == 0 || !watch_.Watches(shard)) return;  // its changes would go unnoticed
  if (!sqlite3_get_autocommit(shard.db())) return;       // a write transaction's own view
  if (!entries_) entries_.reset(new Entry[capacity_]());
  Entry* set = SetOf(user);
  Entry* slot = nullptr;
  for (size_t k = 0; k < kWays; ++k) {
    Entry& e = set[k];
    if (e.generation != 0 && e.user == user) {
      slot = &e;  // the user's own entry, replaced
      break;
    }
    // Else an empty entry, else the one used longest ago (stamps count up and wrap: an
    // entry's age is its distance from use_).
    if (slot == nullptr) {
      slot = &e;
    } else if (slot->generation != 0 &&
               (e.generation == 0 || static_cast<uint32_t>(use_ - e.stamp) >
                                         static_cast<uint32_t>(use_ - slot->stamp))) {
      slot = &e;
    }
  }
  if (slot->generation == 0) ++size_;
  *slot = Entry{user, last_id, watch_.generation(shard.index()), ++use_};
}

void SeenCache::Forget(int64_t user) {
  if (!entries_) return;
  Entry* set = SetOf(user);
  for (size_t k = 0; k < kWays; ++k)
    if (set[k].generation != 0 && set[k].user == user) {
      set[k].generation = 0;
      --size_;
    }
}

void SeenCache::ForgetShard(int shard) { watch_.Bump(shard); }

}  // namespace weibo
