// tables/user_name.cc: the unique name -> id map and the cluster-wide user id counter.
#include "tables/user_name.h"

#include "test_support.h"

namespace weibo {
namespace {

using test::FailureCode;
using test::FreshShard;
using test::TempDir;

TEST_CASE("user_name: lookup, insert, and names are unique and case-sensitive") {
  TempDir dir;
  auto shard = FreshShard(dir);
  REQUIRE_FALSE(LookupName(*shard, "alice").has_value());
  InsertName(*shard, "alice", 1);
  InsertName(*shard, "Alice", 2);
  InsertName(*shard, "小明", 3);
  REQUIRE(LookupName(*shard, "alice") == std::optional<int64_t>(1));
  REQUIRE(LookupName(*shard, "Alice") == std::optional<int64_t>(2));
  REQUIRE(LookupName(*shard, "小明") == std::optional<int64_t>(3));
  REQUIRE(FailureCode([&] { InsertName(*shard, "alice", 4); }) == Code::kStorageError);
  REQUIRE(LookupName(*shard, "alice") == std::optional<int64_t>(1));
}

TEST_CASE("user_name: user ids are sequential from 1 and survive a reopen") {
  TempDir dir;
  {
    auto shard = FreshShard(dir);
    WriteTxn txn(*shard);
    shard->Exec("INSERT INTO meta(key, value) VALUES ('next_user_id', '1')");
    REQUIRE(AllocateUserId(*shard) == 1);
    REQUIRE(AllocateUserId(*shard) == 2);
    REQUIRE(AllocateUserId(*shard) == 3);
    txn.Commit();
  }
  Shard shard(0, dir.Join("shard.db"), false, nullptr);
  WriteTxn txn(shard);
  REQUIRE(AllocateUserId(shard) == 4);
  txn.Commit();
}

TEST_CASE("user_name: a rolled back allocation hands the same id out again") {
  TempDir dir;
  auto shard = FreshShard(dir);
  {
    WriteTxn txn(*shard);
    REQUIRE(AllocateUserId(*shard) == 1);  // no meta row yet: starts at 1
  }
  WriteTxn txn(*shard);
  REQUIRE(AllocateUserId(*shard) == 1);
  txn.Commit();
}

}  // namespace
}  // namespace weibo
