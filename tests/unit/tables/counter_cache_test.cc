// tables/counter_cache.cc: the hot counters' LRU — its bound, its eviction order, and the
// invalidations that keep it exact (own writes of msg_counter, other connections' commits).
#include "tables/counter_cache.h"

#include "storage/shard.h"
#include "test_support.h"

namespace weibo {
namespace {

using test::FreshShard;
using test::RawDb;
using test::TempDir;

CounterRow Row(int64_t msg_id, int64_t likes) {
  CounterRow r;
  r.msg_id = msg_id;
  r.likes = likes;
  return r;
}

TEST_CASE("counter cache: holds at most its capacity, evicting the least recently used") {
  TempDir dir;
  auto shard = FreshShard(dir);
  CounterCache cache(3);
  cache.Validate(*shard);
  for (int64_t id = 1; id <= 3; ++id) cache.Put(*shard, Row(id, id * 10));
  REQUIRE(cache.size() == 3);
  REQUIRE(cache.Find(0, 1)->likes == 10);  // 1 is now the most recently used: 2 goes next
  cache.Put(*shard, Row(4, 40));
  REQUIRE(cache.size() == 3);
  REQUIRE_FALSE(cache.Find(0, 2).has_value());
  REQUIRE(cache.Find(0, 1)->likes == 10);
  REQUIRE(cache.Find(0, 3)->likes == 30);
  REQUIRE(cache.Find(0, 4)->likes == 40);
  cache.Put(*shard, Row(3, 31));  // a second Put replaces, it does not grow the cache
  REQUIRE(cache.size() == 3);
  REQUIRE(cache.Find(0, 3)->likes == 31);
  REQUIRE(cache.hits() == 5);
  REQUIRE(cache.misses() == 1);
  CounterCache none(0);
  none.Validate(*shard);
  none.Put(*shard, Row(1, 1));
  REQUIRE(none.size() == 0);
}

TEST_CASE("counter cache: a row is found only on its own shard and once watched") {
  TempDir dir;
  auto shard = FreshShard(dir);
  CounterCache cache(10);
  cache.Put(*shard, Row(1, 1));  // not watched yet: not cached
  REQUIRE(cache.size() == 0);
  cache.Validate(*shard);
  cache.Put(*shard, Row(1, 1));
  REQUIRE_FALSE(cache.Find(1, 1).has_value());  // asked on another shard: a miss
}

TEST_CASE("counter cache: this connection's writes of a counter row forget that message") {
  TempDir dir;
  auto shard = FreshShard(dir);
  InitCounter(*shard, 1);
  InitCounter(*shard, 2);
  CounterCache cache(10);
  cache.Validate(*shard);
  cache.Put(*shard, *GetCounter(*shard, 1));
  cache.Put(*shard, *GetCounter(*shard, 2));
  {
    WriteTxn txn(*shard);
    REQUIRE(AddCounter(*shard, Row(1, 5)));
    // Forgotten inside the transaction already, and nothing is stored from inside it.
    REQUIRE_FALSE(cache.Find(0, 1).has_value());
    cache.Put(*shard, *GetCounter(*shard, 1));
    REQUIRE_FALSE(cache.Find(0, 1).has_value());
    txn.Commit();
  }
  cache.Validate(*shard);  // its own commit does not move data_version: 2 stays
  REQUIRE(cache.Find(0, 2).has_value());
  cache.Put(*shard, *GetCounter(*shard, 1));
  REQUIRE(cache.Find(0, 1)->likes == 5);
  DeleteCounter(*shard, 1);
  REQUIRE_FALSE(cache.Find(0, 1).has_value());
  cache.Forget(2);
  REQUIRE(cache.size() == 0);
}

TEST_CASE("counter cache: a commit by another connection drops the shard's entries") {
  TempDir dir;
  auto shard = FreshShard(dir);
  auto other_shard = FreshShard(dir, "other.db", 1);
  InitCounter(*shard, 1);
  InitCounter(*other_shard, 3);
  CounterCache cache(10);
  cache.Validate(*shard);
  cache.Validate(*other_shard);
  cache.Put(*shard, *GetCounter(*shard, 1));
  cache.Put(*other_shard, *GetCounter(*other_shard, 3));
  cache.Validate(*shard);  // nobody else wrote: still there
  REQUIRE(cache.Find(0, 1)->likes == 0);
  RawDb raw(shard->path());  // another process, as far as SQLite can tell
  raw.Exec("UPDATE msg_counter SET like_count = 7 WHERE msg_id = 1");
  REQUIRE(cache.Find(0, 1).has_value());  // not validated yet: what Validate is for
  cache.Validate(*shard);
  REQUIRE_FALSE(cache.Find(0, 1).has_value());
  cache.Validate(*other_shard);  // another shard's entries stay
  REQUIRE(cache.Find(1, 3).has_value());
  cache.Put(*shard, *GetCounter(*shard, 1));
  REQUIRE(cache.Find(0, 1)->likes == 7);
}

TEST_CASE("counter cache: a server's count is served hot and stays exact") {
  test::Cluster c;
  c.Run("user_add", {{"name", "alice"}});
  c.Run("user_add", {{"name", "bob"}});
  const int64_t m = test::IdOf(c.Run("post", {{"user", 1}, {"content", "hot"}}));
  EmbeddedOptions eo;
  eo.data_dir = c.dir();
  eo.now_ms = test::kNow;
  eo.group_commit = 16;  // a server's: deltas held back and merged
  eo.counter_cache = 100;
  auto server = OpenEmbedded(eo);
  auto likes = [&] {
    auto r = server->Execute(Request{"count", {{"msgs", Json::array({m})}}});
    REQUIRE(r.ok());
    return r.value()[0]["counts"]["likes"].get<int64_t>();
  };
  REQUIRE(likes() == 0);
  REQUIRE(likes() == 0);  // hot now
  REQUIRE(server->Execute(Request{"like", {{"user", 2}, {"msg", m}}}).ok());
  REQUIRE(likes() == 1);  // its own delta, pending (held back), forgot the hot copy
  server->Idle();
  REQUIRE(likes() == 1);
  c.Run("unlike", {{"user", 2}, {"msg", m}});  // another connection, embedded
  REQUIRE(likes() == 0);
}

TEST_CASE("counter cache: a hot count runs no SQLite statement, a commit elsewhere one pragma") {
  test::Cluster c(test::ClusterOptions{4, "push", 20});
  c.Run("user_add", {{"name", "alice"}});
  Json ids = Json::array();
  for (int i = 0; i < 8; ++i)
    ids.push_back(test::IdOf(c.Run("post", {{"user", 1}, {"content", "hot"}})));
  EmbeddedOptions eo;
  eo.data_dir = c.dir();
  eo.now_ms = test::kNow;
  eo.group_commit = 16;
  eo.counter_cache = 100;
  eo.explain = true;  // every statement the shards' connections run is logged
  auto server = OpenEmbedded(eo);
  const Request count{"count", {{"msgs", ids}}};
  REQUIRE(server->Execute(count).ok());  // cold: read from the shard, then kept
  REQUIRE_FALSE(server->Explain().empty());
  REQUIRE(server->Execute(count).ok());  // the pragmas that take each WAL header's copy
  auto hot = server->Execute(count);
  REQUIRE(hot.ok());
  INFO("statements of a hot count: " << Json(server->Explain()).dump());
  REQUIRE(server->Explain().empty());
  REQUIRE(hot.value().size() == 8);
  // Another process's commit on the shard of the first id: a pragma there, and a re-read.
  c.Run("like", {{"user", 1}, {"msg", ids[0]}});
  auto after = server->Execute(count);
  REQUIRE(after.ok());
  REQUIRE(after.value()[0]["counts"]["likes"] == 1);
  bool pragma = false;
  for (const std::string& line : server->Explain())
    if (line.find("PRAGMA data_version") != std::string::npos) pragma = true;
  REQUIRE(pragma);
}

}  // namespace
}  // namespace weibo
