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
//
// A moved header need not cost the copies either: when the process's own commit log
// (storage/commit_log.h) shows that every commit since the copy was made here, on the
// watched connection (whose changes the caches see themselves) or on another of the
// process's connections without changing a table of the watch's CommitInterest (the
// background applier's inbox rows, say), the watch adopts the new header and keeps the
// generation, with no pragma. Anything else (another process, a commit the log could not
// name, a chain longer than the log) goes the pragma's way. The pragma's value is then
// older than the adopted commits, so the next pragma moves the generation whatever it
// finds: a drop too many, never one too few.
#ifndef WEIBO_STORAGE_SHARD_WATCH_H_
#define WEIBO_STORAGE_SHARD_WATCH_H_

#include <cstdint>
#include <vector>

#include "storage/commit_log.h"

namespace weibo {

class Shard;
struct CommitInterest;

class ShardWatch {
 public:
  // interest: the tables whose change by another of the process's connections makes the
  // watcher's copies stale (it must outlive the watch); nullptr: every such commit does.
  explicit ShardWatch(const CommitInterest* interest = nullptr) : interest_(interest) {}
  // Moves shard's generation when another connection committed to it since the last call,
  // or when its connection is not the one seen before (the shard was opened again). Returns
  // true in that second case, the first time a connection is seen: a caller that hooks the
  // connection (sqlite3_update_hook) does it then. Call it before using a shard's copies
  // in each request.
  // stale (with an interest that has keyed tables): the keys of their changes in the
  // commits adopted, whose copies the caller forgets; left empty when the generation moves.
  bool Validate(Shard& shard, std::vector<int64_t>* stale = nullptr);
  // Whether no commit has moved the shard's WAL-index header since the last Validate. In a
  // read transaction opened after that Validate, true means that the transaction's snapshot
  // is the state validated (a commit in between would have moved the header).
  bool Current(Shard& shard) const;
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
  // How many moved headers were adopted from the commit log, and how many times a pragma
  // moved a generation (the first pragma on a connection included; for the tests).
  int64_t adopted() const { return adopted_; }
  int64_t dropped() const { return dropped_; }

 private:
  struct Watched {
    Shard* shard = nullptr;
    int64_t data_version = -1;
    uint64_t generation = 0;
    // The WAL-index header as it was just before data_version was last read, or as the
    // last commit adopted left it.
    WalHeader wal_header;
    bool header_known = false;
  };

  const CommitInterest* interest_;
  std::vector<Watched> watched_;  // by shard index
  int64_t adopted_ = 0, dropped_ = 0;
};

}  // namespace weibo

#endif  // WEIBO_STORAGE_SHARD_WATCH_H_
