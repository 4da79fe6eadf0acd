// tables/msg_counter.cc: one compact row of counters per message.
#include "tables/msg_counter.h"

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

}  // namespace
}  // namespace weibo
