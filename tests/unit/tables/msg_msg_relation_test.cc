// tables/msg_msg_relation.cc: comments and reposts beside the message they refer to, with
// their fixed page_index.
#include "tables/msg_msg_relation.h"

#include "test_support.h"

namespace weibo {
namespace {

using test::FreshShard;
using test::TempDir;

RelationMsgRow Rel(int64_t reference_msg_id, int64_t target, int type, int64_t page) {
  RelationMsgRow r;
  r.reference_id = 3;
  r.reference_msg_id = reference_msg_id;
  r.referenced_id = 4;
  r.referenced_msg_id = target;
  r.type = type;
  r.time = reference_msg_id;
  r.page_index = page;
  return r;
}

std::vector<int64_t> Ids(const std::vector<RelationMsgRow>& rows) {
  std::vector<int64_t> ids;
  for (const auto& r : rows) ids.push_back(r.reference_msg_id);
  return ids;
}

TEST_CASE("PageIndex: the n-th comment ever made is on page (n - 1) / page_size") {
  REQUIRE(PageIndex(1, 2) == 0);
  REQUIRE(PageIndex(2, 2) == 0);
  REQUIRE(PageIndex(3, 2) == 1);
  REQUIRE(PageIndex(4, 2) == 1);
  REQUIRE(PageIndex(5, 2) == 2);
  REQUIRE(PageIndex(20, 20) == 0);
  REQUIRE(PageIndex(21, 20) == 1);
  REQUIRE(PageIndex(401, 20) == 20);  // never cycles (the seed's % page_count would)
}

TEST_CASE("msg_msg_relation: insert or ignore on the key, get, delete") {
  TempDir dir;
  auto shard = FreshShard(dir);
  REQUIRE(InsertMsgRelation(*shard, Rel(100, 1, 1, 0)));
  REQUIRE_FALSE(InsertMsgRelation(*shard, Rel(100, 1, 1, 5)));
  auto r = *GetMsgRelation(*shard, 3, 100);
  REQUIRE(r.referenced_id == 4);
  REQUIRE(r.referenced_msg_id == 1);
  REQUIRE(r.type == 1);
  REQUIRE(r.page_index == 0);
  REQUIRE(r.time == 100);
  REQUIRE_FALSE(GetMsgRelation(*shard, 4, 100).has_value());
  REQUIRE(DeleteMsgRelation(*shard, 3, 100));
  REQUIRE_FALSE(DeleteMsgRelation(*shard, 3, 100));
  REQUIRE_FALSE(GetMsgRelation(*shard, 3, 100).has_value());
}

TEST_CASE("msg_msg_relation: a page holds its rows of one type, oldest first") {
  TempDir dir;
  auto shard = FreshShard(dir);
  InsertMsgRelation(*shard, Rel(103, 1, 1, 1));
  InsertMsgRelation(*shard, Rel(101, 1, 1, 0));
  InsertMsgRelation(*shard, Rel(102, 1, 1, 0));
  InsertMsgRelation(*shard, Rel(104, 1, 2, 0));  // a repost
  InsertMsgRelation(*shard, Rel(105, 2, 1, 0));  // another message
  REQUIRE(Ids(MsgRelationPage(*shard, 1, 1, 0)) == std::vector<int64_t>{101, 102});
  REQUIRE(Ids(MsgRelationPage(*shard, 1, 1, 1)) == std::vector<int64_t>{103});
  REQUIRE(MsgRelationPage(*shard, 1, 1, 2).empty());
  REQUIRE(Ids(MsgRelationPage(*shard, 1, 2, 0)) == std::vector<int64_t>{104});
  REQUIRE(Ids(AllMsgRelations(*shard)) == std::vector<int64_t>{101, 102, 103, 104, 105});
}

}  // namespace
}  // namespace weibo
