// tables/msg_info.cc: one row per live message.
#include "tables/msg_info.h"

#include <algorithm>

#include "test_support.h"

namespace weibo {
namespace {

using test::FreshShard;
using test::TempDir;

MsgRow Msg(int64_t id, int64_t user, int type, int64_t ref = 0) {
  MsgRow r;
  r.id = id;
  r.user_id = user;
  r.type = type;
  r.content = "m" + std::to_string(id);
  r.time = id * 10;
  if (ref != 0) {
    r.ref_msg_id = ref;
    r.ref_user_id = 99;
    r.root_msg_id = ref - 1;
    r.root_user_id = 98;
  }
  return r;
}

std::vector<int64_t> Ids(const std::vector<MsgRow>& rows) {
  std::vector<int64_t> ids;
  for (const auto& r : rows) ids.push_back(r.id);
  return ids;
}

TEST_CASE("msg_info: insert and get keep every column, no ref reads back as 0") {
  TempDir dir;
  auto shard = FreshShard(dir);
  InsertMsg(*shard, Msg(1, 7, kOriginal));
  InsertMsg(*shard, Msg(2, 7, kRepost, 51));
  auto a = *GetMsg(*shard, 1);
  REQUIRE(a.user_id == 7);
  REQUIRE(a.content == "m1");
  REQUIRE(a.type == kOriginal);
  REQUIRE(a.ref_msg_id == 0);
  REQUIRE(a.root_msg_id == 0);
  REQUIRE(a.time == 10);
  auto b = *GetMsg(*shard, 2);
  REQUIRE(b.type == kRepost);
  REQUIRE(b.ref_msg_id == 51);
  REQUIRE(b.ref_user_id == 99);
  REQUIRE(b.root_msg_id == 50);
  REQUIRE(b.root_user_id == 98);
  REQUIRE_FALSE(GetMsg(*shard, 3).has_value());
  REQUIRE(test::FailureCode([&] { InsertMsg(*shard, Msg(1, 8, kOriginal)); }) ==
          Code::kStorageError);
}

TEST_CASE("msg_info: ExistingMsgs finds the ids that have a row, in one statement") {
  TempDir dir;
  auto shard = FreshShard(dir);
  InsertMsg(*shard, Msg(1, 7, kOriginal));
  InsertMsg(*shard, Msg(2, 7, kOriginal));
  InsertMsg(*shard, Msg(3, 8, kOriginal));
  REQUIRE(DeleteMsg(*shard, 2));
  std::vector<int64_t> found = ExistingMsgs(*shard, "[3,2,1,99,1]");
  std::sort(found.begin(), found.end());
  CHECK(found == std::vector<int64_t>{1, 1, 3});  // 2 deleted, 99 never there
  CHECK(ExistingMsgs(*shard, "[]").empty());
}

TEST_CASE("msg_info: delete and update content") {
  TempDir dir;
  auto shard = FreshShard(dir);
  InsertMsg(*shard, Msg(1, 7, kOriginal));
  UpdateContent(*shard, 1, "新内容");
  REQUIRE(GetMsg(*shard, 1)->content == "新内容");
  REQUIRE(DeleteMsg(*shard, 1));
  REQUIRE_FALSE(DeleteMsg(*shard, 1));
  REQUIRE_FALSE(GetMsg(*shard, 1).has_value());
}

TEST_CASE("msg_info: AuthorPosts has originals and reposts, AuthorMessages every type") {
  TempDir dir;
  auto shard = FreshShard(dir);
  InsertMsg(*shard, Msg(10, 7, kOriginal));
  InsertMsg(*shard, Msg(20, 7, kComment, 5));
  InsertMsg(*shard, Msg(30, 7, kRepost, 5));
  InsertMsg(*shard, Msg(40, 8, kOriginal));
  InsertMsg(*shard, Msg(50, 7, kOriginal));
  REQUIRE(Ids(AuthorPosts(*shard, 7, 0, 0, 10)) == std::vector<int64_t>{50, 30, 10});
  REQUIRE(Ids(AuthorMessages(*shard, 7, 0, 0, 10)) == std::vector<int64_t>{50, 30, 20, 10});
  REQUIRE(Ids(AuthorPosts(*shard, 7, 50, 10, 10)) == std::vector<int64_t>{30});
  REQUIRE(Ids(AuthorMessages(*shard, 7, 0, 0, 2)) == std::vector<int64_t>{50, 30});
  REQUIRE(Ids(AuthorMessages(*shard, 7, 30, 0, 10)) == std::vector<int64_t>{20, 10});
  REQUIRE(Ids(AllMsgs(*shard)) == std::vector<int64_t>{10, 20, 30, 40, 50});
}

}  // namespace
}  // namespace weibo
