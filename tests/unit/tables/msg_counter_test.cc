// tables/msg_counter.cc: one compact row of counters per message.
#include "tables/msg_counter.h"

#include <sqlite3.h>

#include <string>

#include "tables/msg_info.h"
#include "tables/msg_page.h"
#include "tables/outbox.h"
#include "test_support.h"

namespace weibo {
namespace {

using test::FreshShard;
using test::TempDir;

TEST_CASE("msg_counter: a new row is all zero, init twice keeps the counts") {
  TempDir dir;
  auto shard = FreshShard(dir);
  REQUIRE_FALSE(GetCounter(*shard, 1).has_value());
  InitCounter(*shard, 1);
  auto c = *GetCounter(*shard, 1);
  REQUIRE(c.msg_id == 1);
  REQUIRE((c.commented == 0 && c.comments == 0 && c.transferred == 0 && c.transfers == 0 &&
           c.likes == 0 && c.views == 0));
  CounterRow d;
  d.msg_id = 1;
  d.views = 3;
  AddCounter(*shard, d);
  InitCounter(*shard, 1);
  REQUIRE(GetCounter(*shard, 1)->views == 3);
}

TEST_CASE("msg_counter: deltas add to each column, a missing row reports false") {
  TempDir dir;
  auto shard = FreshShard(dir);
  InitCounter(*shard, 1);
  CounterRow d{1, 1, 2, 3, 4, 5, 6};
  REQUIRE(AddCounter(*shard, d));
  REQUIRE(AddCounter(*shard, CounterRow{1, 0, -1, 0, -2, 0, 0}));
  auto c = *GetCounter(*shard, 1);
  REQUIRE(c.commented == 1);
  REQUIRE(c.comments == 1);
  REQUIRE(c.transferred == 3);
  REQUIRE(c.transfers == 2);
  REQUIRE(c.likes == 5);
  REQUIRE(c.views == 6);
  REQUIRE_FALSE(AddCounter(*shard, CounterRow{2, 1, 1, 0, 0, 0, 0}));
  REQUIRE_FALSE(GetCounter(*shard, 2).has_value());
}

TEST_CASE("msg_counter: set, delete, and list all rows by id") {
  TempDir dir;
  auto shard = FreshShard(dir);
  InitCounter(*shard, 9);
  InitCounter(*shard, 3);
  SetCounter(*shard, CounterRow{9, 10, 8, 4, 3, 2, 1});
  auto c = *GetCounter(*shard, 9);
  REQUIRE((c.commented == 10 && c.comments == 8 && c.transferred == 4 && c.transfers == 3 &&
           c.likes == 2 && c.views == 1));
  auto all = AllCounters(*shard);
  REQUIRE(all.size() == 2);
  REQUIRE(all[0].msg_id == 3);
  REQUIRE(all[1].msg_id == 9);
  DeleteCounter(*shard, 9);
  REQUIRE_FALSE(GetCounter(*shard, 9).has_value());
  REQUIRE(AllCounters(*shard).size() == 1);
}

// The plan SQLite chose for the statement prepared on shard whose text contains `marker`
// (the statements a table function ran are in the connection's cache).
std::string PlanOf(Shard& shard, const std::string& marker) {
  std::string sql;
  for (sqlite3_stmt* s = sqlite3_next_stmt(shard.db(), nullptr); s != nullptr;
       s = sqlite3_next_stmt(shard.db(), s))
    if (std::string(sqlite3_sql(s)).find(marker) != std::string::npos) sql = sqlite3_sql(s);
  REQUIRE_FALSE(sql.empty());
  std::string plan;
  sqlite3_stmt* explain = nullptr;
  REQUIRE(sqlite3_prepare_v2(shard.db(), ("EXPLAIN QUERY PLAN " + sql).c_str(), -1, &explain,
                             nullptr) == SQLITE_OK);
  while (sqlite3_step(explain) == SQLITE_ROW)
    plan += std::string(reinterpret_cast<const char*>(sqlite3_column_text(explain, 3))) + "\n";
  sqlite3_finalize(explain);
  return plan;
}

TEST_CASE("msg_counter: pending deltas are read through their partial index, not a scan") {
  TempDir dir;
  auto shard = FreshShard(dir);
  MsgRow m;
  m.id = 7;
  m.user_id = 1;
  m.content = "counted";
  m.time = 1;
  InsertMsg(*shard, m);
  InitCounter(*shard, 7);
  // A delta of message 7 for this shard, one of another message, one for another shard,
  // and jobs of other kinds (which the index leaves out).
  InsertJob(*shard, 0, kCounterDeltaKind, R"({"msg_id":7,"likes":2,"views":5})", 1);
  InsertJob(*shard, 0, kCounterDeltaKind, R"({"msg_id":8,"likes":100,"views":100})", 1);
  InsertJob(*shard, 1, kCounterDeltaKind, R"({"msg_id":7,"likes":100,"views":100})", 1);
  InsertJob(*shard, 0, "deliver", R"({"msg_id":7,"likes":100,"views":100})", 1);
  auto live = GetLiveCounter(*shard, 7);
  REQUIRE(live);
  REQUIRE((live->likes == 2 && live->views == 5));
  auto rows = GetPageRows(*shard, {7});
  REQUIRE(rows.size() == 1);
  REQUIRE(rows[0].counter);
  REQUIRE((rows[0].counter->likes == 2 && rows[0].counter->views == 5));
  // Both statements name the kind as a literal, so SQLite can use the partial index.
  for (const char* marker : {"AS views FROM outbox", "NULL FROM outbox"}) {
    std::string plan = PlanOf(*shard, marker);
    INFO(plan);
    REQUIRE(plan.find("outbox USING INDEX outbox_counter_delta") != std::string::npos);
    REQUIRE(plan.find("SCAN outbox") == std::string::npos);
  }
}

}  // namespace
}  // namespace weibo
