#include "tables/counter_cache.h"

#include <sqlite3.h>

#include <cstring>

#include "storage/fibonacci_hash.h"
#include "storage/shard.h"
#include "tables/outbox.h"

namespace weibo {

namespace {

// A live counter is its msg_counter row and the deltas pending in the outbox: a commit of
// another of the process's connections that changed neither leaves every entry good
// (storage/commit_log.h).
const CommitInterest kInterest{{"msg_counter", kCounterDeltaKind}, {}};

}  // namespace

CounterCache::CounterCache(size_t capacity) : capacity_(capacity), watch_(&kInterest) {}

CounterCache::~CounterCache() {
  for (Shard* shard : watch_.shards())
    if (shard != nullptr) shard->RemoveRowListener(this);
}

void CounterCache::OnUpdate(void* arg, int, const char* table, int64_t rowid) {
  // Every row change of the connection comes here: only msg_counter's matter (rowid is
  // its msg_id, an INTEGER PRIMARY KEY).
  if (std::strcmp(table, "msg_counter") != 0) return;
  static_cast<CounterCache*>(arg)->Forget(rowid);
}

void CounterCache::Validate(Shard& shard) {
  // A connection seen for the first time gets the hook that forgets this process's own
  // changes; the watch catches everyone else's.
  if (watch_.Validate(shard)) shard.AddRowListener(&CounterCache::OnUpdate, this);
}

size_t CounterCache::Home(int64_t msg_id) const { return FibonacciHash(msg_id, index_bits_); }

size_t CounterCache::Probe(int64_t msg_id) const {
  size_t pos = Home(msg_id);
  while (index_[pos].slot >= 0 && index_[pos].msg_id != msg_id) pos = (pos + 1) & index_mask_;
  return pos;
}

void CounterCache::Remove(size_t pos) {
  const int64_t slot = index_[pos].slot;
  free_.push_back(slot);
  --size_;
  // Backward-shift deletion: every entry after the hole that probing would not find past
  // it moves into it, so no tombstone is ever left.
  size_t hole = pos;
  for (size_t next = (hole + 1) & index_mask_; index_[next].slot >= 0;
       next = (next + 1) & index_mask_) {
    const size_t home = Home(index_[next].msg_id);
    // Move it when its home is not in (hole, next], cyclically.
    const bool stays = hole <= next ? (hole < home && home <= next) : (hole < home || home <= next);
    if (stays) continue;
    index_[hole] = index_[next];
    hole = next;
  }
  index_[hole].slot = -1;
}

const CachedCounter* CounterCache::Find(int shard, int64_t msg_id) {
  if (size_ != 0) {
    const size_t pos = Probe(msg_id);
    if (index_[pos].slot >= 0) {
      Slot& s = slots_[static_cast<size_t>(index_[pos].slot)];
      if (s.shard == shard && s.generation == watch_.generation(shard)) {
        s.referenced = true;
        ++hits_;
        return &s.counter;
      }
      Remove(pos);
    }
  }
  ++misses_;
  return nullptr;
}

size_t CounterCache::FreeSlot() {
  if (!free_.empty()) {
    const size_t slot = static_cast<size_t>(free_.back());
    free_.pop_back();
    return slot;
  }
  if (slots_.size() < capacity_) {
    slots_.emplace_back();
    return slots_.size() - 1;
  }
  // CLOCK: every slot is used (none free, all made). At most two sweeps: the first clears
  // every bit it passes.
  for (;;) {
    Slot& s = slots_[hand_];
    const size_t at = hand_;
    hand_ = (hand_ + 1) % slots_.size();
    if (s.referenced) {
      s.referenced = false;
      continue;
    }
    Remove(Probe(s.counter.row.msg_id));
    free_.pop_back();  // Remove freed it: taken here
    return at;
  }
}

void CounterCache::Put(Shard& shard, const CounterRow& row, std::string_view text) {
  if (capacity_ == 0) return;
  const int s = shard.index();
  if (!watch_.Watches(shard)) return;               // its changes would go unnoticed
  if (!sqlite3_get_autocommit(shard.db())) return;  // a write transaction's own view
  if (index_.empty()) {
    size_t n = 16;
    while (n < 2 * capacity_) n <<= 1;
    index_.assign(n, IndexEntry{0, -1});
    index_mask_ = n - 1;
    for (size_t k = n; k > 1; k >>= 1) ++index_bits_;
    slots_.reserve(capacity_ < 4096 ? capacity_ : 4096);
  }
  Forget(row.msg_id);
  const size_t slot = FreeSlot();
  Slot& e = slots_[slot];
  e.counter.row = row;
  e.counter.text_size_ = 0;
  // Else written each time it is served. (memcpy wants a pointer even for no bytes, and an
  // empty view's may be null.)
  if (!text.empty() && text.size() <= CachedCounter::kTextMax) {
    std::memcpy(e.counter.text_, text.data(), text.size());
    e.counter.text_size_ = static_cast<uint8_t>(text.size());
  }
  e.generation = watch_.generation(s);
  e.shard = s;
  e.referenced = false;
  const size_t pos = Probe(row.msg_id);  // after FreeSlot: an eviction may move entries
  index_[pos] = IndexEntry{row.msg_id, static_cast<int64_t>(slot)};
  ++size_;
}

void CounterCache::Forget(int64_t msg_id) {
  if (size_ == 0) return;
  const size_t pos = Probe(msg_id);
  if (index_[pos].slot >= 0) Remove(pos);
}

}  // namespace weibo
