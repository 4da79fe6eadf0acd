// tables/counter_cache.cc: the hot counters' LRU — its bound, its eviction order, and the
// invalidations that keep it exact (own writes of msg_counter, other connections' commits).
#include "tables/counter_cache.h"

#include <map>

#include "storage/shard.h"
#include "tables/outbox.h"
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
  REQUIRE(cache.Find(0, 1)->row.likes == 10);  // 1 is now the most recently used: 2 goes next
  cache.Put(*shard, Row(4, 40));
  REQUIRE(cache.size() == 3);
  REQUIRE(cache.Find(0, 2) == nullptr);
  REQUIRE(cache.Find(0, 1)->row.likes == 10);
  REQUIRE(cache.Find(0, 3)->row.likes == 30);
  REQUIRE(cache.Find(0, 4)->row.likes == 40);
  cache.Put(*shard, Row(3, 31));  // a second Put replaces, it does not grow the cache
  REQUIRE(cache.size() == 3);
  REQUIRE(cache.Find(0, 3)->row.likes == 31);
  REQUIRE(cache.hits() == 5);
  REQUIRE(cache.misses() == 1);
  CounterCache none(0);
  none.Validate(*shard);
  none.Put(*shard, Row(1, 1));
  REQUIRE(none.size() == 0);
}

TEST_CASE("counter cache: random puts, finds and forgets never return a wrong or forgotten row") {
  // Against a plain map: eviction (CLOCK) may drop any entry, but a hit must be the last
  // row put for its id and never one forgotten since; the index's deletions (backward
  // shifts) must leave every other entry findable.
  TempDir dir;
  auto shard = FreshShard(dir);
  CounterCache cache(64);
  cache.Validate(*shard);
  std::map<int64_t, int64_t> live;  // id -> likes of its last Put, while not forgotten
  test::XorShift next;
  for (int step = 0; step < 20000; ++step) {
    const int64_t id = static_cast<int64_t>(next() % 200) * 4 + 1;  // a shard's stride
    const uint64_t op = next() % 3;
    if (op == 0) {
      const int64_t likes = static_cast<int64_t>(next() % 1000);
      cache.Put(*shard, Row(id, likes), "t" + std::to_string(likes));
      live[id] = likes;
      const CachedCounter* hit = cache.Find(0, id);
      REQUIRE(hit != nullptr);  // just put: found
      REQUIRE(hit->row.likes == likes);
      REQUIRE(hit->text() == "t" + std::to_string(likes));
    } else if (op == 1) {
      cache.Forget(id);
      live.erase(id);
      REQUIRE(cache.Find(0, id) == nullptr);
    } else if (const CachedCounter* hit = cache.Find(0, id)) {
      REQUIRE(live.count(id) == 1);
      REQUIRE(hit->row.likes == live[id]);
    }
    REQUIRE(cache.size() <= 64);
  }
  // Every id still cached is one the map holds, with its value.
  size_t found = 0;
  for (const auto& [id, likes] : live)
    if (const CachedCounter* hit = cache.Find(0, id)) {
      REQUIRE(hit->row.likes == likes);
      ++found;
    }
  REQUIRE(found == cache.size());
}

TEST_CASE("counter cache: a text too long to keep inline is not kept, the row is") {
  TempDir dir;
  auto shard = FreshShard(dir);
  CounterCache cache(4);
  cache.Validate(*shard);
  cache.Put(*shard, Row(1, 7), std::string(CachedCounter::kTextMax, 'x'));
  REQUIRE(cache.Find(0, 1)->text().size() == CachedCounter::kTextMax);
  cache.Put(*shard, Row(1, 8), std::string(CachedCounter::kTextMax + 1, 'x'));
  REQUIRE(cache.Find(0, 1)->row.likes == 8);
  REQUIRE(cache.Find(0, 1)->text().empty());  // written each time it is served instead
}

TEST_CASE("counter cache: a row is found only on its own shard and once watched") {
  TempDir dir;
  auto shard = FreshShard(dir);
  CounterCache cache(10);
  cache.Put(*shard, Row(1, 1));  // not watched yet: not cached
  REQUIRE(cache.size() == 0);
  cache.Validate(*shard);
  cache.Put(*shard, Row(1, 1));
  REQUIRE(cache.Find(1, 1) == nullptr);  // asked on another shard: a miss
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
    REQUIRE(cache.Find(0, 1) == nullptr);
    cache.Put(*shard, *GetCounter(*shard, 1));
    REQUIRE(cache.Find(0, 1) == nullptr);
    txn.Commit();
  }
  cache.Validate(*shard);  // its own commit does not move data_version: 2 stays
  REQUIRE(cache.Find(0, 2) != nullptr);
  cache.Put(*shard, *GetCounter(*shard, 1));
  REQUIRE(cache.Find(0, 1)->row.likes == 5);
  DeleteCounter(*shard, 1);
  REQUIRE(cache.Find(0, 1) == nullptr);
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
  REQUIRE(cache.Find(0, 1)->row.likes == 0);
  RawDb raw(shard->path());  // another process, as far as SQLite can tell
  raw.Exec("UPDATE msg_counter SET like_count = 7 WHERE msg_id = 1");
  REQUIRE(cache.Find(0, 1) != nullptr);  // not validated yet: what Validate is for
  cache.Validate(*shard);
  REQUIRE(cache.Find(0, 1) == nullptr);
  cache.Validate(*other_shard);  // another shard's entries stay
  REQUIRE(cache.Find(1, 3) != nullptr);
  cache.Put(*shard, *GetCounter(*shard, 1));
  REQUIRE(cache.Find(0, 1)->row.likes == 7);
}

// A connection of this process (a server's background applier) records its commits
// (storage/commit_log.h): a commit that changed no msg_counter row and no pending delta
// keeps the entries; one that did drops them, as another process's commit does.
TEST_CASE("counter cache: this process's other connections drop entries only for counters") {
  TempDir dir;
  auto shard = FreshShard(dir);
  Shard other(0, shard->path(), false, nullptr);
  InitCounter(*shard, 1);
  CounterCache cache(10);
  auto kept = [&] {
    cache.Validate(*shard);
    return cache.Find(0, 1) != nullptr;
  };
  auto put = [&] {
    cache.Validate(*shard);
    cache.Put(*shard, *GetCounter(*shard, 1));
    REQUIRE(kept());
  };
  put();
  {
    WriteTxn txn(other);
    other.Exec(
        "INSERT INTO msg_info(msg_id, user_id, content, type, time) VALUES (9, 7, 'x', 0, 1)");
    InsertJob(other, 0, "fanout", "{}", 1);
    txn.Commit();
  }
  const int64_t dropped = cache.watch().dropped();
  REQUIRE(kept());  // a message's row and a job: no counter moved
  REQUIRE(cache.watch().adopted() == 1);
  REQUIRE(cache.watch().dropped() == dropped);  // and no pragma moved the generation
  {
    WriteTxn txn(other);
    InsertJob(other, 0, kCounterDeltaKind, R"({"msg_id":1,"likes":1,"views":0})", 2);
    txn.Commit();
  }
  REQUIRE_FALSE(kept());
  REQUIRE(cache.watch().dropped() == dropped + 1);
  put();
  {
    WriteTxn txn(other);
    other.Exec("UPDATE msg_counter SET like_count = 5 WHERE msg_id = 1");
    txn.Commit();
  }
  REQUIRE_FALSE(kept());
  cache.Put(*shard, *GetLiveCounter(*shard, 1));
  REQUIRE(cache.Find(0, 1)->row.likes == 6);  // the row and the pending delta
}

TEST_CASE("counter cache: a server's count is served hot and stays exact") {
  test::Cluster c;
  c.Run("user_add", {{"name", "alice"}});
  c.Run("user_add", {{"name", "bob"}});
  const int64_t m = test::IdOf(c.Run("post", {{"user", 1}, {"content", "hot"}}));
  EmbeddedOptions eo = test::ServerOptions(c.dir());  // deltas held back and merged
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

TEST_CASE("counter cache: a server's count as text is its document's dump, and stays exact") {
  test::Cluster c(test::ClusterOptions{4, "push", 20});
  c.Run("user_add", {{"name", "alice"}});
  c.Run("user_add", {{"name", "bob"}});
  Json ids = Json::array();
  for (int i = 0; i < 6; ++i)
    ids.push_back(test::IdOf(c.Run("post", {{"user", 1}, {"content", "hot"}})));
  ids.push_back(ids[2]);  // asked twice: answered twice, from the same entry
  EmbeddedOptions eo = test::ServerOptions(c.dir());
  eo.counter_cache = 100;
  auto server = OpenEmbedded(eo);
  const Request count{"count", {{"msgs", ids}}};
  // The reply's text (ExecuteForReply: the hot items joined as kept) against the
  // document Execute builds from the same rows.
  auto text = [&] {
    std::string t;
    auto r = server->ExecuteForReply(count, &t);
    REQUIRE(r.ok());
    REQUIRE(r.value().is_null());
    auto doc = server->Execute(count);
    REQUIRE(doc.ok());
    REQUIRE(t == doc.value().dump());
    return Json::parse(t);
  };
  REQUIRE(text()[0]["counts"]["likes"] == 0);  // cold: read, then kept with its text
  REQUIRE(text()[0]["counts"]["likes"] == 0);  // hot
  // A like after a cached count: its delta forgets the kept text with the row.
  REQUIRE(server->Execute(Request{"like", {{"user", 2}, {"msg", ids[0]}}}).ok());
  Json after = text();
  REQUIRE(after[0]["counts"]["likes"] == 1);
  REQUIRE(after[1]["counts"]["likes"] == 0);
  server->Idle();  // applying the merged delta changes the row: forgotten again, same value
  REQUIRE(text()[0]["counts"]["likes"] == 1);
  // A comment through the server (its ref_add job updates msg_counter) and a like by
  // another connection (a commit the WAL-index header shows).
  REQUIRE(
      server->Execute(Request{"comment", {{"user", 2}, {"msg", ids[2]}, {"content", "c"}}}).ok());
  c.Run("like", {{"user", 1}, {"msg", ids[3]}});
  after = text();
  REQUIRE(after[2]["counts"]["comments"] == 1);
  REQUIRE(after[6]["counts"]["comments"] == 1);
  REQUIRE(after[3]["counts"]["likes"] == 1);
  // An op without a text handler leaves the text empty and returns its document.
  std::string t = "left over";
  auto shown = server->ExecuteForReply(Request{"show", {{"msg", ids[1]}}}, &t);
  REQUIRE(shown.ok());
  REQUIRE(t.empty());
  REQUIRE(shown.value()["counts"]["views"] == 1);
}

TEST_CASE("counter cache: a hot count runs no SQLite statement, a commit elsewhere one pragma") {
  test::Cluster c(test::ClusterOptions{4, "push", 20});
  c.Run("user_add", {{"name", "alice"}});
  Json ids = Json::array();
  for (int i = 0; i < 8; ++i)
    ids.push_back(test::IdOf(c.Run("post", {{"user", 1}, {"content", "hot"}})));
  EmbeddedOptions eo = test::ServerOptions(c.dir());
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
