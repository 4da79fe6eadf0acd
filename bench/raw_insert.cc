#include "raw_insert.h"

#include <sqlite3.h>

#include <chrono>

#include "probe.h"

namespace weibo::bench {
namespace {

const char kSchema[] =
    "PRAGMA journal_mode=WAL;"
    "PRAGMA synchronous=FULL;"
    "CREATE TABLE msg_index(user_id INTEGER NOT NULL, msg_id INTEGER NOT NULL,"
    " author_id INTEGER NOT NULL, time INTEGER NOT NULL, PRIMARY KEY(user_id, msg_id))"
    " WITHOUT ROWID;";

class Db {
 public:
  explicit Db(const std::string& path) {
    rc_ = sqlite3_open_v2(path.c_str(), &db_, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nullptr);
  }
  ~Db() {
    sqlite3_finalize(insert_);
    sqlite3_close_v2(db_);
  }
  bool Exec(const char* sql) {
    return ok() && (rc_ = sqlite3_exec(db_, sql, nullptr, nullptr, nullptr)) == SQLITE_OK;
  }
  bool Prepare(const char* sql) {
    return ok() && (rc_ = sqlite3_prepare_v2(db_, sql, -1, &insert_, nullptr)) == SQLITE_OK;
  }
  bool Insert(int64_t user, int64_t msg, int64_t author, int64_t time) {
    sqlite3_bind_int64(insert_, 1, user);
    sqlite3_bind_int64(insert_, 2, msg);
    sqlite3_bind_int64(insert_, 3, author);
    sqlite3_bind_int64(insert_, 4, time);
    int rc = sqlite3_step(insert_);
    sqlite3_reset(insert_);
    if (rc != SQLITE_DONE) rc_ = rc;
    return rc == SQLITE_DONE;
  }
  bool ok() const { return rc_ == SQLITE_OK; }
  std::string error() const { return db_ ? sqlite3_errmsg(db_) : sqlite3_errstr(rc_); }

 private:
  sqlite3* db_ = nullptr;
  sqlite3_stmt* insert_ = nullptr;
  int rc_ = SQLITE_OK;
};

}  // namespace

Json RawInsertResult::ToJson() const {
  return Json{{"transactions", transactions},
              {"rows", rows},
              {"rows_per_transaction", RowsPerTransaction()},
              {"seconds", seconds},
              {"rows_per_s", RowsPerSecond()}};
}

Result<RawInsertResult> RunRawInsert(const std::string& dir, const std::vector<FanBatch>& batches,
                                     int64_t transactions) {
  ProbePause pause;
  const std::string path = dir + "/raw-insert.db";
  Db db(path);
  if (!db.Exec(kSchema) ||
      !db.Prepare("INSERT INTO msg_index(user_id, msg_id, author_id, time) VALUES (?, ?, ?, ?)"))
    return Status(Code::kStorageError, path + ": " + db.error());
  static const FanBatch kOneRow = {1};
  RawInsertResult r;
  auto t0 = std::chrono::steady_clock::now();
  for (int64_t t = 0; t < transactions; ++t) {
    const FanBatch& batch = batches.empty() ? kOneRow : batches[t % batches.size()];
    // One message per batch: msg_id grows like a gene id, time like a clock.
    int64_t msg_id = (t + 1) << 22, time = 1704067200000LL + t;
    bool ok = db.Exec("BEGIN IMMEDIATE");
    for (int64_t user : batch) ok = ok && db.Insert(user, msg_id, 0, time);
    ok = ok && db.Exec("COMMIT");
    if (!ok) return Status(Code::kStorageError, path + ": " + db.error());
    ++r.transactions;
    r.rows += static_cast<int64_t>(batch.size());
  }
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return r;
}

}  // namespace weibo::bench
