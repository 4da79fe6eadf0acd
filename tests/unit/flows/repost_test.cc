// flows/repost.cc and flows/refs.cc: A reposts B's message (SPEC §4.3): the repost's own
// rows and fan-out, B's transferred_count / transfer_count, a relation row with a fixed
// page_index, and the root of a chain of reposts.
#include "test_support.h"

namespace weibo {
namespace {

using test::Cluster;
using test::ClusterOptions;
using test::IdOf;

TEST_CASE("repost: the message JSON has ref, page_index and the root message") {
  Cluster c;
  int64_t a = c.AddUser("alice"), b = c.AddUser("bob");
  int64_t m = c.Post(a, "original");
  Json r = c.Run("repost", {{"user", b}, {"msg", std::to_string(m)}});
  REQUIRE(r.at("type") == "repost");
  REQUIRE(r.at("content") == "");
  REQUIRE(r.at("user_id") == "2");
  REQUIRE(r.at("ref") == Json{{"id", std::to_string(m)}, {"user_id", "1"}});
  REQUIRE(r.at("page_index") == 0);
  REQUIRE(r.at("root").at("id") == std::to_string(m));
  REQUIRE(r.at("root").at("content") == "original");
  REQUIRE(r.at("root").at("type") == "original");
  REQUIRE(r.at("root").at("counts").at("reposts") == 1);
  REQUIRE(r.at("root").at("counts").at("reposted") == 1);
  Json with_text = c.Run("repost", {{"user", b}, {"msg", m}, {"content", "看看这个"}});
  REQUIRE(with_text.at("content") == "看看这个");
  REQUIRE(c.Counts(m) == Json{{"comments", 0},
                              {"commented", 0},
                              {"reposts", 2},
                              {"reposted", 2},
                              {"likes", 0},
                              {"views", 0}});
  REQUIRE(c.User(b).at("msg_count") == 2);
  REQUIRE(c.User(a).at("msg_count") == 1);
  (void)a;
}

TEST_CASE("repost: the n-th repost gets page_index (n - 1) / page_size (page_size 2)") {
  Cluster c(ClusterOptions{4, "push", 2});
  int64_t a = c.AddUser("alice");
  int64_t m = c.Post(a, "original");
  std::vector<int64_t> reposts;
  for (int n = 1; n <= 5; ++n) {
    int64_t u = c.AddUser("r" + std::to_string(n));
    Json r = c.Run("repost", {{"user", u}, {"msg", m}});
    REQUIRE(r.at("page_index") == (n - 1) / 2);
    reposts.push_back(IdOf(r));
  }
  REQUIRE(c.RepostPage(m, 0) == std::vector<int64_t>{reposts[0], reposts[1]});
  REQUIRE(c.RepostPage(m, 1) == std::vector<int64_t>{reposts[2], reposts[3]});
  REQUIRE(c.RepostPage(m, 2) == std::vector<int64_t>{reposts[4]});
  REQUIRE(c.Counts(m).at("reposts") == 5);
  REQUIRE(c.Counts(m).at("reposted") == 5);
}

TEST_CASE("repost of a repost: ref is the direct target, root the original") {
  Cluster c;
  int64_t a = c.AddUser("alice"), b = c.AddUser("bob"), d = c.AddUser("dora");
  int64_t m = c.Post(a, "original");
  int64_t r1 = c.Repost(b, m, "first");
  Json r2 = c.Run("repost", {{"user", d}, {"msg", r1}, {"content", "second"}});
  REQUIRE(r2.at("ref") == Json{{"id", std::to_string(r1)}, {"user_id", "2"}});
  REQUIRE(r2.at("root").at("id") == std::to_string(m));
  REQUIRE(r2.at("root").at("user_id") == "1");
  REQUIRE(r2.at("page_index") == 0);
  // Only the message reposted counts the repost.
  REQUIRE(c.Counts(r1).at("reposted") == 1);
  REQUIRE(c.Counts(m).at("reposted") == 1);
  REQUIRE(c.RepostPage(r1, 0) == std::vector<int64_t>{IdOf(r2)});
  REQUIRE(c.Fsck().at("ok") == true);
}

TEST_CASE("repost: deleting a repost leaves a hole, transferred_count never drops") {
  Cluster c(ClusterOptions{4, "push", 2});
  int64_t a = c.AddUser("alice"), b = c.AddUser("bob");
  int64_t m = c.Post(a, "original");
  int64_t r1 = c.Repost(b, m), r2 = c.Repost(b, m), r3 = c.Repost(b, m);
  c.Delete(b, r2);
  REQUIRE(c.Counts(m).at("reposts") == 2);
  REQUIRE(c.Counts(m).at("reposted") == 3);
  REQUIRE(c.RepostPage(m, 0) == std::vector<int64_t>{r1});
  int64_t r4 = c.Repost(b, m);
  REQUIRE(c.Run("show", {{"msg", r4}}).at("page_index") == 1);
  REQUIRE(c.RepostPage(m, 1) == std::vector<int64_t>{r3, r4});
  REQUIRE(c.Counts(m).at("reposted") == 4);
  REQUIRE(c.User(b).at("msg_count") == 3);
  REQUIRE(c.Fsck().at("ok") == true);
}

TEST_CASE("repost: unknown or deleted messages and unknown users are not_found") {
  Cluster c;
  int64_t a = c.AddUser("alice");
  int64_t m = c.Post(a, "x");
  c.Delete(a, m);
  REQUIRE(c.CodeOf("repost", {{"user", a}, {"msg", m}}) == Code::kNotFound);
  REQUIRE(c.CodeOf("repost", {{"user", a}, {"msg", "12345"}}) == Code::kNotFound);
  int64_t live = c.Post(a, "y");
  REQUIRE(c.CodeOf("repost", {{"user", 7}, {"msg", live}}) == Code::kNotFound);
  REQUIRE(c.CodeOf("repost", {{"user", a}, {"msg", "abc"}}) == Code::kInvalidArgument);
  REQUIRE(c.CodeOf("repost", {{"user", a}, {"msg", live}, {"content", std::string(141, 'x')}}) ==
          Code::kContentTooLong);
  REQUIRE(c.Counts(live).at("reposted") == 0);
}

TEST_CASE("repost fans out like a post, the reposted message's author is not told") {
  std::string feed = GENERATE("push", "pull", "hybrid");
  Cluster c(ClusterOptions{4, feed});
  int64_t a = c.AddUser("alice"), b = c.AddUser("bob"), f = c.AddUser("fan");
  c.Follow(f, b);
  int64_t m = c.Post(a, "original");
  int64_t r = c.Repost(b, m, "look");
  REQUIRE(c.TimelineIds(f) == std::vector<int64_t>{r});
  Json item = c.Timeline(f)[0];
  REQUIRE(item.at("root").at("id") == std::to_string(m));
  REQUIRE(c.TimelineIds(a) == std::vector<int64_t>{m});
  REQUIRE(c.TimelineIds(b) == std::vector<int64_t>{r});
}

}  // namespace
}  // namespace weibo
