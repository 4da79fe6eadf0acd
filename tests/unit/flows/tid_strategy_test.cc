// The tid strategy (seed 003's "by tid modulo N", SPEC §2; flows/message_write.cc): a
// message's own rows on shard id mod N, its author's side on the author's shard, the two
// joined by the msg_write and author_drop jobs. Every flow, fsck both ways, and what a
// message whose msg_write job is still pending looks like.
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

void UseTid(Cluster& c) {
  c.EditConfig([](Json& j) { j["strategy"] = "tid"; });
}

int64_t CountRows(Cluster& c, int shard, const std::string& sql) {
  return std::stoll(RawDb(c.ShardPath(shard)).Rows(sql));
}

TEST_CASE("tid: every flow works, messages scattered, author lists on the author's shard") {
  Cluster c(ClusterOptions{4, GENERATE("push", "pull", "hybrid"), 2});
  UseTid(c);
  const test::EveryFlow f = test::RunEveryFlow(c);

  // Each message on id mod N (several shards for one author), each author_feed row on
  // the author's shard; the deleted one on none.
  std::set<int64_t> on;
  for (size_t i = 0; i < f.posts.size(); ++i) {
    const std::string id = std::to_string(f.posts[i]);
    const int home = static_cast<int>(f.posts[i] % 4);
    const int64_t live = i == 4 ? 0 : 1;
    INFO(id);
    REQUIRE(CountRows(c, home, "SELECT count(*) FROM msg_info WHERE msg_id = " + id) == live);
    REQUIRE(CountRows(c, static_cast<int>(f.a % 4),
                      "SELECT count(*) FROM author_feed WHERE msg_id = " + id) == live);
    on.insert(home);
  }
  REQUIRE(on.size() > 1);
  REQUIRE(c.User(f.a).at("msg_count") == 11);
  REQUIRE(c.TimelineIds(f.d, {{"posts", true}}).front() == f.rep);
  // Search by author reads every shard: the author's messages are on all of them.
  REQUIRE(c.Run("search", {{"author", f.a}, {"count", 50}}).size() == 11);
  test::CheckEveryFlow(c, f);
}

TEST_CASE("tid delete: the author's side and the purge travel to the author's shard") {
  Cluster c;  // 4 shards, push
  UseTid(c);
  const int64_t a = c.AddUser("alice"), b = c.AddUser("bob");
  c.Follow(b, a);
  int64_t m = 0;
  while (m == 0 || m % 4 == a % 4) m = c.Post(a, "soon gone");  // its rows on another shard
  REQUIRE(c.TimelineIds(b).front() == m);
  c.SetDrain(false);  // the delete's jobs stay pending
  c.Delete(a, m);
  // Gone by id at once; the author's side still lists it until the job is applied.
  REQUIRE(c.CodeOf("show", {{"msg", std::to_string(m)}}) == Code::kNotFound);
  const int own = static_cast<int>(a % 4);
  const std::string id = std::to_string(m);
  REQUIRE(CountRows(c, own, "SELECT count(*) FROM author_feed WHERE msg_id = " + id) == 1);
  for (int64_t shown : c.TimelineIds(a, {{"posts", true}})) REQUIRE(shown != m);  // passed over
  for (int64_t shown : c.TimelineIds(b)) REQUIRE(shown != m);                     // never shown
  c.SetDrain(true);
  c.Run("drain");
  REQUIRE(CountRows(c, own, "SELECT count(*) FROM author_feed WHERE msg_id = " + id) == 0);
  REQUIRE(CountRows(c, static_cast<int>(b % 4),
                    "SELECT count(*) FROM msg_index WHERE msg_id = " + id) == 0);
  Json report = c.Fsck();
  INFO(report.dump());
  REQUIRE(report.at("ok") == true);
}

TEST_CASE("tid: a post whose msg_write job is pending is in its author's list, not by id") {
  Cluster c;
  UseTid(c);
  const int64_t a = c.AddUser("alice");
  c.SetDrain(false);
  int64_t m = 0;
  for (int i = 0; i < 8 && (m == 0 || m % 4 == a % 4); ++i) m = c.Post(a, "on its way");
  REQUIRE(m % 4 != a % 4);
  REQUIRE(c.CodeOf("show", {{"msg", std::to_string(m)}}) == Code::kNotFound);
  for (int64_t shown : c.TimelineIds(a, {{"posts", true}})) REQUIRE(shown != m);
  Json pending = c.Fsck();
  REQUIRE(pending.at("ok") == false);  // the outbox check names the pending jobs
  for (const Json& v : pending.at("violations")) REQUIRE(v.at("check") == "outbox");
  c.SetDrain(true);
  c.Run("drain");
  REQUIRE(c.Run("show", {{"msg", std::to_string(m)}}).at("content") == "on its way");
  REQUIRE(c.Fsck().at("ok") == true);
}

TEST_CASE("tid fsck: a missing or stray author_feed row is found, --repair mends it") {
  Cluster c;
  UseTid(c);
  const int64_t a = c.AddUser("alice");
  const int64_t m = c.Post(a, "one");
  c.Post(a, "two");
  const int own = static_cast<int>(a % 4);
  RawDb(c.ShardPath(own)).Exec("DELETE FROM author_feed WHERE msg_id = " + std::to_string(m));
  RawDb(c.ShardPath(own))
      .Exec(
          "INSERT INTO author_feed(user_id, part, msg_id, type) SELECT user_id, part, "
          "msg_id + 1, type FROM author_feed LIMIT 1");
  Json report = c.Fsck();
  INFO(report.dump());
  int found = 0;
  for (const Json& v : report.at("violations")) found += v.at("check") == "author_feed" ? 1 : 0;
  REQUIRE(found == 2);
  c.Fsck(true);
  Json after = c.Fsck();
  INFO(after.dump());
  REQUIRE(after.at("ok") == true);
  REQUIRE(c.TimelineIds(a, {{"posts", true}}).size() == 2);
}

}  // namespace
}  // namespace weibo
