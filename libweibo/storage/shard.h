// Shard: one SQLite file and the one connection this process holds to it.
//
// Every connection sets WAL, a busy wait of 30 s (OnBusy) and synchronous=FULL, and turns automatic
// checkpoints off (wal_autocheckpoint=0 and no checkpoint on close): Debian 12's SQLite
// 3.40.1 has the WAL-reset race (sqlite.org/wal.html, "The WAL-Reset Bug"), which needs a
// checkpoint to run while another connection commits. Here the only checkpoints are
// explicit TRUNCATE checkpoints (Checkpoint()), which hold off every writer while they run
// and are serialised between processes by an flock on "<shard>.ckpt".
//
// Every commit is recorded in the file's CommitLog (storage/commit_log.h): the WAL-index
// header it moved from and to, and the tables it changed (commit, rollback, update and
// WAL hooks), so that the process's caches keep their copies through its own commits.
//
// Statements are prepared once per connection and cached by their SQL text (Query()).
// Writes run inside WriteTxn, which is BEGIN IMMEDIATE: the write lock is taken up front,
// so a transaction never fails half way with SQLITE_BUSY.
#ifndef WEIBO_STORAGE_SHARD_H_
#define WEIBO_STORAGE_SHARD_H_

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "storage/commit_log.h"

struct sqlite3;
struct sqlite3_stmt;

namespace weibo {

class ExplainLog;  // storage/explain_log.h
class Shard;

// How a write transaction's commit reaches the disk (PRAGMA synchronous in WAL mode).
//   kFull    the WAL is synced before the commit returns, and before anyone can see it: the
//            default, for every write a reply or another shard relies on;
//   kNormal  no fsync: the commit is durable once the WAL is synced later (Shard::SyncWal, a
//            kFull commit or a checkpoint); for writes that are redone if lost (jobs.cc).
enum class Sync { kNormal = 1, kFull = 2 };

// A cached prepared statement. Query() hands it out reset, with its bindings cleared.
class Stmt {
 public:
  Stmt(Shard* shard, sqlite3_stmt* stmt) : shard_(shard), stmt_(stmt) {}
  Stmt& Bind(int index, int64_t value);
  Stmt& Bind(int index, const std::string& value);
  Stmt& BindNull(int index);
  Stmt& BindBlob(int index, const std::string& bytes);
  // Binds values to ?1, ?2, ... in order: BindAll(user, msg) is Bind(1, user).Bind(2, msg).
  template <typename... Values>
  Stmt& BindAll(const Values&... values) {
    int index = 0;
    (Bind(++index, values), ...);
    return *this;
  }
  // Advances to the next row: true when there is one, false when done.
  bool Step();
  // Runs a statement that returns no rows; returns sqlite3_changes().
  int Run();
  // Every row's first column, as integers.
  std::vector<int64_t> Ints();
  // Whether the statement yields a row; resets it.
  bool Exists();
  // The first row's first column, or fallback when there is no row; resets the statement.
  int64_t IntOr(int64_t fallback);
  int64_t Int(int column) const;
  std::string Text(int column) const;
  std::string Blob(int column) const;  // the bytes of a BLOB column; empty for NULL
  bool IsNull(int column) const;
  void Reset();
  sqlite3_stmt* raw() { return stmt_; }

 private:
  Shard* shard_;
  sqlite3_stmt* stmt_;
};

class Shard {
 public:
  // Opens the file (which must exist unless create is true) and sets the pragmas.
  Shard(int index, std::string path, bool create, ExplainLog* explain_log);
  ~Shard();
  Shard(const Shard&) = delete;
  Shard& operator=(const Shard&) = delete;

  int index() const { return index_; }
  const std::string& path() const { return path_; }
  std::string name() const;  // "shard-03"; "search-03" once labelled "search"
  // The prefix name() gives this file in messages and --explain (default "shard").
  void set_label(std::string label) { label_ = std::move(label); }

  // A prepared statement, cached per connection by its text and reset for reuse. The
  // transaction statements (BEGIN IMMEDIATE, COMMIT, ...) go through it too: prepared
  // once, not parsed again for every transaction as sqlite3_exec would.
  Stmt& Query(const char* sql);
  // Runs SQL text (several statements allowed) without caching: schema and setup.
  void Exec(const char* sql);
  int64_t UserVersion();

  // Explicit checkpoint, only when the WAL is larger than min_wal_bytes. Above one byte, the
  // WAL's size is the one this connection's last commit left (sqlite3_wal_hook), with no
  // system call: a shard this process has not written to since its last checkpoint is left
  // to the process that has (a writer checkpoints what it grows). Such a checkpoint is a
  // RESTART: the WAL file keeps its length and the next commit writes over it from the
  // start, into blocks the file system has already allocated, so that commit's fsync
  // flushes data only, not the file's new length and blocks (the WAL of a busy shard is
  // truncated and grown again otherwise, every few megabytes). With 0 or 1 it is a
  // TRUNCATE: the WAL is emptied on disk (a closing writer, a shard just made). Returns
  // whether it checkpointed every frame (another process's checkpoint, or a reader on the
  // WAL, may leave it for later).
  bool Checkpoint(int64_t min_wal_bytes);
  // Sets PRAGMA synchronous for the next transaction, only when it differs from the level
  // this connection has (a pragma statement is parsed again each time it runs). Lowered to
  // OFF while durable commits are off (SetDurableCommits, weibo/storage.h).
  void UseSync(Sync level);
  // The highest level UseSync sets from now on: cluster.json's durability normal caps every
  // commit at kNormal (SyncWal still syncs: the jobs' group commit relies on it).
  void CapSync(Sync cap) { sync_cap_ = static_cast<int>(cap); }
  // Syncs this shard's WAL file (fdatasync through SQLite's own file handle): every commit
  // made before, by any connection and at any synchronous level, is durable afterwards. A
  // commit made with synchronous=NORMAL is not until this, a FULL commit or a checkpoint.
  void SyncWal();
  // The path of this shard's WAL file (whether it exists or not), for SyncFile.
  std::string WalPath() const;

  // Row changes on this connection (sqlite3_update_hook, which takes one callback per
  // connection): each listener added is called with the operation (SQLITE_INSERT, ...),
  // the table and the rowid of every row this connection inserts, updates or deletes in a
  // rowid table, inside the statement that changes it. The server's caches of rows
  // (tables/counter_cache.h, tables/message_cache.h) forget their copies so. A listener
  // is added once per arg (again: replaced); RemoveRowListener(arg) takes it off.
  using RowListener = void (*)(void* arg, int op, const char* table, int64_t rowid);
  void AddRowListener(RowListener fn, void* arg);
  void RemoveRowListener(void* arg);
  // Records, for the commit log (storage/commit_log.h), that the open write transaction
  // changed `what`: a name a cache's CommitInterest lists, for a change the update hook
  // cannot tell apart (a counter delta among the outbox's jobs: tables/outbox.cc).
  void NoteChange(const char* what);
  // A change the update hook does not see, told as it would be (a row of a WITHOUT ROWID
  // table: author_feed, keyed here by its author, 0 for every author of the shard): the
  // commit log records the table and every row listener is called with (op, table, key).
  void NoteRowChange(int op, const char* table, int64_t key);
  // The log of this file's commits by the process's own connections.
  const CommitLog* commit_log() const { return commit_log_.get(); }
  // ReadWalHeader on this connection, with the WAL index's address found once: SQLite
  // keeps the region mapped while the connection's WAL is open, and a shard's connection
  // never leaves WAL mode once in it (storage/schema.cc) nor closes its WAL before
  // sqlite3_close. This is a 96-byte read, where finding the address again was two file
  // controls and a locked map call, for every shard a request validated.
  bool WalIndexHeader(WalHeader* out) {
    if (wal_index_ == nullptr && !MapWalIndex(db_, &wal_index_)) return false;
    return CopyWalHeader(wal_index_, out);
  }
  // After a statement: a commit it made that is still in flight in the log wrote no frame
  // (its WAL hook would have settled it), and leaves the log.
  void SettleUnwritten() {
    if (pending_ != 0) SettleInFlight();
  }

  // Turns an SQLite error into a Failure(storage_error) naming this shard.
  [[noreturn]] void Raise(int rc, const char* what);
  sqlite3* db() { return db_; }
  ExplainLog* explain_log() { return explain_log_; }

 private:
  void ResetWal();  // after a RESTART checkpoint (shard.cc)
  // sqlite3_busy_handler's callback (shard.cc): waits for a lock in short sleeps, up to
  // kBusyTimeoutMs from the first call of each wait (count 0).
  static int OnBusy(void* self, int count);
  std::chrono::steady_clock::time_point busy_since_{};
  // sqlite3_update_hook's callback: calls every row listener (rowid: a long long).
  static void OnRowChange(void* self, int op, const char* db, const char* table, long long rowid);
  std::vector<std::pair<RowListener, void*>> row_listeners_;
  // The commit log's side (storage/commit_log.h): the tables the open write transaction
  // changed, and what the commit hook saw of the commit being made.
  static int OnCommit(void* self);
  static void OnRollback(void* self);
  void OnWalCommit(int frames);
  void NoteTable(const char* table);
  std::shared_ptr<CommitLog> commit_log_;
  std::vector<std::string> txn_changes_;
  const volatile unsigned char* wal_index_ = nullptr;  // WalIndexHeader's address
  WalHeader pending_before_;                           // the header at the commit hook
  uint64_t pending_ = 0;  // the commit log's id of the commit in flight; 0: none
  void SettleInFlight();
  void ClearTxnNotes();  // the open transaction's changes and keys, at its end
  // The keys NoteRowChange named in the open write transaction; at most kKeys (past that,
  // txn_keys_full_: the commit names none).
  static constexpr size_t kKeys = 4096;
  std::vector<std::pair<std::string, int64_t>> txn_keys_;
  bool txn_keys_full_ = false;

  int index_;
  std::string label_ = "shard";
  std::string path_;
  sqlite3* db_ = nullptr;
  // Keyed by a view of the entry's own copy of the text: a lookup hashes the caller's text
  // without allocating a string for it.
  struct Cached {
    std::string sql;
    Stmt stmt;
  };
  std::unordered_map<std::string_view, std::unique_ptr<Cached>> cache_;
  // The same entries again, keyed by the address of their text where that is a string
  // literal of the program (shard.cc: its read-only image, text that cannot change): most
  // statements, found with no strlen, hash or compare of their text. Open addressing,
  // linear probing, at most half full; never shrinks (entries live as long as cache_'s).
  struct AddressEntry {
    const char* sql = nullptr;
    Cached* cached = nullptr;
  };
  std::vector<AddressEntry> by_address_;
  size_t address_count_ = 0;
  int address_bits_ = 0;
  size_t AddressSlot(const char* sql) const;
  void RememberAddress(const char* sql, Cached* cached);
  ExplainLog* explain_log_;  // every statement run, when not nullptr (--explain)
  int sync_level_ = -1;      // the PRAGMA synchronous this connection has; -1: unknown
  // Frames in the WAL after this connection's last commit (sqlite3_wal_hook), 0 after its
  // checkpoint; -1: it has not committed since it opened.
  int64_t wal_frames_ = -1;
  int64_t page_size_ = 4096;  // PRAGMA page_size, read when opened
  int sync_cap_ = static_cast<int>(Sync::kFull);
};

// BEGIN IMMEDIATE ... COMMIT; rolls back when destroyed uncommitted (an exception).
class WriteTxn {
 public:
  explicit WriteTxn(Shard& shard, Sync sync = Sync::kFull);
  ~WriteTxn();
  void Commit();
  Shard& shard() { return shard_; }

 private:
  Shard& shard_;
  bool open_ = true;
};

// BEGIN (deferred): a consistent snapshot for several reads of one shard.
class ReadTxn {
 public:
  explicit ReadTxn(Shard& shard);
  ~ReadTxn();

 private:
  Shard& shard_;
};

// fdatasync of the file at path through a descriptor of its own, for a thread that must
// not use a connection (jobs.cc, StartSyncAppliedJobs): the file's data written by any
// descriptor before the call is durable after it. A WAL that does not exist holds nothing
// to sync (its connection closed it, which checkpointed it). Fails with storage_error.
void SyncFile(const std::string& path);

}  // namespace weibo

#endif  // WEIBO_STORAGE_SHARD_H_
