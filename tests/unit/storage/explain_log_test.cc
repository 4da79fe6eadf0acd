// storage/explain_log.cc: the statements a shard runs, with their bound values and rows,
// from SQLite's own trace hooks; and their grouping as weibo-sim's --explain prints it.
#include "storage/explain_log.h"

#include "test_support.h"

namespace weibo {
namespace {

using test::TempDir;

// A shard file of one table t (schema), logging into log from after its creation.
struct LoggedShard {
  LoggedShard(int index, const char* schema) {
    { test::FreshShard(dir); }
    shard = std::make_unique<Shard>(index, dir.Join("shard.db"), false, &log);
    shard->Exec(schema);
    log.Clear();
  }
  TempDir dir;
  ExplainLog log;
  std::unique_ptr<Shard> shard;
};

TEST_CASE("BoundValues: the literals of expanded SQL, by parameter number") {
  REQUIRE(BoundValues("SELECT a FROM t WHERE b = ? AND c = ?",
                      "SELECT a FROM t WHERE b = 42 AND c = 'it''s'") ==
          std::vector<std::string>{"42", "'it''s'"});
  // ?N repeated: one value, where its number says.
  REQUIRE(BoundValues("SELECT ?2, ?1, ?2", "SELECT 'b', -7, 'b'") ==
          std::vector<std::string>{"-7", "'b'"});
  REQUIRE(
      BoundValues("INSERT INTO t VALUES (?, ?, ?)", "INSERT INTO t VALUES (NULL, x'0a0b', 1.5)") ==
      std::vector<std::string>{"NULL", "x'0a0b'", "1.5"});
  // A ? inside the statement's own string literal is no parameter.
  REQUIRE(BoundValues("SELECT '?' || ?", "SELECT '?' || 'x'") == std::vector<std::string>{"'x'"});
  // A value holding what looks like SQL is taken whole.
  REQUIRE(BoundValues("SELECT ?, ?", "SELECT ', ?', 3") == std::vector<std::string>{"', ?'", "3"});
  REQUIRE(BoundValues("SELECT 1", "SELECT 1").empty());
  // Texts that do not line up give nothing rather than wrong values.
  REQUIRE(BoundValues("SELECT ?", "SELECT").empty());
  REQUIRE(BoundValues("SELECT ? FROM a", "SELECT 1 FROM b").empty());
}

TEST_CASE("ExplainLog: each run with its shard, values, rows read and rows written") {
  LoggedShard logged(3, "CREATE TABLE t(k INTEGER PRIMARY KEY, v TEXT)");
  Shard& shard = *logged.shard;
  ExplainLog& log = logged.log;
  {
    WriteTxn txn(shard);
    for (int k = 1; k <= 3; ++k)
      shard.Query("INSERT INTO t(k, v) VALUES (?, ?)").BindAll(int64_t{k}, std::string("v")).Run();
    shard.Query("UPDATE t SET v = ? WHERE k >= ?").BindAll(std::string("w"), int64_t{2}).Run();
    txn.Commit();
  }
  log.set_phase("drain");
  Stmt& read = shard.Query("SELECT v FROM t WHERE k <= ?");
  read.Bind(1, int64_t{2});
  int rows = 0;
  while (read.Step()) ++rows;
  REQUIRE(rows == 2);

  std::vector<const StatementRun*> runs;
  for (const StatementRun& run : log.runs()) runs.push_back(&run);
  // BEGIN IMMEDIATE, 3 INSERTs, UPDATE, COMMIT, SELECT.
  REQUIRE(runs.size() == 7);
  REQUIRE(runs[0]->sql == "BEGIN IMMEDIATE");
  REQUIRE(runs[1]->shard == "shard-03");
  REQUIRE(runs[1]->values == std::vector<std::string>{"1", "'v'"});
  REQUIRE(runs[1]->rows_written == 1);
  REQUIRE(runs[4]->values == std::vector<std::string>{"'w'", "2"});
  REQUIRE(runs[4]->rows_written == 2);
  REQUIRE(runs[4]->rows_read == 0);
  REQUIRE(runs[6]->rows_read == 2);
  REQUIRE(runs[6]->rows_written == 0);
  REQUIRE(runs[5]->phase.empty());
  REQUIRE(runs[6]->phase == "drain");
  REQUIRE(log.Lines()[1] == "shard-03: INSERT INTO t(k, v) VALUES (?, ?)");

  const std::vector<StatementGroup> groups = GroupStatements(runs);
  REQUIRE(groups.size() == 5);
  REQUIRE(groups[1].sql == "INSERT INTO t(k, v) VALUES (?, ?)");
  REQUIRE(groups[1].runs.size() == 3);
  REQUIRE(groups[1].shards == std::vector<std::string>{"shard-03"});
  REQUIRE(groups[1].rows_written == 3);
}

TEST_CASE("ExplainLog: a read stepped while writes run counts no writes") {
  LoggedShard logged(0, "CREATE TABLE t(k INTEGER PRIMARY KEY, n INTEGER)");
  Shard& shard = *logged.shard;
  ExplainLog& log = logged.log;
  shard.Exec("INSERT INTO t VALUES (1, 0), (2, 0)");
  log.Clear();
  WriteTxn txn(shard);
  Stmt& scan = shard.Query("SELECT k FROM t");
  while (scan.Step()) shard.Query("UPDATE t SET n = n + 1 WHERE k = ?").Bind(1, scan.Int(0)).Run();
  scan.Reset();
  txn.Commit();
  const StatementRun& select = log.runs()[1];
  REQUIRE(select.sql == "SELECT k FROM t");
  REQUIRE(select.rows_read == 2);
  REQUIRE(select.rows_written == 0);
  REQUIRE(log.runs()[2].rows_written == 1);
}

}  // namespace
}  // namespace weibo
