// flows/follow.cc: follow / unfollow A -> B (SPEC §4.1): both relation rows, the counts,
// the errors, and in push mode the merge / removal of B's posts in A's inbox.
#include "test_support.h"

namespace weibo {
namespace {

using test::Cluster;
using test::ClusterOptions;
using test::RawDb;

int64_t Rows(Cluster& c, int64_t shard_of, const std::string& where) {
  RawDb db(c.ShardPath(static_cast<int>(shard_of % c.shards())));
  return db.Int("SELECT count(*) FROM user_relation WHERE " + where);
}

TEST_CASE("follow: both relation rows, follow_count and fans_count, the result JSON") {
  Cluster c;
  int64_t a = c.AddUser("alice"), b = c.AddUser("bob");
  Json r = c.Run("follow", {{"user", "@alice"}, {"target", b}});
  REQUIRE(r.at("following") == true);
  REQUIRE(r.at("user").at("id") == "1");
  REQUIRE(r.at("user").at("follow_count") == 1);
  REQUIRE(r.at("target").at("id") == "2");
  REQUIRE(r.at("target").at("fans_count") == 1);
  REQUIRE(Rows(c, a, "user_id = 1 AND follow_id = 2 AND type = 1") == 1);
  REQUIRE(Rows(c, b, "user_id = 2 AND follow_id = 1 AND type = 0") == 1);
  REQUIRE(Rows(c, a, "type = 0") == 0);
  REQUIRE(c.User(a).at("follow_count") == 1);
  REQUIRE(c.User(a).at("fans_count") == 0);
  REQUIRE(c.User(b).at("fans_count") == 1);
  REQUIRE(c.User(b).at("follow_count") == 0);
  REQUIRE(c.Fsck().at("ok") == true);
}

TEST_CASE("unfollow: both rows go, counts drop, the result says following false") {
  Cluster c;
  int64_t a = c.AddUser("alice"), b = c.AddUser("bob");
  c.Follow(a, b);
  Json r = c.Run("unfollow", {{"user", a}, {"target", "@bob"}});
  REQUIRE(r.at("following") == false);
  REQUIRE(r.at("user").at("follow_count") == 0);
  REQUIRE(r.at("target").at("fans_count") == 0);
  REQUIRE(Rows(c, a, "user_id = 1") == 0);
  REQUIRE(Rows(c, b, "user_id = 2") == 0);
  c.Follow(a, b);  // and again
  REQUIRE(c.User(b).at("fans_count") == 1);
  REQUIRE(c.Fsck().at("ok") == true);
}

TEST_CASE("follow: self-follow, duplicates, unknown users and not-following are refused") {
  Cluster c;
  int64_t a = c.AddUser("alice"), b = c.AddUser("bob");
  REQUIRE(c.CodeOf("follow", {{"user", a}, {"target", a}}) == Code::kCannotFollowSelf);
  REQUIRE(c.CodeOf("follow", {{"user", a}, {"target", "@alice"}}) == Code::kCannotFollowSelf);
  REQUIRE(c.CodeOf("follow", {{"user", a}, {"target", 99}}) == Code::kNotFound);
  REQUIRE(c.CodeOf("follow", {{"user", 99}, {"target", a}}) == Code::kNotFound);
  REQUIRE(c.CodeOf("follow", {{"user", a}, {"target", "@nobody"}}) == Code::kNotFound);
  REQUIRE(c.CodeOf("unfollow", {{"user", a}, {"target", b}}) == Code::kNotFollowing);
  REQUIRE(c.CodeOf("unfollow", {{"user", a}, {"target", a}}) == Code::kCannotFollowSelf);
  c.Follow(a, b);
  REQUIRE(c.CodeOf("follow", {{"user", a}, {"target", b}}) == Code::kAlreadyFollowing);
  REQUIRE(c.CodeOf("unfollow", {{"user", b}, {"target", a}}) == Code::kNotFollowing);
  REQUIRE(c.CodeOf("follow", {{"user", a}}) == Code::kInvalidRequest);
  // Refusals changed nothing.
  REQUIRE(c.User(a).at("follow_count") == 1);
  REQUIRE(c.User(b).at("fans_count") == 1);
  REQUIRE(c.User(a).at("fans_count") == 0);
}

TEST_CASE("follow: counts over many users and shards") {
  Cluster c(ClusterOptions{8});
  for (int i = 1; i <= 10; ++i) c.AddUser("u" + std::to_string(i));
  for (int64_t u = 2; u <= 10; ++u) c.Follow(u, 1);
  for (int64_t t = 2; t <= 10; ++t) c.Follow(1, t);
  c.Unfollow(5, 1);
  c.Unfollow(1, 7);
  REQUIRE(c.User(1).at("fans_count") == 8);
  REQUIRE(c.User(1).at("follow_count") == 8);
  REQUIRE(c.User(5).at("fans_count") == 1);
  REQUIRE(c.User(5).at("follow_count") == 0);
  REQUIRE(c.User(7).at("fans_count") == 0);
  REQUIRE(c.User(7).at("follow_count") == 1);
  REQUIRE(c.Fsck().at("ok") == true);
}

TEST_CASE("follow in push mode merges B's latest posts into A's inbox, unfollow removes them") {
  Cluster c(ClusterOptions{4, "push"});
  int64_t a = c.AddUser("alice"), b = c.AddUser("bob");
  int64_t own = c.Post(a, "mine");
  int64_t b1 = c.Post(b, "b1"), b2 = c.Post(b, "b2");
  int64_t bc = c.Comment(b, own, "a comment is not a post");
  REQUIRE(c.TimelineIds(a) == std::vector<int64_t>{own});
  c.Follow(a, b);
  REQUIRE(c.TimelineIds(a) == std::vector<int64_t>{b2, b1, own});
  RawDb db(c.ShardPath(static_cast<int>(a % 4)));
  REQUIRE(db.Int("SELECT count(*) FROM msg_index WHERE user_id = 1 AND author_id = 2") == 2);
  c.Unfollow(a, b);
  REQUIRE(c.TimelineIds(a) == std::vector<int64_t>{own});
  REQUIRE(db.Int("SELECT count(*) FROM msg_index WHERE user_id = 1 AND author_id = 2") == 0);
  (void)bc;
}

TEST_CASE("follow with --async: the fan row arrives with the job") {
  Cluster c;
  int64_t a = c.AddUser("alice"), b = c.AddUser("bob");
  c.SetDrain(false);
  c.Follow(a, b);
  REQUIRE(c.User(a).at("follow_count") == 1);
  REQUIRE(c.User(b).at("fans_count") == 0);  // not yet
  Json report = c.Fsck();
  REQUIRE(report.at("ok") == false);
  REQUIRE(test::ViolationChecks(report).front() == "outbox");
  c.Fsck(true);  // repair applies the pending jobs
  REQUIRE(c.User(b).at("fans_count") == 1);
  REQUIRE(c.Fsck().at("ok") == true);
}

}  // namespace
}  // namespace weibo
