// ClockTable: at most `capacity` values by int64 key (a message's id), in one array of slots
// found through an open-addressing index, evicted by CLOCK. The layout of a server's caches
// whose hits must cost one or two of the processor's cache misses, not a hash node chain's
// four to six (tables/counter_cache.h, tables/message_cache.h).
//
// The index is a power of two of (key, slot) pairs, at least twice the capacity, probed
// linearly from the key's Fibonacci hash (storage/fibonacci_hash.h), with backward-shift
// deletion, so that no tombstone is ever left. A hit costs the index's pair and the slot.
//
// Eviction is CLOCK: the caller sets a found item's `referenced` bit; an Insert into a full
// table sweeps a hand over the slots, clearing set bits, until it finds one clear, and that
// item, not used since the hand last passed, goes. At most two sweeps: the first clears
// every bit it passes.
//
// A removed slot's value is reset at once (a shared row is released then, not at the
// slot's next use).
#ifndef WEIBO_STORAGE_CLOCK_TABLE_H_
#define WEIBO_STORAGE_CLOCK_TABLE_H_

#include <cstddef>
#include <cstdint>
#include <vector>

#include "storage/fibonacci_hash.h"

namespace weibo {

template <class Value>
class ClockTable {
 public:
  struct Item {
    int64_t key = 0;
    bool referenced = false;  // CLOCK's bit: used since the hand last passed
    Value value{};
  };

  explicit ClockTable(size_t capacity) : capacity_(capacity) {}

  size_t size() const { return size_; }
  size_t capacity() const { return capacity_; }

  // key's item, or nullptr. Good until the table next changes.
  Item* Find(int64_t key) { return const_cast<Item*>(Peek(key)); }
  // Find for a reader that changes nothing.
  const Item* Peek(int64_t key) const {
    if (size_ == 0) return nullptr;
    const size_t pos = Probe(key);
    return index_[pos].slot >= 0 ? &slots_[static_cast<size_t>(index_[pos].slot)] : nullptr;
  }
  // Removes an item Find returned.
  void Erase(Item* item) { Remove(Probe(item->key)); }
  void Erase(int64_t key) {
    if (size_ == 0) return;
    const size_t pos = Probe(key);
    if (index_[pos].slot >= 0) Remove(pos);
  }
  // A new item for key, which must not be in the table (Erase it first), its bit clear and
  // its value default. In a full table, the CLOCK victim goes first: evicted(item) sees it
  // before it does. Not with a capacity of 0.
  template <class Evicted>
  Item& Insert(int64_t key, Evicted&& evicted) {
    if (index_.empty()) {
      size_t n = 16;
      while (n < 2 * capacity_) n <<= 1;
      index_.assign(n, IndexEntry{0, -1});
      index_mask_ = n - 1;
      for (size_t k = n; k > 1; k >>= 1) ++index_bits_;
      slots_.reserve(capacity_ < 4096 ? capacity_ : 4096);
    }
    const size_t slot = FreeSlot(evicted);
    Item& item = slots_[slot];
    item.key = key;
    item.referenced = false;
    const size_t pos = Probe(key);  // after FreeSlot: an eviction may move index entries
    index_[pos] = IndexEntry{key, static_cast<int64_t>(slot)};
    ++size_;
    return item;
  }
  Item& Insert(int64_t key) {
    return Insert(key, [](Item&) {});
  }
  // Hints for a caller about to Find many keys (a page's rows): Find's loads, the key's
  // index entry and then its item, are each a likely cache miss in a large table, and one
  // key's wait for the memory follows the other's. Issued for every key first, stage by
  // stage (PrefetchIndex for all, then PrefetchItem for all), the misses overlap. They
  // change nothing and never fault.
  void PrefetchIndex(int64_t key) const {
    if (size_ != 0) __builtin_prefetch(&index_[Home(key)]);
  }
  void PrefetchItem(int64_t key) const {
    if (size_ == 0) return;
    const int64_t slot = index_[Probe(key)].slot;
    if (slot >= 0) __builtin_prefetch(&slots_[static_cast<size_t>(slot)]);
  }

  // Every item, in slot order: f(Item&). The table must not change meanwhile.
  template <class F>
  void ForEach(F&& f) {
    if (size_ == 0) return;
    for (const IndexEntry& e : index_)
      if (e.slot >= 0) f(slots_[static_cast<size_t>(e.slot)]);
  }
  void Clear() {
    if (size_ == 0) return;
    for (IndexEntry& e : index_) {
      if (e.slot < 0) continue;
      slots_[static_cast<size_t>(e.slot)].value = Value();
      free_.push_back(e.slot);
      e.slot = -1;
    }
    size_ = 0;
  }

 private:
  struct IndexEntry {
    int64_t key;
    int64_t slot;  // -1: empty
  };

  size_t Home(int64_t key) const { return FibonacciHash(key, index_bits_); }
  // The index position of key, or of the empty entry where it would go.
  size_t Probe(int64_t key) const {
    size_t pos = Home(key);
    while (index_[pos].slot >= 0 && index_[pos].key != key) pos = (pos + 1) & index_mask_;
    return pos;
  }
  // Removes the index entry at pos and frees its slot.
  void Remove(size_t pos) {
    const int64_t slot = index_[pos].slot;
    slots_[static_cast<size_t>(slot)].value = Value();
    free_.push_back(slot);
    --size_;
    // Backward-shift deletion: every entry after the hole that probing would not find past
    // it moves into it.
    size_t hole = pos;
    for (size_t next = (hole + 1) & index_mask_; index_[next].slot >= 0;
         next = (next + 1) & index_mask_) {
      const size_t home = Home(index_[next].key);
      // It stays when its home is in (hole, next], cyclically.
      const bool stays =
          hole <= next ? (hole < home && home <= next) : (hole < home || home <= next);
      if (stays) continue;
      index_[hole] = index_[next];
      hole = next;
    }
    index_[hole].slot = -1;
  }
  // A free slot: one Erase emptied, a new one while fewer than capacity are made, else
  // CLOCK's victim.
  template <class Evicted>
  size_t FreeSlot(Evicted& evicted) {
    if (!free_.empty()) {
      const size_t slot = static_cast<size_t>(free_.back());
      free_.pop_back();
      return slot;
    }
    if (slots_.size() < capacity_) {
      slots_.emplace_back();
      return slots_.size() - 1;
    }
    for (;;) {
      Item& item = slots_[hand_];
      const size_t at = hand_;
      hand_ = (hand_ + 1) % slots_.size();
      if (item.referenced) {
        item.referenced = false;
        continue;
      }
      evicted(item);
      Remove(Probe(item.key));
      free_.pop_back();  // Remove freed it: taken here
      return at;
    }
  }

  size_t capacity_;
  std::vector<Item> slots_;        // grows up to capacity_, then recycled
  std::vector<int64_t> free_;      // slots emptied by Erase
  std::vector<IndexEntry> index_;  // made at the first Insert
  size_t index_mask_ = 0;
  int index_bits_ = 0;  // log2 of the index's size: Home's bits
  size_t hand_ = 0;     // CLOCK's hand over slots_
  size_t size_ = 0;
};

}  // namespace weibo

#endif  // WEIBO_STORAGE_CLOCK_TABLE_H_
