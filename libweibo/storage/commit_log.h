// CommitLog: the commits this process's own connections made to one shard file, so that a
// server's caches need not drop their copies for them (storage/shard_watch.h).
//
// A cache keeps copies of a shard's rows and drops them all once "another connection"
// commits to the shard: PRAGMA data_version cannot say whose commit it was. But a server
// holds several connections to each file itself (the request thread's, the background
// applier's: jobs.h), and most of their commits change no row a cache holds (inbox rows,
// active lists, the outbox's fan-out jobs). Each commit moves the WAL-index header (the
// first 48 bytes of the -shm file, sqlite.org/walformat.html section 2.2) from one value
// to the next, and every connection of the process records here the pair it moved it
// between, with the tables its transaction changed. A watch that finds the header moved
// from the value it knew to the one it reads now by a chain of such commits only, none of
// which changed a table it cares about (or each made on the connection whose changes it
// sees itself), knows that nothing it holds went stale, and keeps it all.
//
// How a commit is recorded (Shard, storage/shard.cc):
//   * before: the header as the commit hook finds it. The hook runs with the write lock
//     held and before any frame of the commit is written, so no one else can have moved
//     it since this transaction's snapshot (a transaction that spilled pages early may
//     have restarted the WAL by then: its before then matches no watch's copy, and the
//     watch drops as it did before; nothing is adopted by mistake). The commit enters the
//     log there, in flight (Begin).
//   * after: read by the WAL hook, which SQLite calls once the commit is done and the lock
//     is released, inside the same sqlite3_step; it is this commit's header only if its
//     change counter (iChange, which every commit adds one to) is before's plus one and
//     its frame count is the one the hook reports. Then the commit is settled (Settle);
//     otherwise another writer already committed on top, the commit cannot be named and
//     leaves the log (so does one that rolls back, or that wrote no frame): a watch then
//     drops, as before.
//   * changes: the tables the transaction inserted, updated or deleted rows in, from
//     SQLite's update hook (which sees every rowid table; the caches hold rows of rowid
//     tables only, and they learn their own connection's changes from the same hook), and
//     names the code adds with Shard::NoteChange for what the hook cannot tell (a counter
//     delta among the outbox's jobs: tables/outbox.cc).
//   * keys: what Shard::NoteRowChange named with each such name (the reader of an active_on
//     row, the author of an author_feed row), up to 4096 a transaction. A watch whose
//     interest calls a table keyed (every change of it is named so) adopts a commit that
//     changed it, and its watcher forgets the copies of those keys only.
//
// A commit in flight: another thread may read the header a commit has just written before
// that commit's WAL hook has settled it (the lock is released first). Covers then waits
// for it, at most kInFlightWait, instead of giving up on a commit it is about to know.
//
// A WAL restart: the first commit after a checkpoint has copied the whole WAL starts the
// WAL again (wal.c, walRestartHdr), and writes the header for that before its frames:
// the same change counter, no frame, salt-1 one more and a new random salt-2. A reader
// that takes this header in between sees the content of the commit's before (nothing was
// committed, the WAL was only emptied into the file). Covers knows such a header as that
// commit's: it may be where a chain starts (the commit is then the first step) or where it
// ends (the commit is not part of it). It is told apart by salt-2, which the commit drew
// at random and which its after carries too.
//
// A header read is taken as SQLite's readers take it: both copies, equal, or none.
//
// The log keeps the last kKeep commits per file; a watch that falls further behind drops.
// Nothing from another process is ever in it, so another process's commit always breaks
// the chain.
#ifndef WEIBO_STORAGE_COMMIT_LOG_H_
#define WEIBO_STORAGE_COMMIT_LOG_H_

#include <atomic>
#include <cstdint>
#include <cstring>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

struct sqlite3;

namespace weibo {

// The WAL-index header of a shard: 48 bytes, compared whole.
struct WalHeader {
  unsigned char bytes[48] = {};
  bool operator==(const WalHeader& other) const {
    return std::memcmp(bytes, other.bytes, sizeof bytes) == 0;
  }
  bool operator!=(const WalHeader& other) const { return !(*this == other); }
  uint32_t change_counter() const;  // iChange: one more at each commit
  uint32_t frames() const;          // mxFrame: the WAL's valid frames
  // Whether this is the header a commit that went from before to after wrote when it
  // restarted the WAL, before its frames (see "A WAL restart" above).
  bool RestartBetween(const WalHeader& before, const WalHeader& after) const;
};

// Reads db's WAL-index header as SQLite's readers do (both copies, equal); false when the
// connection has no WAL open yet or a writer was storing it (then the caller knows nothing).
bool ReadWalHeader(sqlite3* db, WalHeader* out);
// ReadWalHeader's two halves: the address of db's WAL index (the -shm file's first region,
// mapped by SQLite while its WAL is open: from its first read or write in WAL mode until it
// is closed), and the header read from it (Shard keeps the address: storage/shard.h).
bool MapWalIndex(sqlite3* db, const volatile unsigned char** region);
bool CopyWalHeader(const volatile unsigned char* region, WalHeader* out);

// Which commits of other connections a watch may adopt: one that changed none of these
// tables. Each name is a table the update hook saw a row of change, or a name given to
// Shard::NoteChange.
// keyed: those of the tables whose every change is named with Shard::NoteRowChange and its
// key (a WITHOUT ROWID table the update hook never reports, written by functions that say
// so): a commit that changed them is adopted all the same, and the keys it named are
// handed to the watcher, which forgets those copies only.
struct CommitInterest {
  std::vector<std::string> tables;
  std::vector<std::string> keyed;
  bool Touches(const std::string& table) const;
  bool Keyed(const std::string& table) const;
};

class CommitLog {
 public:
  static constexpr size_t kKeep = 256;
  static constexpr int kInFlightWaitUs = 2000;

  // The log of the file at path (one per file in the process, shared by its connections).
  static std::shared_ptr<CommitLog> For(const std::string& path);

  struct Commit {
    WalHeader before, after;
    const sqlite3* connection = nullptr;
    std::vector<std::string> changes;  // the tables it changed
    // The keys Shard::NoteRowChange named, with their names; all of them when keys_complete.
    std::vector<std::pair<std::string, int64_t>> keys;
    bool keys_complete = true;
    uint64_t id = 0;       // Begin's number for it
    bool settled = false;  // after is known; false: in flight
  };
  // At the commit hook: commit (without after) is in flight. Returns its id for Settle.
  uint64_t Begin(Commit commit);
  // After the commit: after is its header, or nullptr when it cannot be named (it rolled
  // back, wrote no frame, or another commit is already on top of it).
  void Settle(uint64_t id, const WalHeader* after);
  size_t in_flight() const;  // commits begun and not settled (for the tests)
  // How long Covers waits for a commit in flight (kInFlightWaitUs unless a test says).
  void set_in_flight_wait_us(int64_t us) { in_flight_wait_us_ = us; }

  // Whether the file went from `from` to `to` by commits in the log only, each one made on
  // `connection` or (interest not null) changing none of interest's tables, but for its
  // keyed ones when stale is given: their keys in those commits are added to *stale (which
  // means nothing when the answer is false).
  bool Covers(const WalHeader& from, const WalHeader& to, const sqlite3* connection,
              const CommitInterest* interest, std::vector<int64_t>* stale = nullptr) const;

 private:
  // The commit that moved the file from at, settled; nullptr when there is none in the log,
  // or (*in_flight true) when one in flight may be it.
  const Commit* From(const WalHeader& at, bool* in_flight) const;

  mutable std::mutex mu_;
  std::deque<Commit> commits_;  // oldest first
  uint64_t last_id_ = 0;
  std::atomic<int64_t> in_flight_wait_us_{kInFlightWaitUs};
};

}  // namespace weibo

#endif  // WEIBO_STORAGE_COMMIT_LOG_H_
