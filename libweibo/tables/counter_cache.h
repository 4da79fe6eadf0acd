// CounterCache: the hot counters of a server (seed 004's hot and cold counters, SPEC §6).
//
// A process that serves many requests (weibod, a cluster node) keeps the live counter rows
// (GetLiveCounter: msg_counter with the pending deltas added) of the messages read most
// recently in memory, at most `capacity` of them, the least recently used evicted first.
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
//     PRAGMA data_version of the shard's connection changes when another connection
//     commits; Validate, called before a shard's entries are read in each request, then
//     drops all of them (a generation per shard: O(1)). So a read lags another process's
//     commit by nothing once that commit is visible to a new read transaction.
//     The pragma is a statement and a read transaction, so Validate runs it only when the
//     shard's WAL-index header (the first 48 bytes of its -shm file, sqlite.org/walformat.html
//     section 2.2) differs from the copy taken before the last pragma: every commit, by any
//     connection, rewrites that header, so an unchanged one means no commit since, and the
//     hot path of count reads no SQLite page and runs no statement at all.
//
// A crash loses nothing: the cache holds copies; the deltas live in the outbox.
#ifndef WEIBO_TABLES_COUNTER_CACHE_H_
#define WEIBO_TABLES_COUNTER_CACHE_H_

#include <cstdint>
#include <list>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "tables/msg_counter.h"

namespace weibo {

class Shard;

// One cached message: its live row and its count item as JSON text.
struct CachedCounter {
  CounterRow row;
  std::string text;
};

class CounterCache {
 public:
  explicit CounterCache(size_t capacity) : capacity_(capacity) {}
  ~CounterCache();  // removes the update hooks it set
  CounterCache(const CounterCache&) = delete;
  CounterCache& operator=(const CounterCache&) = delete;

  // Watches shard's connection (once per connection) and drops the shard's entries when
  // another connection committed to it since the last call: call it before Find on a shard
  // in each request.
  void Validate(Shard& shard);
  // The cached entry of msg_id, or nullptr (and counted as a miss); a hit makes it the
  // most recently used. The pointer is good until the cache next changes (Validate, Put,
  // Forget, a write on a watched connection).
  const CachedCounter* Find(int shard, int64_t msg_id);
  // Caches row, read from shard just now, with its text; ignored inside a write
  // transaction on it or when the shard is not watched.
  void Put(Shard& shard, const CounterRow& row, std::string text = std::string());
  void Forget(int64_t msg_id);

  size_t size() const { return entries_.size(); }
  size_t capacity() const { return capacity_; }
  int64_t hits() const { return hits_; }
  int64_t misses() const { return misses_; }

 private:
  struct Entry {
    CachedCounter counter;
    int shard;
    uint64_t generation;  // the shard's generation when stored; older ones are dropped
  };
  struct Watched {
    Shard* shard = nullptr;  // the connection whose hook is ours
    int64_t data_version = -1;
    uint64_t generation = 0;
    CounterCache* cache = nullptr;
    // The WAL-index header as it was just before data_version was last read (Validate).
    unsigned char wal_header[48] = {};
    bool header_known = false;
  };
  // Copies the shard's WAL-index header into out; false when it cannot be read (the
  // connection has no WAL open yet).
  static bool ReadWalHeader(Shard& shard, unsigned char (&out)[48]);
  // sqlite3_update_hook's callback (rowid: sqlite3_int64, a long long).
  static void OnUpdate(void* watched, int op, const char* db, const char* table, long long rowid);
  Watched& Slot(int shard);

  size_t capacity_;
  std::list<Entry> lru_;  // most recently used first
  std::unordered_map<int64_t, std::list<Entry>::iterator> entries_;
  std::vector<std::unique_ptr<Watched>> watched_;  // by shard index; stable for the hooks
  int64_t hits_ = 0, misses_ = 0;
};

}  // namespace weibo

#endif  // WEIBO_TABLES_COUNTER_CACHE_H_
