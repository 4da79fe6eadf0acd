// tables/user_info.cc: one row per user on shard(user_id), with its counts.
#include "tables/user_info.h"

#include "tables/id_list.h"
#include "test_support.h"

namespace weibo {
namespace {

using test::FreshShard;
using test::TempDir;

UserRow Row(int64_t id, std::string name, int64_t time) {
  UserRow r;
  r.id = id;
  r.name = std::move(name);
  r.created = r.last_active = time;
  return r;
}

TEST_CASE("user_info: insert, get, and a second insert of the same id is ignored") {
  TempDir dir;
  auto shard = FreshShard(dir);
  REQUIRE_FALSE(GetUser(*shard, 1).has_value());
  InsertUser(*shard, Row(1, "alice", 100));
  InsertUser(*shard, Row(1, "mallory", 999));  // a replayed user_create changes nothing
  auto u = GetUser(*shard, 1);
  REQUIRE(u.has_value());
  REQUIRE(u->name == "alice");
  REQUIRE(u->created == 100);
  REQUIRE(u->last_active == 100);
  REQUIRE(u->msg_count == 0);
  REQUIRE(u->fans_count == 0);
  REQUIRE(u->follow_count == 0);
}

TEST_CASE("user_info: counts add up, can be set, and last_active only moves forward") {
  TempDir dir;
  auto shard = FreshShard(dir);
  InsertUser(*shard, Row(5, "bob", 100));
  AddUserCounts(*shard, 5, 1, 2, 3);
  AddUserCounts(*shard, 5, 1, -1, 0);
  auto u = *GetUser(*shard, 5);
  REQUIRE(u.msg_count == 2);
  REQUIRE(u.fans_count == 1);
  REQUIRE(u.follow_count == 3);
  SetUserCounts(*shard, 5, 7, 8, 9);
  u = *GetUser(*shard, 5);
  REQUIRE((u.msg_count == 7 && u.fans_count == 8 && u.follow_count == 9));
  TouchUser(*shard, 5, 500);
  TouchUser(*shard, 5, 300);
  REQUIRE(GetUser(*shard, 5)->last_active == 500);
  REQUIRE(GetUser(*shard, 5)->created == 100);
  AddUserCounts(*shard, 6, 1, 1, 1);  // no such user: nothing happens
  REQUIRE_FALSE(GetUser(*shard, 6).has_value());
}

TEST_CASE("user_info: ListUsers is ordered by id") {
  TempDir dir;
  auto shard = FreshShard(dir);
  for (int64_t id : {9, 1, 5}) InsertUser(*shard, Row(id, "u" + std::to_string(id), 1));
  auto all = ListUsers(*shard);
  REQUIRE(all.size() == 3);
  REQUIRE(all[0].id == 1);
  REQUIRE(all[1].id == 5);
  REQUIRE(all[2].id == 9);
  REQUIRE(all[2].name == "u9");
}

TEST_CASE("user_info: InactiveSince reads a list of ids in its order, missing users as none") {
  TempDir dir;
  auto shard = FreshShard(dir);
  InsertUser(*shard, Row(7, "carol", 700));
  InsertUser(*shard, Row(3, "dave", 300));
  InsertUser(*shard, Row(5, "erin", 500));
  REQUIRE(IdList({}) == "[]");
  REQUIRE(IdList({7, 4, 3, 5}) == "[7,4,3,5]");
  // Active since 500 or later (carol, erin): not returned.
  auto rows = InactiveSince(*shard, IdList({7, 4, 3, 5}), 500);
  REQUIRE(rows.size() == 2);
  REQUIRE(rows[0] == std::make_pair(int64_t{4}, std::optional<int64_t>()));
  REQUIRE(rows[1] == std::make_pair(int64_t{3}, std::optional<int64_t>(300)));
  REQUIRE(InactiveSince(*shard, IdList({7, 3}), 0).empty());
  REQUIRE(InactiveSince(*shard, IdList({7, 3}), 701).size() == 2);
}

TEST_CASE("user_info: InactiveSinceSorted gives InactiveSince's answer by one range scan") {
  TempDir dir;
  auto shard = FreshShard(dir);
  InsertUser(*shard, Row(3, "dave", 300));
  InsertUser(*shard, Row(5, "erin", 500));
  InsertUser(*shard, Row(6, "frank", 100));  // in the range, not asked for
  InsertUser(*shard, Row(7, "carol", 700));
  InsertUser(*shard, Row(12, "gus", 100));  // past the range
  for (int64_t since : {0, 300, 500, 501, 701}) {
    CAPTURE(since);
    for (const std::vector<int64_t>& ids :
         {std::vector<int64_t>{3, 4, 5, 7}, std::vector<int64_t>{1, 2, 3},
          std::vector<int64_t>{7, 8, 9}, std::vector<int64_t>{4}, std::vector<int64_t>{}})
      REQUIRE(InactiveSinceSorted(*shard, ids, since) == InactiveSince(*shard, IdList(ids), since));
  }
}

}  // namespace
}  // namespace weibo
