// storage/shard.cc and storage/schema.cc: one SQLite file and its connection — pragmas
// (SPEC §3: WAL, a busy wait, no automatic checkpoints), the statement cache, write and
// read transactions, errors as storage_error, the versioned schema.
#include "storage/shard.h"

#include <sqlite3.h>
#include <sys/stat.h>

#include <chrono>
#include <filesystem>
#include <future>
#include <thread>

#include "storage/explain_log.h"
#include "storage/schema.h"
#include "test_support.h"

namespace weibo {
namespace {

using test::FailureCode;
using test::FreshShard;
using test::RawDb;
using test::TempDir;

std::string PragmaText(Shard& shard, const char* pragma) {
  Stmt& s = shard.Query(pragma);
  REQUIRE(s.Step());
  std::string v = s.Text(0);
  s.Reset();
  return v;
}

int64_t FileSize(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0 ? st.st_size : -1;
}

int64_t CountRows(Shard& shard, const char* sql) {
  Stmt& s = shard.Query(sql);
  REQUIRE(s.Step());
  int64_t n = s.Int(0);
  s.Reset();
  return n;
}

TEST_CASE("Shard: every connection sets WAL, synchronous=FULL, no autocheckpoint") {
  TempDir dir;
  auto shard = FreshShard(dir);
  REQUIRE(PragmaText(*shard, "PRAGMA journal_mode") == "wal");
  REQUIRE(PragmaText(*shard, "PRAGMA wal_autocheckpoint") == "0");
  REQUIRE(PragmaText(*shard, "PRAGMA synchronous") == "2");
  REQUIRE(PragmaText(*shard, "PRAGMA application_id") == std::to_string(kApplicationId));
  REQUIRE(shard->UserVersion() == SchemaVersion());
  REQUIRE(shard->name() == "shard-00");
  Shard other(12, dir.Join("shard.db"), false, nullptr);
  REQUIRE(other.name() == "shard-12");
  REQUIRE(PragmaText(other, "PRAGMA wal_autocheckpoint") == "0");
}

TEST_CASE("Shard: SQLite keeps no memory statistics, so its allocations take no mutex") {
  TempDir dir;
  auto shard = FreshShard(dir);
  // With statistics on (SQLite's default) every allocation is counted under one global
  // mutex; off, nothing is counted, and the high-water mark stays 0 however much was used.
  for (int i = 0; i < 100; ++i)
    shard->Exec(("CREATE TABLE t" + std::to_string(i) + "(x TEXT)").c_str());
  CHECK(sqlite3_memory_used() == 0);
  CHECK(sqlite3_memory_highwater(0) == 0);
}

TEST_CASE("Shard: a writer waits for another connection's write lock, in short sleeps") {
  TempDir dir;
  auto shard = FreshShard(dir);
  Shard other(0, dir.Join("shard.db"), false, nullptr);
  shard->Exec("BEGIN IMMEDIATE");
  auto release = std::async(std::launch::async, [&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(30));
    shard->Exec("COMMIT");
  });
  const auto start = std::chrono::steady_clock::now();
  other.Exec("BEGIN IMMEDIATE");  // busy until the commit: waited for, not refused
  const auto waited = std::chrono::steady_clock::now() - start;
  other.Exec("COMMIT");
  release.get();
  REQUIRE(waited >= std::chrono::milliseconds(25));
}

TEST_CASE("Shard: the schema has every table of SPEC §3") {
  TempDir dir;
  auto shard = FreshShard(dir);
  for (const char* table :
       {"user_info", "user_name", "user_relation", "msg_index", "msg_info", "msg_counter",
        "msg_msg_relation", "outbox", "job_applied", "meta", "msg_seq"}) {
    Stmt& s = shard->Query("SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name = ?");
    s.Bind(1, std::string(table));
    REQUIRE(s.Step());
    INFO(table);
    REQUIRE(s.Int(0) == 1);
    s.Reset();
  }
}

TEST_CASE("Shard: opening a missing file without create is a storage error") {
  TempDir dir;
  REQUIRE(FailureCode([&] { Shard(0, dir.Join("absent.db"), false, nullptr); }) ==
          Code::kStorageError);
  REQUIRE_FALSE(std::filesystem::exists(dir.Join("absent.db")));
}

TEST_CASE("Shard: Migrate refuses a foreign file and a newer schema, and is idempotent") {
  TempDir dir;
  SECTION("foreign: no application_id") {
    sqlite3* db = nullptr;
    sqlite3_open(dir.Join("foreign.db").c_str(), &db);
    sqlite3_exec(db, "CREATE TABLE t(x)", nullptr, nullptr, nullptr);
    sqlite3_close(db);
    Shard shard(0, dir.Join("foreign.db"), false, nullptr);
    REQUIRE(FailureCode([&] { Migrate(shard, false); }) == Code::kStorageError);
  }
  SECTION("newer schema") {
    { FreshShard(dir, "new.db"); }
    RawDb(dir.Join("new.db")).Exec("PRAGMA user_version=" + std::to_string(SchemaVersion() + 1));
    Shard shard(0, dir.Join("new.db"), false, nullptr);
    REQUIRE(FailureCode([&] { Migrate(shard, false); }) == Code::kStorageError);
  }
  SECTION("migrating a current shard again changes nothing") {
    { FreshShard(dir, "cur.db"); }
    Shard shard(0, dir.Join("cur.db"), false, nullptr);
    Migrate(shard, false);
    REQUIRE(shard.UserVersion() == SchemaVersion());
  }
}

TEST_CASE("Shard: Query caches one prepared statement per SQL text, handed out reset") {
  TempDir dir;
  auto shard = FreshShard(dir);
  const char* sql = "SELECT ? + 1";
  Stmt& a = shard->Query(sql);
  a.Bind(1, int64_t{41});
  REQUIRE(a.Step());
  REQUIRE(a.Int(0) == 42);
  Stmt& b = shard->Query(sql);  // mid-iteration: comes back reset, bindings cleared
  REQUIRE(&a == &b);
  REQUIRE(b.Step());
  REQUIRE(b.IsNull(0));
  REQUIRE(b.Text(0).empty());
}

TEST_CASE("Shard: a literal's statement is the same found by address or by text") {
  TempDir dir;
  auto shard = FreshShard(dir);
  // By its literal's address first, then by the same bytes elsewhere (heap): one statement.
  Stmt& literal = shard->Query("SELECT 7");
  std::string heap = "SELECT 7";
  REQUIRE(&shard->Query(heap.c_str()) == &literal);
  REQUIRE(&shard->Query("SELECT 7") == &literal);
  // Text that changes at one address (a buffer reused) is looked up by its bytes each time:
  // never the statement the address had before.
  std::string buffer = "SELECT 1";
  REQUIRE(shard->Query(buffer.c_str()).IntOr(0) == 1);
  const char* at = buffer.c_str();
  buffer[7] = '2';
  REQUIRE(buffer.c_str() == at);
  REQUIRE(shard->Query(buffer.c_str()).IntOr(0) == 2);
  // Many literals: the address table grows and still finds each one.
  const char* many[] = {
      "SELECT 10", "SELECT 11", "SELECT 12", "SELECT 13", "SELECT 14", "SELECT 15", "SELECT 16",
      "SELECT 17", "SELECT 18", "SELECT 19", "SELECT 20", "SELECT 21", "SELECT 22", "SELECT 23",
      "SELECT 24", "SELECT 25", "SELECT 26", "SELECT 27", "SELECT 28", "SELECT 29", "SELECT 30",
      "SELECT 31", "SELECT 32", "SELECT 33", "SELECT 34", "SELECT 35", "SELECT 36", "SELECT 37",
      "SELECT 38", "SELECT 39", "SELECT 40", "SELECT 41", "SELECT 42", "SELECT 43", "SELECT 44"};
  for (int round = 0; round < 2; ++round)
    for (int k = 0; k < 35; ++k) REQUIRE(shard->Query(many[k]).IntOr(0) == 10 + k);
  REQUIRE(&shard->Query("SELECT 7") == &literal);
}

TEST_CASE("Shard: Stmt binds integers, text and NULL, Run returns the rows changed") {
  TempDir dir;
  auto shard = FreshShard(dir);
  WriteTxn txn(*shard);
  REQUIRE(shard->Query("INSERT INTO meta(key, value) VALUES (?, ?)")
              .Bind(1, std::string("k1"))
              .Bind(2, std::string("中文 text"))
              .Run() == 1);
  Stmt& s = shard->Query("SELECT value, length(value) FROM meta WHERE key = ?");
  s.Bind(1, std::string("k1"));
  REQUIRE(s.Step());
  REQUIRE(s.Text(0) == "中文 text");
  REQUIRE(s.Int(1) == 7);
  REQUIRE_FALSE(s.Step());
  s.Reset();
  REQUIRE(shard->Query("UPDATE meta SET value = 'x' WHERE key LIKE 'zz%'").Run() == 0);
  txn.Commit();
}

TEST_CASE("Shard: a WriteTxn rolls back when it is not committed") {
  TempDir dir;
  auto shard = FreshShard(dir);
  try {
    WriteTxn txn(*shard);
    shard->Exec("INSERT INTO meta(key, value) VALUES ('gone', '1')");
    Fail(Code::kForbidden, "abort the flow");
  } catch (const Failure&) {
  }
  REQUIRE(CountRows(*shard, "SELECT count(*) FROM meta WHERE key = 'gone'") == 0);
  {
    WriteTxn txn(*shard);
    shard->Exec("INSERT INTO meta(key, value) VALUES ('kept', '1')");
    txn.Commit();
  }
  REQUIRE(CountRows(*shard, "SELECT count(*) FROM meta WHERE key = 'kept'") == 1);
}

TEST_CASE("Shard: WriteTxn is BEGIN IMMEDIATE, the write lock is taken up front") {
  TempDir dir;
  auto shard = FreshShard(dir);
  RawDb other(dir.Join("shard.db"));
  sqlite3_busy_timeout(other.db(), 0);
  {
    WriteTxn txn(*shard);  // no statement has run yet, and still:
    REQUIRE((sqlite3_exec(other.db(), "BEGIN IMMEDIATE", nullptr, nullptr, nullptr) & 0xff) ==
            SQLITE_BUSY);
    // Readers are not blocked (WAL).
    REQUIRE(other.Int("SELECT count(*) FROM meta") == 0);
  }
  REQUIRE(sqlite3_exec(other.db(), "BEGIN IMMEDIATE; COMMIT;", nullptr, nullptr, nullptr) ==
          SQLITE_OK);
}

TEST_CASE("Shard: a write transaction commits at its Sync level, bulk loading turns fsyncs off") {
  TempDir dir;
  auto shard = FreshShard(dir);
  auto level = [&] { return PragmaText(*shard, "PRAGMA synchronous"); };
  auto write = [&](Sync sync) {
    WriteTxn txn(*shard, sync);
    INFO("inside the transaction");
    std::string inside = level();
    shard->Query("INSERT OR REPLACE INTO meta(key, value) VALUES ('k', 'v')").Run();
    txn.Commit();
    return inside;
  };
  CHECK(write(Sync::kNormal) == "1");
  CHECK(write(Sync::kNormal) == "1");
  CHECK(write(Sync::kFull) == "2");  // the default level is back for the next durable write
  SetDurableCommits(false);
  CHECK(write(Sync::kFull) == "0");
  SetDurableCommits(true);
  CHECK(write(Sync::kFull) == "2");
  shard->SyncWal();  // a sync of the WAL needs no transaction
  CHECK(write(Sync::kNormal) == "1");
  shard->SyncWal();
}

TEST_CASE("Shard: a ReadTxn is one snapshot across statements") {
  TempDir dir;
  auto shard = FreshShard(dir);
  RawDb other(dir.Join("shard.db"));
  ReadTxn read(*shard);
  REQUIRE(CountRows(*shard, "SELECT count(*) FROM meta") == 0);
  other.Exec("INSERT INTO meta(key, value) VALUES ('later', '1')");
  REQUIRE(CountRows(*shard, "SELECT count(*) FROM meta") == 0);
}

TEST_CASE("Shard: SQLite errors become storage_error naming the shard") {
  TempDir dir;
  auto shard = FreshShard(dir);
  try {
    shard->Exec("SELECT * FROM no_such_table");
    FAIL("no error");
  } catch (const Failure& f) {
    REQUIRE(f.status().code() == Code::kStorageError);
    REQUIRE(f.status().message().find("shard-00") != std::string::npos);
  }
  try {
    shard->Raise(SQLITE_BUSY, "step");
  } catch (const Failure& f) {
    REQUIRE(f.status().code() == Code::kStorageError);
    REQUIRE(f.status().message().find("locked past the timeout") != std::string::npos);
  }
  try {
    shard->Raise(SQLITE_FULL, "step");
  } catch (const Failure& f) {
    REQUIRE(f.status().message().find("disk full") != std::string::npos);
  }
  REQUIRE(FailureCode([&] { shard->Query("SELEC nonsense"); }) == Code::kStorageError);
  WriteTxn txn(*shard);
  shard->Exec("INSERT INTO meta(key, value) VALUES ('k', 'v')");
  REQUIRE(FailureCode([&] { shard->Exec("INSERT INTO meta(key, value) VALUES ('k', 'w')"); }) ==
          Code::kStorageError);
}

TEST_CASE("Shard: no checkpoint on close, Checkpoint truncates the WAL only past its threshold") {
  TempDir dir;
  std::string wal = dir.Join("shard.db") + "-wal";
  {
    auto shard = FreshShard(dir);
    WriteTxn txn(*shard);
    for (int i = 0; i < 50; ++i)
      shard->Query("INSERT INTO meta(key, value) VALUES (?, ?)")
          .Bind(1, "k" + std::to_string(i))
          .Bind(2, std::string(500, 'v'))
          .Run();
    txn.Commit();
  }
  // Closing the last connection left the WAL alone (no automatic checkpoint).
  int64_t before = FileSize(wal);
  REQUIRE(before > 0);
  Shard shard(0, dir.Join("shard.db"), false, nullptr);
  shard.Checkpoint(before + 1);
  REQUIRE(FileSize(wal) == before);
  shard.Checkpoint(0);
  REQUIRE(FileSize(wal) == 0);
  REQUIRE(CountRows(shard, "SELECT count(*) FROM meta") == 50);
  REQUIRE(std::filesystem::exists(dir.Join("shard.db") + ".ckpt"));
}

TEST_CASE(
    "Shard: past a threshold, Checkpoint goes by the WAL its own commits left, keeps its length") {
  TempDir dir;
  std::string wal = dir.Join("shard.db") + "-wal";
  auto commit = [](Shard& shard, int from, int rows) {
    WriteTxn txn(shard);
    for (int i = from; i < from + rows; ++i)
      shard.Query("INSERT INTO meta(key, value) VALUES (?, ?)")
          .Bind(1, "k" + std::to_string(i))
          .Bind(2, std::string(500, 'v'))
          .Run();
    txn.Commit();
  };
  auto writer = FreshShard(dir);
  Shard other(0, dir.Join("shard.db"), false, nullptr);
  commit(*writer, 0, 50);
  const int64_t grown = FileSize(wal);
  REQUIRE(grown > 0);
  // Another connection, which has committed nothing, leaves the WAL to its writer.
  other.Checkpoint(grown / 2);
  REQUIRE(FileSize(wal) == grown);
  // The writer: not below the threshold, then past it once it has committed more.
  writer->Checkpoint(grown + 1);
  REQUIRE(FileSize(wal) == grown);
  commit(*writer, 50, 50);
  const int64_t longer = FileSize(wal);
  REQUIRE(longer > grown);
  writer->Checkpoint(grown + 1);
  // A RESTART: the file keeps its length, and the checkpointer's own commit of one frame
  // has started it again from its beginning. The same 50 rows as the first commit, which
  // made it `grown` long, now fit in it: written over, not appended.
  REQUIRE(FileSize(wal) == longer);
  commit(*writer, 100, 50);
  REQUIRE(FileSize(wal) == longer);
  REQUIRE(CountRows(other, "SELECT count(*) FROM meta") == 150);
  // Below the threshold since: nothing; a TRUNCATE (a closing writer's) empties the file.
  writer->Checkpoint(longer + 1);
  REQUIRE(FileSize(wal) == longer);
  writer->Checkpoint(1);
  REQUIRE(FileSize(wal) == 0);
  writer->Checkpoint(2);  // nothing committed since
  REQUIRE(FileSize(wal) == 0);
  REQUIRE(CountRows(other, "SELECT count(*) FROM meta") == 150);
  REQUIRE(writer->UserVersion() == other.UserVersion());
}

TEST_CASE("Shard: a RESTART checkpoint leaves every commit in the file, not the WAL") {
  TempDir dir;
  const std::string path = dir.Join("shard.db");
  int64_t version = 0;
  {
    auto writer = FreshShard(dir);
    version = writer->UserVersion();
    for (int round = 0; round < 3; ++round) {
      WriteTxn txn(*writer);
      for (int i = 0; i < 40; ++i)
        writer->Query("INSERT INTO meta(key, value) VALUES (?, ?)")
            .Bind(1, "r" + std::to_string(round) + "k" + std::to_string(i))
            .Bind(2, std::string(500, 'v'))
            .Run();
      txn.Commit();
      writer->Checkpoint(2);
    }
  }
  // The WAL is removed: what the checkpoints copied, and the frames after them, must be
  // all of it — the last checkpoint's reset commit wrote one frame after it.
  std::filesystem::remove(path + "-wal");
  std::filesystem::remove(path + "-shm");
  Shard reopened(0, path, false, nullptr);
  REQUIRE(CountRows(reopened, "SELECT count(*) FROM meta WHERE key LIKE 'r%'") == 120);
  REQUIRE(reopened.UserVersion() == version);
}

TEST_CASE("Shard: explain logs each statement with the shard's name") {
  TempDir dir;
  { FreshShard(dir); }
  ExplainLog log;
  Shard shard(3, dir.Join("shard.db"), false, &log);
  log.Clear();
  shard.Query("SELECT count(*) FROM msg_info").Step();
  REQUIRE_FALSE(log.Lines().empty());
  REQUIRE(log.Lines().back() == "shard-03: SELECT count(*) FROM msg_info");
}

}  // namespace
}  // namespace weibo
