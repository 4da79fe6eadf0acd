// SeenCache: a server's copy of its users' last-read notification ids (seed 004, SPEC §6).
//
// `notify unread` is one stored id (last_seen, tables/notification.h) and a count above it
// on shard 0. The stored id is a random row of a table that grows with the users: at 10^6
// users it is a B-tree of 62 500 rows per shard whose pages no processor cache holds, and
// finding it costs about twice what it costs at 10^3 users (weibo-bench counters). A
// process that serves many requests (weibod, a cluster node) keeps the ids it has read in
// memory, so that a repeated unread reads no row of the user's shard and costs the same
// with 10^3 users as with 10^6.
//
// The memory is bounded and allocated once, on the first store: `capacity` entries of 32
// bytes (user, id, the shard's generation and a use stamp), in sets of kWays. A user's set
// is fixed by a hash of the user id (storage/fibonacci_hash.h); a store into a full set
// replaces the entry used least recently in that set. The default of weibod (--seen-cache) holds
// 2^20 ids in 32 MiB. Sets of 16, not 8: at 10^6 users in 2^20 entries, sets of 8 left 1.3% of the
// users out (their sets were full), and those misses were the p99 of unread; sets of 16 leave 13
// out. A set is 512 contiguous bytes, scanned in well under a microsecond. Only stored ids are
// kept: a user with no row (new, or expired) is read from the shard each time (the row's absence is
// one lookup and the user's own, both on the user's shard).
//
// It is never staler than a read of the shard would be:
//   * this process's own writes: `notify read` forgets its user after it stores the id
//     (Forget), and the 30-day expiry forgets every id of a shard it deleted rows of
//     (ForgetShard); nothing else writes last_seen's notification rows. An entry is only
//     stored from a read outside a write transaction (Put checks), so nothing uncommitted
//     is kept.
//   * every other connection's commits: Validate, called before a shard's entries are read
//     in each request, drops the shard's entries when another connection has committed to
//     it (storage/shard_watch.h), even one of this process's own: its watch has no
//     CommitInterest, as last_seen's notification rows are not a rowid table's that the
//     update hook would name.
// A crash loses nothing: the entries are copies of committed rows.
#ifndef WEIBO_TABLES_SEEN_CACHE_H_
#define WEIBO_TABLES_SEEN_CACHE_H_

#include <cstdint>
#include <memory>

#include "storage/shard_watch.h"

namespace weibo {

class Shard;

class SeenCache {
 public:
  static constexpr size_t kWays = 16;

  // capacity: how many ids it holds at most, rounded up to a power of two of at least kWays;
  // 0 holds none.
  explicit SeenCache(size_t capacity);
  SeenCache(const SeenCache&) = delete;
  SeenCache& operator=(const SeenCache&) = delete;

  // Drops the shard's entries when another connection committed to it since the last call:
  // call it before Find on a shard in each request.
  void Validate(Shard& shard);
  // The cached last-read id of user, whose shard is shard, or false (counted as a miss).
  bool Find(int shard, int64_t user, int64_t* last_id);
  // Keeps user's last-read id, read from shard just now; ignored inside a write
  // transaction on it or when the shard is not watched.
  void Put(Shard& shard, int64_t user, int64_t last_id);
  // Forgets user's id (this process stored a new one).
  void Forget(int64_t user);
  // Forgets every id of a shard (this process deleted some of its rows).
  void ForgetShard(int shard);

  size_t capacity() const { return capacity_; }
  // Entries in use, those of a shard since dropped by Validate or ForgetShard included
  // until they are found or replaced.
  size_t size() const { return size_; }
  int64_t hits() const { return hits_; }
  int64_t misses() const { return misses_; }

 private:
  struct Entry {
    int64_t user;
    int64_t last_id;
    uint64_t generation;  // the shard's generation when stored; 0: an empty entry
    uint32_t stamp;       // when last used (use_), for the least recently used of a set
  };
  // The first entry of user's set.
  Entry* SetOf(int64_t user);

  size_t capacity_;
  int set_bits_ = 0;                  // log2 of the number of sets
  std::unique_ptr<Entry[]> entries_;  // allocated by the first Put
  size_t size_ = 0;
  uint32_t use_ = 0;
  ShardWatch watch_;
  int64_t hits_ = 0, misses_ = 0;
};

}  // namespace weibo

#endif  // WEIBO_TABLES_SEEN_CACHE_H_
