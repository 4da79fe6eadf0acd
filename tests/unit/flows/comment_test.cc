// flows/comment.cc and flows/refs.cc: A comments on msg_b (SPEC §4.4-4.5): fixed
// page_index, commented_count (only grows) and comment_count (kept), no fan-out.
#include <algorithm>

#include "test_support.h"

namespace weibo {
namespace {

using test::Cluster;
using test::ClusterOptions;
using test::IdOf;

TEST_CASE("comment: the n-th comment gets page_index (n - 1) / page_size (page_size 2)") {
  Cluster c(ClusterOptions{4, "push", 2});
  int64_t a = c.AddUser("alice"), b = c.AddUser("bob");
  int64_t m = c.Post(a, "original");
  std::vector<int64_t> comments;
  for (int n = 1; n <= 7; ++n) {
    Json r = c.Run("comment", {{"user", n % 2 ? b : a},
                               {"msg", std::to_string(m)},
                               {"content", "c" + std::to_string(n)}});
    INFO("comment " << n);
    REQUIRE(r.at("type") == "comment");
    REQUIRE(r.at("page_index") == (n - 1) / 2);
    REQUIRE(r.at("ref") == Json{{"id", std::to_string(m)}, {"user_id", "1"}});
    REQUIRE(r.at("root").at("id") == std::to_string(m));
    REQUIRE(r.at("root").at("counts").at("commented") == n);
    comments.push_back(IdOf(r));
  }
  REQUIRE(c.Counts(m) == Json{{"comments", 7},
                              {"commented", 7},
                              {"reposts", 0},
                              {"reposted", 0},
                              {"likes", 0},
                              {"views", 0}});
  REQUIRE(c.CommentPage(m, 0) == std::vector<int64_t>{comments[0], comments[1]});
  REQUIRE(c.CommentPage(m, 1) == std::vector<int64_t>{comments[2], comments[3]});
  REQUIRE(c.CommentPage(m, 2) == std::vector<int64_t>{comments[4], comments[5]});
  REQUIRE(c.CommentPage(m, 3) == std::vector<int64_t>{comments[6]});
  REQUIRE(c.RepostPage(m, 0).empty());
  REQUIRE(c.User(b).at("msg_count") == 4);
  REQUIRE(c.User(a).at("msg_count") == 4);
  REQUIRE(c.Fsck().at("ok") == true);
}

TEST_CASE("comment: deleted comments leave holes, commented_count never drops") {
  Cluster c(ClusterOptions{4, "push", 2});
  int64_t a = c.AddUser("alice"), b = c.AddUser("bob");
  int64_t m = c.Post(a, "original");
  std::vector<int64_t> cs;
  for (int n = 1; n <= 5; ++n) cs.push_back(c.Comment(b, m, "c" + std::to_string(n)));
  c.Delete(b, cs[2]);  // the 3rd: page 1 keeps only the 4th
  c.Delete(b, cs[4]);  // the 5th: page 2 is empty now
  REQUIRE(c.Counts(m).at("comments") == 3);
  REQUIRE(c.Counts(m).at("commented") == 5);
  REQUIRE(c.CommentPage(m, 0) == std::vector<int64_t>{cs[0], cs[1]});
  REQUIRE(c.CommentPage(m, 1) == std::vector<int64_t>{cs[3]});
  REQUIRE(c.CommentPage(m, 2).empty());
  // The 6th comment ever made goes to page 2, not into a hole.
  Json sixth = c.Run("comment", {{"user", b}, {"msg", m}, {"content", "c6"}});
  REQUIRE(sixth.at("page_index") == 2);
  int64_t seventh = c.Comment(b, m, "c7");
  REQUIRE(c.Run("show", {{"msg", seventh}}).at("page_index") == 3);
  REQUIRE(c.CommentPage(m, 2) == std::vector<int64_t>{IdOf(sixth)});
  REQUIRE(c.CommentPage(m, 3) == std::vector<int64_t>{seventh});
  REQUIRE(c.Counts(m).at("comments") == 5);
  REQUIRE(c.Counts(m).at("commented") == 7);
  // No comment ever changed page.
  REQUIRE(c.Run("show", {{"msg", cs[3]}}).at("page_index") == 1);
  REQUIRE(c.Fsck().at("ok") == true);
}

TEST_CASE("comment: comments do not fan out") {
  std::string feed = GENERATE("push", "pull", "hybrid");
  Cluster c(ClusterOptions{4, feed});
  int64_t a = c.AddUser("alice"), b = c.AddUser("bob"), f = c.AddUser("fan");
  c.Follow(f, b);
  c.Follow(f, a);
  int64_t m = c.Post(a, "original");
  c.Comment(b, m, "a comment");
  REQUIRE(c.TimelineIds(f) == std::vector<int64_t>{m});
  REQUIRE(c.Run("timeline", {{"user", b}, {"posts", true}}).empty());
  REQUIRE(c.Fsck().at("ok") == true);
}

TEST_CASE("comment on a comment: ref is the comment, root the original") {
  Cluster c;
  int64_t a = c.AddUser("alice"), b = c.AddUser("bob");
  int64_t m = c.Post(a, "original");
  int64_t c1 = c.Comment(b, m, "first");
  Json reply = c.Run("comment", {{"user", a}, {"msg", c1}, {"content", "reply"}});
  REQUIRE(reply.at("ref").at("id") == std::to_string(c1));
  REQUIRE(reply.at("ref").at("user_id") == "2");
  REQUIRE(reply.at("root").at("id") == std::to_string(m));
  REQUIRE(c.Counts(c1).at("comments") == 1);
  REQUIRE(c.Counts(m).at("comments") == 1);
  REQUIRE(c.CommentPage(c1, 0) == std::vector<int64_t>{IdOf(reply)});
}

TEST_CASE("comment: errors") {
  Cluster c;
  int64_t a = c.AddUser("alice");
  int64_t m = c.Post(a, "x");
  REQUIRE(c.CodeOf("comment", {{"user", a}, {"msg", m}}) == Code::kInvalidRequest);
  REQUIRE(c.CodeOf("comment", {{"user", a}, {"msg", m}, {"content", ""}}) ==
          Code::kInvalidArgument);
  REQUIRE(c.CodeOf("comment", {{"user", a}, {"msg", m}, {"content", std::string(141, 'y')}}) ==
          Code::kContentTooLong);
  REQUIRE(c.CodeOf("comment", {{"user", a}, {"msg", m + 256}, {"content", "z"}}) ==
          Code::kNotFound);
  REQUIRE(c.CodeOf("comment", {{"user", 42}, {"msg", m}, {"content", "z"}}) == Code::kNotFound);
  REQUIRE(c.Counts(m).at("commented") == 0);
  REQUIRE(c.User(a).at("msg_count") == 1);
}

TEST_CASE("comment: concurrent-looking bursts from many users number pages without gaps") {
  Cluster c(ClusterOptions{8, "hybrid", 3});
  int64_t a = c.AddUser("alice");
  int64_t m = c.Post(a, "popular");
  std::vector<int64_t> users;
  for (int i = 0; i < 6; ++i) users.push_back(c.AddUser("u" + std::to_string(i)));
  std::vector<int64_t> cs;
  for (int n = 0; n < 20; ++n) cs.push_back(c.Comment(users[n % 6], m, "n" + std::to_string(n)));
  for (int page = 0; page * 3 < 20; ++page) {
    std::vector<int64_t> want(cs.begin() + page * 3, cs.begin() + std::min(20, page * 3 + 3));
    std::vector<int64_t> got = c.CommentPage(m, page);
    std::sort(want.begin(), want.end());
    std::sort(got.begin(), got.end());
    REQUIRE(got == want);
  }
}

}  // namespace
}  // namespace weibo
