// tables/msg_index.cc: the home-timeline inbox.
#include "tables/msg_index.h"

#include <algorithm>

#include "tables/user_relation.h"
#include "test_support.h"

namespace weibo {
namespace {

using test::FreshShard;
using test::TempDir;

// ReadInbox's messages, and their authors in *authors when given.
std::vector<int64_t> Ids(Shard& shard, int64_t user, int64_t max_id, int64_t since_id,
                         int64_t limit, std::vector<int64_t>* authors = nullptr) {
  std::vector<int64_t> ids;
  ReadInbox(shard, user, max_id, since_id, limit, [&](int64_t msg_id, int64_t author_id) {
    ids.push_back(msg_id);
    if (authors != nullptr) authors->push_back(author_id);
  });
  return ids;
}

TEST_CASE("msg_index: newest first, exclusive max_id / since_id window, limit") {
  TempDir dir;
  auto shard = FreshShard(dir);
  for (int64_t id = 10; id <= 100; id += 10) InsertInbox(*shard, {1, id, 2, id * 7});
  InsertInbox(*shard, {3, 55, 2, 0});  // another reader
  REQUIRE(Ids(*shard, 1, 0, 0, 3) == std::vector<int64_t>{100, 90, 80});
  REQUIRE(Ids(*shard, 1, 80, 0, 3) == std::vector<int64_t>{70, 60, 50});
  REQUIRE(Ids(*shard, 1, 0, 80, 10) == std::vector<int64_t>{100, 90});
  REQUIRE(Ids(*shard, 1, 60, 30, 10) == std::vector<int64_t>{50, 40});
  REQUIRE(Ids(*shard, 1, 10, 0, 10).empty());
  REQUIRE(Ids(*shard, 1, 0, 100, 10).empty());
  std::vector<int64_t> authors;
  REQUIRE(Ids(*shard, 1, 0, 0, 1, &authors) == std::vector<int64_t>{100});
  REQUIRE(authors == std::vector<int64_t>{2});
  const auto all = AllInbox(*shard);
  REQUIRE(std::any_of(all.begin(), all.end(), [](const InboxRow& r) {
    return r.user_id == 1 && r.msg_id == 100 && r.author_id == 2 && r.time == 700;
  }));
  REQUIRE(AllInbox(*shard).size() == 11);
}

TEST_CASE("msg_index: a second insert of the same (reader, message) is a no-op") {
  TempDir dir;
  auto shard = FreshShard(dir);
  InsertInbox(*shard, {1, 10, 2, 5});
  InsertInbox(*shard, {1, 10, 2, 5});
  REQUIRE(AllInbox(*shard).size() == 1);
}

TEST_CASE("msg_index: DeliverInbox inserts only while the reader follows the author") {
  TempDir dir;
  auto shard = FreshShard(dir);
  DeliverInbox(*shard, {1, 10, 2, 5});
  REQUIRE(AllInbox(*shard).empty());
  InsertRelation(*shard, 1, 2, kFan, 0);  // a fan row is not a follow
  DeliverInbox(*shard, {1, 10, 2, 5});
  REQUIRE(AllInbox(*shard).empty());
  InsertRelation(*shard, 1, 2, kFollowing, 0);
  DeliverInbox(*shard, {1, 10, 2, 5});
  DeliverInbox(*shard, {1, 10, 2, 5});
  REQUIRE(AllInbox(*shard).size() == 1);
}

TEST_CASE("msg_index: delete one row, or every row of one author in one reader's inbox") {
  TempDir dir;
  auto shard = FreshShard(dir);
  InsertInbox(*shard, {1, 10, 2, 0});
  InsertInbox(*shard, {1, 20, 2, 0});
  InsertInbox(*shard, {1, 30, 3, 0});
  InsertInbox(*shard, {4, 40, 2, 0});
  DeleteInbox(*shard, 1, 30);
  REQUIRE(Ids(*shard, 1, 0, 0, 10) == std::vector<int64_t>{20, 10});
  DeleteInboxByAuthor(*shard, 1, 2);
  REQUIRE(Ids(*shard, 1, 0, 0, 10).empty());
  REQUIRE(Ids(*shard, 4, 0, 0, 10) == std::vector<int64_t>{40});
}

}  // namespace
}  // namespace weibo
