// CounterCache: the hot counters of a server (seed 004's hot and cold counters, SPEC §6).
//
// A process that serves many requests (weibod, a cluster node) keeps the live counter rows
// (GetLiveCounter: msg_counter with the pending deltas added) of the messages read most
// recently in memory, at most `capacity` of them, the least recently used evicted first
// (as CLOCK approximates it: below).
// weibo-count is served from it; a cold message is read from its shard and cached. Each
// entry keeps, beside the row, the message's item of count's reply already written as JSON
// text (flows/show.cc: CountItemText), so a hot reply is those texts joined, not a
// document built and serialized again; the text goes and comes with its row, so every
// rule below that forgets a row forgets its text.
//
// It is never staler than the data a read of the shard would see, except as said here:
//
//   * this process's own writes: every change of a msg_counter row on a connection the
//     cache watches (Watch: SQLite's update hook, keyed by msg_id, the table's rowid) forgets
//     that message at once, inside the transaction; a counter delta this process enqueues
//     (flows/like.cc) forgets its message too (Forget). An entry is only ever stored from a
//     read outside a write transaction (Put checks), so nothing uncommitted is cached.
//     Applying merged deltas leaves the live value as it was (the row gains what the
//     outbox loses) but forgets the message all the same: a miss, never a stale hit.
//   * other processes' commits (an embedded CLI on the same data directory, another node):
//     Validate, called before a shard's entries are read in each request, drops all of them
//     when another connection has committed to the shard since (storage/shard_watch.h: a
//     generation per shard, O(1), and no statement at all while nothing was committed). So
//     a read lags another process's commit by nothing once that commit is visible to a new
//     read transaction. Commits of this process's other connections (the background
//     applier, jobs.h) that changed no msg_counter row and no pending delta keep the
//     entries (storage/commit_log.h).
//
// A crash loses nothing: the cache holds copies; the deltas live in the outbox.
//
// The layout is for a hot count of 200 ids that comes right after a cold one, which has
// pushed most of the process's memory out of the processor's caches: each hit should cost
// one or two cache misses, not six. Entries live in one array of 256-byte slots, the row
// and its text inline (a count item is about 110 bytes, at most 176 kept inline; a longer
// one is written each time instead). An open-addressing index of (msg_id, slot) pairs
// finds them, and eviction is CLOCK (storage/clock_table.h): a hit only sets the slot's
// reference bit. (A linked LRU list was six pointer chases a hit — hash node, list node,
// its neighbours, the text — and a hot count after a cold one took 150 µs in-process
// against 16 µs warm.)
#ifndef WEIBO_TABLES_COUNTER_CACHE_H_
#define WEIBO_TABLES_COUNTER_CACHE_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "storage/clock_table.h"
#include "storage/shard_watch.h"
#include "tables/msg_counter.h"

namespace weibo {

class Shard;

// One cached message: its live row and its count item as JSON text (empty: not kept).
struct CachedCounter {
  static constexpr size_t kTextMax = 176;
  CounterRow row;
  std::string_view text() const { return std::string_view(text_, text_size_); }

 private:
  friend class CounterCache;
  uint8_t text_size_ = 0;
  char text_[kTextMax];
};

class CounterCache {
 public:
  explicit CounterCache(size_t capacity);
  ~CounterCache();  // removes the update hooks it set
  CounterCache(const CounterCache&) = delete;
  CounterCache& operator=(const CounterCache&) = delete;

  // Watches shard's connection (once per connection) and drops the shard's entries when
  // another connection committed to it since the last call: call it before Find on a shard
  // in each request.
  void Validate(Shard& shard);
  // The cached entry of msg_id, or nullptr (and counted as a miss); a hit marks it used.
  // The pointer is good until the cache next changes (Validate, Put, Forget, a write on a
  // watched connection).
  const CachedCounter* Find(int shard, int64_t msg_id);
  // Caches row, read from shard just now, with its text; ignored inside a write
  // transaction on it or when the shard is not watched.
  void Put(Shard& shard, const CounterRow& row, std::string_view text = std::string_view());
  void Forget(int64_t msg_id);

  size_t size() const { return table_.size(); }
  size_t capacity() const { return table_.capacity(); }
  const ShardWatch& watch() const { return watch_; }  // its drops and adoptions
  int64_t hits() const { return hits_; }
  int64_t misses() const { return misses_; }

 private:
  struct Slot {
    CachedCounter counter;
    uint64_t generation = 0;  // the shard's generation when stored; older ones are dropped
    int32_t shard = 0;
  };
  // The row listener (Shard::AddRowListener) that forgets changed msg_counter rows.
  static void OnUpdate(void* cache, int op, const char* table, int64_t rowid);

  ClockTable<Slot> table_;  // by msg_id
  ShardWatch watch_;
  int64_t hits_ = 0, misses_ = 0;
};

}  // namespace weibo

#endif  // WEIBO_TABLES_COUNTER_CACHE_H_
