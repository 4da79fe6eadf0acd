// ShardWatch: notices, cheaply, that another connection has committed to a shard.
//
// A server keeps copies of rows in memory (tables/counter_cache.h, tables/seen_cache.h) and
// must drop a shard's copies once another connection (an embedded CLI on the same data
// directory, another node, a drain on a connection of its own) has committed to it: its
// own connection's writes it sees itself. Each shard has a generation; a copy is stored
// with the generation of its shard and is good while that is unchanged. Validate moves the
// generation when another connection has committed since its last call.
//
// PRAGMA data_version tells exactly that, but it is a statement and a read transaction, so
// Validate runs it only when the shard's WAL-index header (the first 48 bytes of its -shm
// file, sqlite.org/walformat.html section 2.2) differs from the copy taken before the last
// pragma: every commit, by any connection, rewrites that header, so an unchanged one means
// no commit since, and the hot path reads no SQLite page and runs no statement at all. The
// header is read before the pragma: a commit landing between the two moves the header away
// from the copy, so the next Validate asks again.
#ifndef WEIBO_STORAGE_SHARD_WATCH_H_
#define WEIBO_STORAGE_SHARD_WATCH_H_

#include <cstdint>
#include <vector>

namespace weibo {

class Shard;

class ShardWatch {
 public:
  // Moves shard's generation when another connection committed to it since the last call,
  // or when its connection is not the one seen before (the shard was opened again). Returns
  // true in that second case, the first time a connection is seen: a caller that hooks the
  // connection (sqlite3_update_hook) does it then. Call it before using a shard's copies
  // in each request.
  bool Validate(Shard& shard);
  // Whether Validate has seen shard's connection as it is now: copies read on a connection
  // not watched could not be dropped when it changes, so none may be stored.
  bool Watches(Shard& shard) const;
  // The shard's generation: a copy stored with another one is stale.
  uint64_t generation(int shard) const;
  // Moves the shard's generation: every copy from it is stale (this process changed many
  // of its rows at once).
  void Bump(int shard);
  // The connections seen, by shard index (nullptr: none yet).
  std::vector<Shard*> shards() const;

 private:
  struct Watched {
    Shard* shard = nullptr;
    int64_t data_version = -1;
    uint64_t generation = 0;
    // The WAL-index header as it was just before data_version was last read.
    unsigned char wal_header[48] = {};
    bool header_known = false;
  };
  // Copies the shard's WAL-index header into out; false when it cannot be read (the
  // connection has no WAL open yet).
  static bool ReadWalHeader(Shard& shard, unsigned char (&out)[48]);

  std::vector<Watched> watched_;  // by shard index
};

}  // namespace weibo

#endif  // WEIBO_STORAGE_SHARD_WATCH_H_
