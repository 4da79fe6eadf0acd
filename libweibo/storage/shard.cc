#include "storage/shard.h"

#include <fcntl.h>
#include <link.h>
#include <sqlite3.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <thread>

#include "storage/explain_log.h"
#include "storage/failure.h"
#include "storage/fibonacci_hash.h"
#include "storage/files.h"
#include "weibo/storage.h"

namespace weibo {
namespace {

constexpr int kBusyTimeoutMs = 30000;

// The read-only segments (PT_LOAD without PF_W) of the object this code is linked into:
// where its string literals live. Text at such an address cannot change while the process
// runs, so Query may know it by its address alone.
struct ReadOnlyImage {
  std::vector<std::pair<uintptr_t, uintptr_t>> ranges;  // [begin, end)
  bool Holds(const void* p) const {
    const auto a = reinterpret_cast<uintptr_t>(p);
    for (const auto& [begin, end] : ranges)
      if (a >= begin && a < end) return true;
    return false;
  }
};

int CollectReadOnly(struct dl_phdr_info* info, size_t, void* data) {
  auto* image = static_cast<ReadOnlyImage*>(data);
  const auto self = reinterpret_cast<uintptr_t>(&CollectReadOnly);
  std::vector<std::pair<uintptr_t, uintptr_t>> mine;
  bool ours = false;
  for (int k = 0; k < info->dlpi_phnum; ++k) {
    const ElfW(Phdr)& h = info->dlpi_phdr[k];
    if (h.p_type != PT_LOAD) continue;
    const uintptr_t begin = info->dlpi_addr + h.p_vaddr;
    const uintptr_t end = begin + h.p_memsz;
    if (self >= begin && self < end) ours = true;
    if ((h.p_flags & PF_W) == 0) mine.emplace_back(begin, end);
  }
  if (!ours) return 0;
  image->ranges = std::move(mine);
  return 1;  // found: stop
}

const ReadOnlyImage& OwnReadOnlyImage() {
  static const ReadOnlyImage image = [] {
    ReadOnlyImage out;
    dl_iterate_phdr(CollectReadOnly, &out);
    return out;
  }();
  return image;
}

// The explain log's hooks (storage/explain_log.h). A trigger's statement is reported with
// its caller's stmt and an SQL comment for text: it is part of that run, not a run of its own.
int TraceStatement(unsigned type, void* context, void* p, void* x) {
  auto* shard = static_cast<Shard*>(context);
  ExplainLog* log = shard->explain_log();
  auto* stmt = static_cast<sqlite3_stmt*>(p);
  if (log == nullptr) return 0;
  if (type == SQLITE_TRACE_STMT) {
    const char* text = static_cast<const char*>(x);
    const char* sql = sqlite3_sql(stmt);
    if (sql == nullptr || (text != nullptr && text[0] == '-' && text[1] == '-')) return 0;
    char* expanded = sqlite3_expanded_sql(stmt);
    log->Started(stmt, shard->name(), sql, expanded, sqlite3_total_changes64(shard->db()));
    sqlite3_free(expanded);
  } else if (type == SQLITE_TRACE_ROW) {
    log->Row(stmt);
  } else if (type == SQLITE_TRACE_PROFILE) {
    log->Finished(stmt, !sqlite3_stmt_readonly(stmt), sqlite3_total_changes64(shard->db()));
  }
  return 0;
}

// SQLite's process-wide settings, made at the program's start, before any connection opens
// (sqlite3_config must precede sqlite3_initialize; once SQLite is initialized it refuses,
// and its defaults stay), so that every connection of the process has them, the bench's
// baselines' too. Memory statistics off: with them on, SQLite's default, every sqlite3_malloc and
// sqlite3_free takes one global mutex to count the bytes, and a server's threads (a
// request's reads, the background applier's writes) wait for it and wake each other: 2% of
// a home read's time on the retwis trace at 3 000 users (perf, session 47), a mutex that
// counts statistics nothing here reads.
const int sqlite_configured = sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);

}  // namespace

Stmt& Stmt::Bind(int index, int64_t value) {
  int rc = sqlite3_bind_int64(stmt_, index, value);
  if (rc != SQLITE_OK) shard_->Raise(rc, "bind");
  return *this;
}

Stmt& Stmt::Bind(int index, const std::string& value) {
  int rc = sqlite3_bind_text(stmt_, index, value.data(), static_cast<int>(value.size()),
                             SQLITE_TRANSIENT);
  if (rc != SQLITE_OK) shard_->Raise(rc, "bind");
  return *this;
}

Stmt& Stmt::BindNull(int index) {
  sqlite3_bind_null(stmt_, index);
  return *this;
}

Stmt& Stmt::BindBlob(int index, const std::string& bytes) {
  sqlite3_bind_blob(stmt_, index, bytes.data(), static_cast<int>(bytes.size()), SQLITE_TRANSIENT);
  return *this;
}

bool Stmt::Step() {
  int rc = sqlite3_step(stmt_);
  if (rc == SQLITE_ROW) return true;
  // A commit this statement made has met its WAL hook by now, if it wrote a frame.
  shard_->SettleUnwritten();
  if (rc == SQLITE_DONE) return false;
  sqlite3_reset(stmt_);
  shard_->Raise(rc, "step");
}

int Stmt::Run() {
  while (Step()) {
  }
  return sqlite3_changes(shard_->db());
}

bool Stmt::Exists() {
  bool found = Step();
  Reset();
  return found;
}

int64_t Stmt::IntOr(int64_t fallback) {
  int64_t value = Step() ? Int(0) : fallback;
  Reset();
  return value;
}

std::vector<int64_t> Stmt::Ints() {
  std::vector<int64_t> out;
  while (Step()) out.push_back(Int(0));
  return out;
}

int64_t Stmt::Int(int column) const { return sqlite3_column_int64(stmt_, column); }

std::string Stmt::Text(int column) const {
  const auto* text = sqlite3_column_text(stmt_, column);
  if (text == nullptr) return std::string();
  return std::string(reinterpret_cast<const char*>(text), sqlite3_column_bytes(stmt_, column));
}

std::string Stmt::Blob(int column) const {
  const void* data = sqlite3_column_blob(stmt_, column);
  if (data == nullptr) return std::string();
  return std::string(static_cast<const char*>(data),
                     static_cast<size_t>(sqlite3_column_bytes(stmt_, column)));
}

bool Stmt::IsNull(int column) const { return sqlite3_column_type(stmt_, column) == SQLITE_NULL; }

void Stmt::Reset() {
  sqlite3_reset(stmt_);
  sqlite3_clear_bindings(stmt_);
}

Shard::Shard(int index, std::string path, bool create, ExplainLog* explain_log)
    : index_(index), path_(std::move(path)), explain_log_(explain_log) {
  int flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX | (create ? SQLITE_OPEN_CREATE : 0);
  // Made 0600 before SQLite sees it: SQLite would make it 0644, and it gives the -wal and
  // -shm files the database's mode (storage/files.h).
  if (create) {
    int fd = OpenPrivate(path_, O_RDWR);
    if (fd >= 0) close(fd);
  }
  int rc = sqlite3_open_v2(path_.c_str(), &db_, flags, nullptr);
  if (rc != SQLITE_OK) {
    std::string message =
        name() + ": cannot open " + path_ + ": " + (db_ ? sqlite3_errmsg(db_) : sqlite3_errstr(rc));
    sqlite3_close_v2(db_);
    db_ = nullptr;
    Fail(Code::kStorageError, message);
  }
  sqlite3_extended_result_codes(db_, 1);
  sqlite3_busy_handler(db_, &Shard::OnBusy, this);
  // The WAL-reset race needs a checkpoint concurrent with a commit: no automatic ones.
  sqlite3_db_config(db_, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 1, nullptr);
  Exec("PRAGMA wal_autocheckpoint=0");
  // Set after the pragma, which installs (or with 0 removes) SQLite's own hook: this one only
  // notes the WAL's length, for Checkpoint.
  sqlite3_wal_hook(
      db_,
      [](void* self, sqlite3*, const char*, int frames) {
        static_cast<Shard*>(self)->OnWalCommit(frames);
        return SQLITE_OK;
      },
      this);
  // The commit log (storage/commit_log.h): every commit of this connection is recorded.
  commit_log_ = CommitLog::For(path_);
  sqlite3_update_hook(db_, &Shard::OnRowChange, this);
  sqlite3_commit_hook(db_, &Shard::OnCommit, this);
  sqlite3_rollback_hook(db_, &Shard::OnRollback, this);
  Exec("PRAGMA synchronous=FULL");
  sync_level_ = 2;
  Exec("PRAGMA foreign_keys=OFF");
  page_size_ = Query("PRAGMA page_size").IntOr(4096);  // before the trace: not an op's statement
  if (explain_log_ != nullptr)
    sqlite3_trace_v2(db_, SQLITE_TRACE_STMT | SQLITE_TRACE_ROW | SQLITE_TRACE_PROFILE,
                     TraceStatement, this);
}

// SQLite's own busy_timeout sleeps 1, 2, 5, 10 ms and so on between tries, so a writer that
// meets a transaction of 3 ms (a server's background applier: jobs.h) waits 8. Here the
// first 10 ms are tried every 100 us, then every millisecond, up to kBusyTimeoutMs in all.
int Shard::OnBusy(void* self, int count) {
  auto* shard = static_cast<Shard*>(self);
  const auto now = std::chrono::steady_clock::now();
  if (count == 0) shard->busy_since_ = now;
  if (now - shard->busy_since_ >= std::chrono::milliseconds(kBusyTimeoutMs)) return 0;
  std::this_thread::sleep_for(count < 100 ? std::chrono::microseconds(100)
                                          : std::chrono::microseconds(1000));
  return 1;
}

Shard::~Shard() {
  // Finalizing ends a run (SQLITE_TRACE_PROFILE), and the log may already be gone.
  if (explain_log_ != nullptr) sqlite3_trace_v2(db_, 0, nullptr, nullptr);
  for (auto& entry : cache_) sqlite3_finalize(entry.second->stmt.raw());
  cache_.clear();
  sqlite3_close_v2(db_);
}

std::string Shard::name() const {
  char buf[32];
  std::snprintf(buf, sizeof buf, "-%02d", index_);
  return label_ + buf;
}

Stmt& Shard::Query(const char* sql) {
  // A literal's statement is found by the literal's address; other text by its bytes.
  const bool fixed = OwnReadOnlyImage().Holds(sql);
  if (fixed && !by_address_.empty()) {
    const size_t mask = by_address_.size() - 1;
    for (size_t k = AddressSlot(sql);; k = (k + 1) & mask) {
      const AddressEntry& e = by_address_[k];
      if (e.sql == sql) {
        e.cached->stmt.Reset();
        return e.cached->stmt;
      }
      if (e.sql == nullptr) break;
    }
  }
  auto it = cache_.find(std::string_view(sql));
  if (it == cache_.end()) {
    sqlite3_stmt* stmt = nullptr;
    int rc = sqlite3_prepare_v3(db_, sql, -1, SQLITE_PREPARE_PERSISTENT, &stmt, nullptr);
    if (rc != SQLITE_OK) Raise(rc, sql);
    auto entry = std::make_unique<Cached>(Cached{sql, Stmt(this, stmt)});
    std::string_view key = entry->sql;
    it = cache_.emplace(key, std::move(entry)).first;
  }
  if (fixed) RememberAddress(sql, it->second.get());
  it->second->stmt.Reset();
  return it->second->stmt;
}

size_t Shard::AddressSlot(const char* sql) const {
  return FibonacciHash(static_cast<int64_t>(reinterpret_cast<uintptr_t>(sql)), address_bits_);
}

void Shard::RememberAddress(const char* sql, Cached* cached) {
  // At most half full: a probe ends at an empty slot soon.
  if (2 * (address_count_ + 1) > by_address_.size()) {
    std::vector<AddressEntry> old = std::move(by_address_);
    address_bits_ = old.empty() ? 6 : address_bits_ + 1;
    by_address_.assign(size_t{1} << address_bits_, AddressEntry{});
    address_count_ = 0;
    for (const AddressEntry& e : old)
      if (e.sql != nullptr) RememberAddress(e.sql, e.cached);
  }
  const size_t mask = by_address_.size() - 1;
  size_t k = AddressSlot(sql);
  while (by_address_[k].sql != nullptr && by_address_[k].sql != sql) k = (k + 1) & mask;
  if (by_address_[k].sql == nullptr) ++address_count_;
  by_address_[k] = AddressEntry{sql, cached};
}

void Shard::Exec(const char* sql) {
  char* error = nullptr;
  int rc = sqlite3_exec(db_, sql, nullptr, nullptr, &error);
  SettleUnwritten();
  sqlite3_free(error);
  if (rc != SQLITE_OK) Raise(rc, sql);
}

int64_t Shard::UserVersion() {
  Stmt& s = Query("PRAGMA user_version");
  s.Step();
  int64_t v = s.Int(0);
  s.Reset();
  return v;
}

bool Shard::Checkpoint(int64_t min_wal_bytes) {
  if (min_wal_bytes > 1) {
    if (wal_frames_ <= 0) return false;  // nothing committed here since the last checkpoint
    // The WAL's header, then a 24-byte header and a page per frame (sqlite.org/fileformat2.html).
    if (32 + wal_frames_ * (24 + page_size_) < min_wal_bytes) return false;
  }
  struct stat st;
  std::string wal = path_ + "-wal";
  if (stat(wal.c_str(), &st) != 0 || st.st_size < min_wal_bytes) return false;
  // One checkpointer per shard at a time, across processes: the lock is held from the
  // checkpoint until the WAL has been reset, so that no checkpoint runs while a commit
  // resets it (the WAL-reset race above). TRUNCATE resets it itself; after a RESTART the
  // next commit would, so this connection makes that commit at once, under the lock.
  std::string lock_path = path_ + ".ckpt";
  int fd = OpenPrivate(lock_path, O_RDWR);
  if (fd < 0) return false;
  bool done = false;
  if (flock(fd, LOCK_EX | LOCK_NB) == 0) {
    const bool keep_length = min_wal_bytes > 1;
    const int mode = keep_length ? SQLITE_CHECKPOINT_RESTART : SQLITE_CHECKPOINT_TRUNCATE;
    const int rc = sqlite3_wal_checkpoint_v2(db_, nullptr, mode, nullptr, nullptr);
    done = rc == SQLITE_OK;
    if (done) wal_frames_ = 0;
    // Busy (a reader still on the WAL) may still have copied every frame, leaving the reset
    // to a later commit: this one makes it now if it can, else it appends one frame.
    if (keep_length && (rc == SQLITE_OK || (rc & 0xff) == SQLITE_BUSY)) ResetWal();
    flock(fd, LOCK_UN);
  }
  close(fd);
  return done;
}

// A commit that changes nothing but writes one frame (page 1, by setting user_version to
// the value it has): the first commit after a RESTART checkpoint starts the WAL again
// from its beginning. Errors are left alone: the WAL is then reset by a later commit, as
// SQLite would without this, and the next checkpoint tries again.
void Shard::ResetWal() {
  if (!sqlite3_get_autocommit(db_)) return;  // inside a transaction: not here
  try {
    Exec("BEGIN IMMEDIATE");
    try {
      Exec(("PRAGMA user_version=" + std::to_string(UserVersion())).c_str());
      Exec("COMMIT");
    } catch (const std::exception&) {
      if (!sqlite3_get_autocommit(db_)) sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
    }
  } catch (const std::exception&) {  // BEGIN failed: busy past the timeout, or no space
  }
}

namespace {
std::atomic<bool> durable_commits{true};
}  // namespace

void SetDurableCommits(bool on) { durable_commits = on; }

void Shard::OnRowChange(void* self, int op, const char*, const char* table, long long rowid) {
  auto* shard = static_cast<Shard*>(self);
  shard->NoteTable(table);
  for (const auto& [fn, arg] : shard->row_listeners_)
    fn(arg, op, table, static_cast<int64_t>(rowid));
}

void Shard::NoteTable(const char* table) {
  // By name, not by the address of SQLite's text for it: a schema change inside the
  // transaction may free that text and give another table's name the same address. A
  // transaction changes a few tables, so this is a few short compares a row.
  if (std::find(txn_changes_.begin(), txn_changes_.end(), table) == txn_changes_.end())
    txn_changes_.emplace_back(table);
}

void Shard::NoteChange(const char* what) { NoteTable(what); }

void Shard::NoteRowChange(int op, const char* table, int64_t key) {
  NoteTable(table);
  if (txn_keys_.size() < kKeys)
    txn_keys_.emplace_back(table, key);
  else
    txn_keys_full_ = true;
  for (const auto& [fn, arg] : row_listeners_) fn(arg, op, table, key);
}

// The commit hook: the write lock is held and no frame of this commit is written yet, so
// the header is the one this commit moves on from (storage/commit_log.h). The commit
// enters the log in flight, for a watch that sees its header before its WAL hook runs.
int Shard::OnCommit(void* self) {
  auto* shard = static_cast<Shard*>(self);
  shard->SettleUnwritten();  // an earlier commit of this connection that wrote no frame
  CommitLog::Commit commit;
  if (shard->WalIndexHeader(&commit.before)) {
    commit.connection = shard->db_;
    commit.changes.swap(shard->txn_changes_);
    commit.keys.swap(shard->txn_keys_);
    commit.keys_complete = !shard->txn_keys_full_;
    shard->pending_before_ = commit.before;
    shard->pending_ = shard->commit_log_->Begin(std::move(commit));
  }
  shard->ClearTxnNotes();
  return 0;  // go on with the commit
}

void Shard::OnRollback(void* self) {
  auto* shard = static_cast<Shard*>(self);
  shard->ClearTxnNotes();
  shard->SettleUnwritten();
}

void Shard::ClearTxnNotes() {
  txn_changes_.clear();
  txn_keys_.clear();
  txn_keys_full_ = false;
}

void Shard::SettleInFlight() {
  commit_log_->Settle(pending_, nullptr);
  pending_ = 0;
}

// The WAL hook, after a commit that wrote frames (the lock already released): settles the
// commit if the header is still the one it left.
void Shard::OnWalCommit(int frames) {
  wal_frames_ = frames;
  if (pending_ == 0) return;
  WalHeader after;
  const bool named = WalIndexHeader(&after) &&
                     after.change_counter() == pending_before_.change_counter() + 1 &&
                     after.frames() == static_cast<uint32_t>(frames);
  // Not named: another writer has committed on top, and the commit leaves the log.
  commit_log_->Settle(pending_, named ? &after : nullptr);
  pending_ = 0;
}

void Shard::AddRowListener(RowListener fn, void* arg) {
  RemoveRowListener(arg);
  row_listeners_.emplace_back(fn, arg);
}

void Shard::RemoveRowListener(void* arg) {
  row_listeners_.erase(std::remove_if(row_listeners_.begin(), row_listeners_.end(),
                                      [arg](const auto& l) { return l.second == arg; }),
                       row_listeners_.end());
}

void Shard::UseSync(Sync level) {
  int want = durable_commits ? std::min(static_cast<int>(level), sync_cap_) : 0;
  if (want == sync_level_) return;
  static const char* const kPragma[] = {"PRAGMA synchronous=OFF", "PRAGMA synchronous=NORMAL",
                                        "PRAGMA synchronous=FULL"};
  sync_level_ = -1;  // unknown should the pragma fail
  Query(kPragma[want]).Run();
  sync_level_ = want;
}

void Shard::SyncWal() {
  sqlite3_file* wal = nullptr;
  int rc = sqlite3_file_control(db_, "main", SQLITE_FCNTL_JOURNAL_POINTER, &wal);
  if (rc != SQLITE_OK) Raise(rc, "SQLITE_FCNTL_JOURNAL_POINTER");
  // No WAL opened by this connection: it has committed nothing that is not synced.
  if (wal == nullptr || wal->pMethods == nullptr) return;
  rc = wal->pMethods->xSync(wal, SQLITE_SYNC_NORMAL);
  if (rc != SQLITE_OK) Raise(rc, "sync of the WAL");
}

std::string Shard::WalPath() const {
  const char* wal = sqlite3_filename_wal(sqlite3_db_filename(db_, "main"));
  return wal != nullptr ? std::string(wal) : path_ + "-wal";
}

void SyncFile(const std::string& path) {
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    if (errno == ENOENT) return;
    Fail(Code::kStorageError, "cannot open " + path + " to sync it: " + std::strerror(errno));
  }
  int rc = fdatasync(fd);
  const int error = errno;
  close(fd);
  if (rc != 0) Fail(Code::kStorageError, "sync of " + path + ": " + std::strerror(error));
}

void Shard::Raise(int rc, const char* what) {
  int primary = rc & 0xff;
  std::string detail = db_ ? sqlite3_errmsg(db_) : sqlite3_errstr(rc);
  std::string message;
  if (primary == SQLITE_BUSY || primary == SQLITE_LOCKED)
    message = name() + " is locked past the timeout (" + detail + ")";
  else if (primary == SQLITE_CORRUPT || primary == SQLITE_NOTADB)
    message = name() + " (" + path_ + ") is corrupt or not a weibo shard: " + detail;
  else if (primary == SQLITE_FULL)
    message = name() + ": disk full";
  else
    message = name() + ": " + detail + " [" + what + "]";
  Fail(Code::kStorageError, message);
}

WriteTxn::WriteTxn(Shard& shard, Sync sync) : shard_(shard) {
  shard_.UseSync(sync);
  shard_.Query("BEGIN IMMEDIATE").Run();
}

WriteTxn::~WriteTxn() {
  if (open_) sqlite3_exec(shard_.db(), "ROLLBACK", nullptr, nullptr, nullptr);
}

void WriteTxn::Commit() {
  shard_.Query("COMMIT").Run();
  open_ = false;
}

ReadTxn::ReadTxn(Shard& shard) : shard_(shard) { shard_.Query("BEGIN").Run(); }

ReadTxn::~ReadTxn() {
  try {
    shard_.Query("COMMIT").Run();
  } catch (...) {  // a read-only transaction has nothing to lose; the next statement reports
  }
}

}  // namespace weibo
