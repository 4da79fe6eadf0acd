// tables/user_relation.cc: merged follow storage, (A, B, 1) and (B, A, 0).
#include "tables/user_relation.h"

#include <map>
#include <string>

#include "tables/outbox.h"
#include "test_support.h"

namespace weibo {
namespace {

using test::FreshShard;
using test::TempDir;

TEST_CASE("user_relation: insert is idempotent and reports whether it inserted") {
  TempDir dir;
  auto shard = FreshShard(dir);
  REQUIRE_FALSE(HasRelation(*shard, 1, 2, kFollowing));
  REQUIRE(InsertRelation(*shard, 1, 2, kFollowing, 100));
  REQUIRE_FALSE(InsertRelation(*shard, 1, 2, kFollowing, 200));
  REQUIRE(HasRelation(*shard, 1, 2, kFollowing));
  REQUIRE_FALSE(HasRelation(*shard, 1, 2, kFan));  // the type is part of the key
  REQUIRE_FALSE(HasRelation(*shard, 2, 1, kFollowing));
  REQUIRE(InsertRelation(*shard, 1, 2, kFan, 300));
  auto all = AllRelations(*shard);
  REQUIRE(all.size() == 2);
}

TEST_CASE("user_relation: delete reports whether a row went, Related lists ascending") {
  TempDir dir;
  auto shard = FreshShard(dir);
  for (int64_t other : {9, 3, 7}) InsertRelation(*shard, 1, other, kFollowing, 1);
  for (int64_t other : {4, 2}) InsertRelation(*shard, 1, other, kFan, 1);
  InsertRelation(*shard, 2, 8, kFollowing, 1);
  REQUIRE(Related(*shard, 1, kFollowing) == std::vector<int64_t>{3, 7, 9});
  REQUIRE(Related(*shard, 1, kFan) == std::vector<int64_t>{2, 4});
  REQUIRE(Related(*shard, 3, kFan).empty());
  REQUIRE(DeleteRelation(*shard, 1, 7, kFollowing));
  REQUIRE_FALSE(DeleteRelation(*shard, 1, 7, kFollowing));
  REQUIRE_FALSE(DeleteRelation(*shard, 1, 4, kFollowing));
  REQUIRE(Related(*shard, 1, kFollowing) == std::vector<int64_t>{3, 9});
  REQUIRE(Related(*shard, 1, kFan) == std::vector<int64_t>{2, 4});
}

TEST_CASE("user_relation: AllRelations returns every row with its time") {
  TempDir dir;
  auto shard = FreshShard(dir);
  InsertRelation(*shard, 4, 5, kFollowing, 1234);
  auto all = AllRelations(*shard);
  REQUIRE(all.size() == 1);
  REQUIRE(all[0].user == 4);
  REQUIRE(all[0].other == 5);
  REQUIRE(all[0].type == kFollowing);
  REQUIRE(all[0].time == 1234);
}

TEST_CASE("user_relation: FollowersBetween lists a followee's followers in a range, ascending") {
  TempDir dir;
  auto shard = FreshShard(dir);
  for (int64_t user : {9, 3, 7, 5, 11}) InsertRelation(*shard, user, 100, kFollowing, 1);
  InsertRelation(*shard, 4, 100, kFan, 1);        // 100 is 4's fan: not a follower of 100
  InsertRelation(*shard, 6, 200, kFollowing, 1);  // follows someone else
  REQUIRE(FollowersBetween(*shard, 100, 3, 9) == std::vector<int64_t>{3, 5, 7, 9});
  REQUIRE(FollowersBetween(*shard, 100, 4, 6) == std::vector<int64_t>{5});
  REQUIRE(FollowersBetween(*shard, 200, 0, 100) == std::vector<int64_t>{6});
  REQUIRE(DeleteRelation(*shard, 7, 100, kFollowing));
  REQUIRE(FollowersBetween(*shard, 100, 0, 100) == std::vector<int64_t>{3, 5, 9, 11});
  REQUIRE(FollowersBetween(*shard, 300, 0, 100).empty());
}

// A statement whose WHERE compares a partial index's column with a bound parameter is
// prepared again at every bind (SQLite checks whether the index applies to the value):
// user_relation_followers (type = 1) made every Related, HasRelation and DeleteRelation do
// so until the type became a literal. Each is run with both types and several users; no
// statement the shard cached may have been re-prepared.
TEST_CASE("user_relation: no statement is re-prepared at a new bind (partial indexes)") {
  TempDir dir;
  auto shard = FreshShard(dir);
  auto round = [&](int64_t first) {
    for (int64_t user = first; user < first + 4; ++user) {
      for (int type : {kFan, kFollowing}) {
        InsertRelation(*shard, user, user + 10, type, 1);
        REQUIRE(HasRelation(*shard, user, user + 10, type));
        REQUIRE(Related(*shard, user, type) == std::vector<int64_t>{user + 10});
        REQUIRE(FollowersBetween(*shard, user + 10, 0, 100).size() ==
                (type == kFollowing ? 1u : 0u));
        REQUIRE(DeleteRelation(*shard, user, user + 10, type));
      }
      REQUIRE(CountJobs(*shard, 0) == 0);
    }
  };
  // Each statement's re-prepare count (opening the shard, which may migrate its schema,
  // re-prepares the statements it used before: that is not a bind).
  auto counts = [&] {
    std::map<std::string, int> out;
    test::AddReprepared(shard->db(), &out);
    return out;
  };
  round(1);  // every statement prepared and cached
  const auto before = counts();
  round(5);
  const auto after = counts();
  REQUIRE(after.size() == before.size());  // the same cached statements, none added
  REQUIRE(after.size() >= 8);
  for (const auto& [sql, n] : after) {
    INFO(sql);
    CHECK(n == before.at(sql));
  }
}

}  // namespace
}  // namespace weibo
