// flows/placement.cc and the uid-mapping strategy (seed 003, SPEC §2): every flow over a
// cluster whose ids carry no gene, found through tid_map.
#include <map>
#include <set>
#include <sstream>

#include "flows/every_flow.h"
#include "storage/shard_set.h"
#include "test_support.h"

namespace weibo {
namespace {

using test::Cluster;
using test::ClusterOptions;
using test::RawDb;

// A fresh cluster of 4 shards made as weibo-init --strategy uid-mapping makes it: the
// strategy is cluster.json's, read when the shards are opened.
void UseUidMapping(Cluster& c) {
  c.EditConfig([](Json& j) { j["strategy"] = "uid-mapping"; });
}

// The tid_map rows of every shard: tid -> (shard, uid).
std::map<int64_t, std::pair<int, int64_t>> TidMap(Cluster& c) {
  std::map<int64_t, std::pair<int, int64_t>> rows;
  for (int i = 0; i < c.shards(); ++i) {
    std::istringstream lines(RawDb(c.ShardPath(i)).Rows("SELECT tid || ' ' || uid FROM tid_map"));
    int64_t tid = 0, uid = 0;
    while (lines >> tid >> uid) rows[tid] = {i, uid};
  }
  return rows;
}

TEST_CASE("uid-mapping: every flow works, each message is mapped, fsck is clean") {
  Cluster c(ClusterOptions{4, GENERATE("push", "pull", "hybrid"), 2});
  UseUidMapping(c);
  const test::EveryFlow f = test::RunEveryFlow(c);

  // Ids carry no gene: alice's posts are mapped from several shards, all to alice.
  auto map = TidMap(c);
  std::set<int> mapped_on;
  for (int64_t id : f.posts) {
    REQUIRE(map.count(id));
    REQUIRE(map[id].first == id % 4);
    REQUIRE(map[id].second == f.a);
    mapped_on.insert(map[id].first);
  }
  REQUIRE(mapped_on.size() > 1);
  REQUIRE(map.at(f.com).second == f.b);
  REQUIRE(map.at(f.rep).second == f.d);

  // Reads by id find them through the mapping; timelines by author.
  test::CheckEveryFlow(c, f);
}

TEST_CASE("uid-mapping fsck: a missing or wrong tid_map row is found, --repair restores it") {
  Cluster c;
  UseUidMapping(c);
  const int64_t a = c.AddUser("alice");
  const int64_t m = c.Post(a, "one");
  const int64_t n = c.Post(a, "two");
  RawDb(c.ShardPath(static_cast<int>(m % 4)))
      .Exec("DELETE FROM tid_map WHERE tid = " + std::to_string(m));
  RawDb(c.ShardPath(static_cast<int>(n % 4)))
      .Exec("UPDATE tid_map SET uid = 99 WHERE tid = " + std::to_string(n));
  c.Reopen();  // a new process: no placement remembered from the posts
  // Not found by id without its row (never the wrong message).
  REQUIRE(c.CodeOf("show", {{"msg", std::to_string(m)}}) == Code::kNotFound);
  Json report = c.Fsck();
  INFO(report.dump());
  REQUIRE(report.at("ok") == false);
  int found = 0;
  for (const Json& v : report.at("violations")) found += v.at("check") == "tid_map" ? 1 : 0;
  REQUIRE(found == 2);
  c.Fsck(true);
  REQUIRE(c.Fsck().at("ok") == true);
  REQUIRE(c.Run("show", {{"msg", std::to_string(m)}}).at("content") == "one");
  REQUIRE(TidMap(c).at(n).second == a);
}

TEST_CASE("uid-mapping delete: the mapping stays, marked, and still finds the comments") {
  Cluster c;  // 4 shards
  UseUidMapping(c);
  const int64_t a = c.AddUser("alice"), b = c.AddUser("bob");
  const int64_t m = c.Post(a, "soon gone");
  REQUIRE(m % 4 != a % 4);  // its mapping on another shard: the mark travels as a job
  const int64_t com = c.Comment(b, m, "a comment that stays");
  c.Delete(a, m);
  c.Reopen();  // a new process: only tid_map knows where m was
  REQUIRE(c.CodeOf("show", {{"msg", std::to_string(m)}}) == Code::kNotFound);
  REQUIRE(c.CommentPage(m, 0) == std::vector<int64_t>{com});
  REQUIRE(RawDb(c.ShardPath(static_cast<int>(m % 4)))
              .Rows("SELECT uid || ' ' || deleted FROM tid_map WHERE tid = " + std::to_string(m)) ==
          std::to_string(a) + " 1\n");
  REQUIRE(c.Fsck().at("ok") == true);
  c.Delete(b, com);  // its relation row, on alice's shard, found through the marked mapping
  // Its relation row is gone (a deleted message without comments is unknown, as under gene).
  REQUIRE(c.CodeOf("comments", {{"msg", std::to_string(m)}, {"page", 0}}) == Code::kNotFound);
  REQUIRE(c.Fsck().at("ok") == true);

  // A mapping to no message (not marked): found, and repair marks it.
  RawDb(c.ShardPath(static_cast<int>(m % 4)))
      .Exec("UPDATE tid_map SET deleted = 0 WHERE tid = " + std::to_string(m));
  Json report = c.Fsck();
  INFO(report.dump());
  REQUIRE(report.at("violations").size() == 1);
  REQUIRE(report.at("violations")[0].at("check") == "tid_map");
  c.Fsck(true);
  REQUIRE(c.Fsck().at("ok") == true);
}

}  // namespace
}  // namespace weibo
