// flows/context.cc: the request id (Context::Replayed, RecordApplied) through every write
// flow. A request run with id R and then again with R by a fresh executor — a restarted
// daemon, its memory empty — is applied once and gets the first result; another id applies
// again; a request without an id (every embedded command) records nothing.
#include "tables/request_log.h"
#include "test_support.h"

namespace weibo {
namespace {

using test::Cluster;
using test::IdOf;
using test::RawDb;

Result<Json> TryWithId(Cluster& c, const std::string& id, const std::string& op, Json args) {
  Request request{op, std::move(args)};
  request.id = id;
  return c.executor().Execute(request);
}

Json RunWithId(Cluster& c, const std::string& id, const std::string& op, Json args) {
  Result<Json> r = TryWithId(c, id, op, std::move(args));
  INFO(op << " with id " << id << " -> " << (r.ok() ? "ok" : test::Describe(r.status())));
  REQUIRE(r.ok());
  return r.value();
}

int64_t LoggedIds(Cluster& c) {
  int64_t n = 0;
  for (int i = 0; i < c.shards(); ++i)
    n += RawDb(c.ShardPath(i)).Int("SELECT count(*) FROM request_log");
  return n;
}

// Runs op with id twice, the second time on a fresh executor: both results equal, and the
// second run changed no row of any shard.
Json RunTwice(Cluster& c, const std::string& id, const std::string& op, const Json& args) {
  Json first = RunWithId(c, id, op, args);
  std::string before = test::DumpCluster(c.dir(), c.shards());
  c.Reopen();
  Json second = RunWithId(c, id, op, args);
  REQUIRE(second.dump() == first.dump());
  REQUIRE(test::DumpCluster(c.dir(), c.shards()) == before);
  return first;
}

TEST_CASE("request id: a post retried after a restart is applied once, with the same result") {
  Cluster c;
  int64_t a = c.AddUser("alice");
  int64_t b = c.AddUser("bob");
  c.Follow(b, a);
  Json m = RunTwice(c, "R", "post", {{"user", a}, {"content", "once"}});
  REQUIRE(c.User(a).at("msg_count") == 1);
  REQUIRE(c.TimelineIds(b) == std::vector<int64_t>{IdOf(m)});
  // Recorded on the author's shard only, with the message id.
  for (int i = 0; i < c.shards(); ++i) {
    std::string rows = RawDb(c.ShardPath(i)).Rows("SELECT request_id, op, result FROM request_log");
    REQUIRE(rows == (i == a % c.shards() ? "R|post|" + std::to_string(IdOf(m)) + "\n" : ""));
  }
}

TEST_CASE("request id: different ids apply twice, no id (embedded) records nothing") {
  Cluster c;
  int64_t a = c.AddUser("alice");
  Json one = RunWithId(c, "R1", "post", {{"user", a}, {"content", "same"}});
  Json two = RunWithId(c, "R2", "post", {{"user", a}, {"content", "same"}});
  REQUIRE(IdOf(one) != IdOf(two));
  REQUIRE(LoggedIds(c) == 2);
  c.Post(a, "same");
  c.Post(a, "same");
  REQUIRE(c.User(a).at("msg_count") == 4);
  REQUIRE(LoggedIds(c) == 2);
}

TEST_CASE("request id: comment and repost replay, even after their target is deleted") {
  Cluster c;
  int64_t a = c.AddUser("alice");
  int64_t b = c.AddUser("bob");
  int64_t post = c.Post(a, "hello");
  Json args_c{{"user", b}, {"msg", std::to_string(post)}, {"content", "hi"}};
  Json args_r{{"user", b}, {"msg", std::to_string(post)}};
  Json comment = RunTwice(c, "C", "comment", args_c);
  Json repost = RunTwice(c, "P", "repost", args_r);
  REQUIRE(c.Counts(post).at("comments") == 1);
  REQUIRE(c.Counts(post).at("reposts") == 1);
  REQUIRE(c.User(b).at("msg_count") == 2);
  c.Delete(a, post);
  c.Reopen();
  // The message rendered as it is now: the same ids, its ref now deleted.
  Json again_c = RunWithId(c, "C", "comment", args_c);
  Json again_r = RunWithId(c, "P", "repost", args_r);
  REQUIRE(IdOf(again_c) == IdOf(comment));
  REQUIRE(IdOf(again_r) == IdOf(repost));
  REQUIRE(c.User(b).at("msg_count") == 2);
  // Without an id the same request is refused: its target is gone.
  REQUIRE(c.CodeOf("comment", args_c) == Code::kNotFound);
}

TEST_CASE("request id: a replayed message deleted since is {id, deleted: true}") {
  Cluster c;
  int64_t a = c.AddUser("alice");
  Json m = RunWithId(c, "R", "post", {{"user", a}, {"content", "gone soon"}});
  c.Delete(a, IdOf(m));
  c.Reopen();
  Json again = RunWithId(c, "R", "post", {{"user", a}, {"content", "gone soon"}});
  REQUIRE(again == Json{{"id", m.at("id")}, {"deleted", true}});
  REQUIRE(c.User(a).at("msg_count") == 0);
}

TEST_CASE("request id: follow, unfollow, delete and user_add replay instead of failing") {
  Cluster c;
  Json alice = RunTwice(c, "U1", "user_add", {{"name", "alice"}});
  Json bob = RunTwice(c, "U2", "user_add", {{"name", "bob"}});
  REQUIRE(c.Run("user_list").size() == 2);
  int64_t a = IdOf(alice), b = IdOf(bob);
  RunTwice(c, "F", "follow", {{"user", b}, {"target", a}});
  REQUIRE(c.User(b).at("follow_count") == 1);
  REQUIRE(c.User(a).at("fans_count") == 1);
  RunTwice(c, "X", "unfollow", {{"user", b}, {"target", a}});
  REQUIRE(c.User(b).at("follow_count") == 0);
  int64_t post = c.Post(a, "bye");
  Json deleted = RunTwice(c, "D", "delete", {{"user", a}, {"msg", std::to_string(post)}});
  REQUIRE(deleted == Json{{"id", std::to_string(post)}, {"deleted", true}});
  REQUIRE(c.User(a).at("msg_count") == 0);
  REQUIRE(c.Fsck().at("violations").empty());
}

TEST_CASE("request id: a replay applies the jobs its first run left pending") {
  Cluster c;
  int64_t a = c.AddUser("alice");
  int64_t b = c.AddUser("bob");
  c.Follow(b, a);
  c.SetDrain(false);  // the first run dies before its fan-out
  Json m = RunWithId(c, "R", "post", {{"user", a}, {"content", "fan me out"}});
  int64_t pending = 0;
  for (int i = 0; i < c.shards(); ++i)
    pending += RawDb(c.ShardPath(i)).Int("SELECT count(*) FROM outbox WHERE state = 0");
  REQUIRE(pending > 0);
  c.SetDrain(true);  // the restarted daemon
  Json again = RunWithId(c, "R", "post", {{"user", a}, {"content", "fan me out"}});
  REQUIRE(again.dump() == m.dump());
  for (int i = 0; i < c.shards(); ++i)
    REQUIRE(RawDb(c.ShardPath(i)).Int("SELECT count(*) FROM outbox WHERE state = 0") == 0);
  REQUIRE(c.TimelineIds(b) == std::vector<int64_t>{IdOf(m)});
  REQUIRE(c.User(a).at("msg_count") == 1);
}

TEST_CASE("request id: a failed write records nothing, so its retry runs again") {
  Cluster c;
  int64_t a = c.AddUser("alice");
  REQUIRE(TryWithId(c, "F", "follow", {{"user", a}, {"target", a}}).status().code() ==
          Code::kCannotFollowSelf);
  REQUIRE(TryWithId(c, "P", "post", {{"user", "@nobody"}, {"content", "x"}}).status().code() ==
          Code::kNotFound);
  REQUIRE(LoggedIds(c) == 0);
  c.AddUser("nobody");
  REQUIRE(TryWithId(c, "P", "post", {{"user", "@nobody"}, {"content", "x"}}).ok());
}

// Issue 11, defect 2: an id names one request (op and args). Once recorded, the same id
// with another op or other args is refused and applies nothing; it neither replays the
// first request's result nor runs unrecorded.
TEST_CASE("request id: an id recorded for another op or other args is refused") {
  Cluster c;
  int64_t a = c.AddUser("alice");
  int64_t b = c.AddUser("bob");
  RunWithId(c, "R", "follow", {{"user", a}, {"target", b}});
  std::string before = test::DumpCluster(c.dir(), c.shards());
  for (const auto& [op, args] :
       std::vector<std::pair<std::string, Json>>{{"post", {{"user", a}, {"content", "x"}}},
                                                 {"unfollow", {{"user", a}, {"target", b}}},
                                                 {"follow", {{"user", a}, {"target", "@bob"}}}}) {
    Result<Json> r = TryWithId(c, "R", op, args);
    INFO(op << " " << args.dump());
    REQUIRE_FALSE(r.ok());
    REQUIRE(r.status().code() == Code::kInvalidRequest);
    REQUIRE(r.status().message() == "request id reused");
  }
  REQUIRE(test::DumpCluster(c.dir(), c.shards()) == before);
  REQUIRE(c.User(a).at("msg_count") == 0);
  // The request itself still replays.
  RunWithId(c, "R", "follow", {{"user", a}, {"target", b}});
  REQUIRE(c.User(a).at("follow_count") == 1);
}

}  // namespace
}  // namespace weibo
