// flows/delete.cc: delete by the author, or a comment by the owner of the message it
// comments on (SPEC §4.6); what stays and what is never shown again.
#include "test_support.h"

namespace weibo {
namespace {

using test::Cluster;
using test::ClusterOptions;
using test::RawDb;

TEST_CASE("delete: only the author may delete an original or a repost") {
  Cluster c;
  int64_t a = c.AddUser("alice"), b = c.AddUser("bob"), d = c.AddUser("dora");
  int64_t m = c.Post(a, "mine");
  int64_t r = c.Repost(b, m);
  Status s = c.Fail("delete", {{"user", b}, {"msg", std::to_string(m)}});
  REQUIRE(s.code() == Code::kForbidden);
  REQUIRE(c.CodeOf("delete", {{"user", d}, {"msg", m}}) == Code::kForbidden);
  // The owner of a reposted message may not delete the repost.
  REQUIRE(c.CodeOf("delete", {{"user", a}, {"msg", r}}) == Code::kForbidden);
  REQUIRE(c.Run("delete", {{"user", b}, {"msg", r}}) ==
          Json{{"id", std::to_string(r)}, {"deleted", true}});
  REQUIRE(c.Run("delete", {{"user", "@alice"}, {"msg", m}}) ==
          Json{{"id", std::to_string(m)}, {"deleted", true}});
  REQUIRE(c.User(a).at("msg_count") == 0);
  REQUIRE(c.User(b).at("msg_count") == 0);
}

TEST_CASE("delete: a comment by its author or by the owner of the commented message") {
  Cluster c;
  int64_t a = c.AddUser("alice"), b = c.AddUser("bob"), d = c.AddUser("dora");
  int64_t m = c.Post(a, "mine");
  int64_t c1 = c.Comment(b, m, "by bob");
  int64_t c2 = c.Comment(b, m, "by bob again");
  int64_t reply = c.Comment(d, c1, "dora replies to bob's comment");
  REQUIRE(c.CodeOf("delete", {{"user", d}, {"msg", c1}}) == Code::kForbidden);
  // alice owns m, not c1: she may not delete a reply to a comment on her post.
  REQUIRE(c.CodeOf("delete", {{"user", a}, {"msg", reply}}) == Code::kForbidden);
  c.Delete(a, c1);     // the owner of the commented message
  c.Delete(b, c2);     // the comment's author
  c.Delete(b, reply);  // bob owns c1, which reply comments on
  REQUIRE(c.User(b).at("msg_count") == 0);
  REQUIRE(c.User(d).at("msg_count") == 0);
  REQUIRE(c.User(a).at("msg_count") == 1);
  REQUIRE(c.Counts(m).at("comments") == 0);
  REQUIRE(c.Counts(m).at("commented") == 2);
  REQUIRE(c.Fsck().at("ok") == true);
}

TEST_CASE("delete: a deleted message is gone for show, count, delete, comment, repost") {
  Cluster c;
  int64_t a = c.AddUser("alice");
  int64_t m = c.Post(a, "short-lived");
  c.Delete(a, m);
  REQUIRE(c.CodeOf("show", {{"msg", m}}) == Code::kNotFound);
  REQUIRE(c.CodeOf("count", {{"msgs", Json::array({m})}}) == Code::kNotFound);
  REQUIRE(c.CodeOf("delete", {{"user", a}, {"msg", m}}) == Code::kNotFound);
  REQUIRE(c.CodeOf("comment", {{"user", a}, {"msg", m}, {"content", "x"}}) == Code::kNotFound);
  REQUIRE(c.CodeOf("repost", {{"user", a}, {"msg", m}}) == Code::kNotFound);
  REQUIRE(c.CodeOf("comments", {{"msg", m}}) == Code::kNotFound);
  REQUIRE(c.TimelineIds(a).empty());
  REQUIRE(c.Run("timeline", {{"user", a}, {"posts", true}}).empty());
  REQUIRE(c.CodeOf("delete", {{"user", a}, {"msg", 987654321}}) == Code::kNotFound);
  REQUIRE(c.CodeOf("delete", {{"user", 99}, {"msg", m}}) == Code::kNotFound);
  REQUIRE(c.Fsck().at("ok") == true);
}

TEST_CASE("delete: comments and reposts of a deleted message stay and show it as deleted") {
  Cluster c(ClusterOptions{4, "push", 2});
  int64_t a = c.AddUser("alice"), b = c.AddUser("bob");
  int64_t m = c.Post(a, "original");
  int64_t c1 = c.Comment(b, m, "a comment");
  int64_t r1 = c.Repost(b, m, "a repost");
  c.Delete(a, m);
  Json deleted_root{{"id", std::to_string(m)}, {"deleted", true}};
  Json comment = c.Run("show", {{"msg", c1}});
  REQUIRE(comment.at("root") == deleted_root);
  REQUIRE(comment.at("ref").at("id") == std::to_string(m));
  REQUIRE(comment.at("page_index") == 0);
  Json repost = c.Run("show", {{"msg", r1}});
  REQUIRE(repost.at("root") == deleted_root);
  // The comments of a deleted message can still be listed.
  REQUIRE(c.CommentPage(m, 0) == std::vector<int64_t>{c1});
  REQUIRE(c.RepostPage(m, 0) == std::vector<int64_t>{r1});
  Json tl = c.Timeline(b);
  REQUIRE(test::IdsOf(tl) == std::vector<int64_t>{r1, c1});
  REQUIRE(tl[0].at("root") == deleted_root);
  REQUIRE(c.User(b).at("msg_count") == 2);
  REQUIRE(c.Fsck().at("ok") == true);
}

TEST_CASE("delete in push mode: followers' inbox rows are purged, and never shown meanwhile") {
  Cluster c(ClusterOptions{4, "push"});
  int64_t a = c.AddUser("alice");
  std::vector<int64_t> fans;
  for (int i = 0; i < 6; ++i) {
    fans.push_back(c.AddUser("fan" + std::to_string(i)));
    c.Follow(fans.back(), a);
  }
  int64_t keep = c.Post(a, "keep");
  int64_t gone = c.Post(a, "gone");
  auto rows_of = [&](int64_t msg) {
    int64_t n = 0;
    for (int s = 0; s < 4; ++s)
      n += RawDb(c.ShardPath(s))
               .Int("SELECT count(*) FROM msg_index WHERE msg_id = " + std::to_string(msg));
    return n;
  };
  REQUIRE(rows_of(gone) == 7);
  SECTION("drained: the purge removed every row") {
    c.Delete(a, gone);
    REQUIRE(rows_of(gone) == 0);
  }
  SECTION("--async: rows remain until the purge runs, and are filtered at read time") {
    c.SetDrain(false);
    c.Delete(a, gone);
    REQUIRE(rows_of(gone) == 6);  // the author's own row went with the message
    for (int64_t f : fans) REQUIRE(c.TimelineIds(f) == std::vector<int64_t>{keep});
    c.Fsck(true);
    REQUIRE(rows_of(gone) == 0);
  }
  for (int64_t f : fans) REQUIRE(c.TimelineIds(f) == std::vector<int64_t>{keep});
  REQUIRE(c.TimelineIds(a) == std::vector<int64_t>{keep});
  REQUIRE(c.Fsck().at("ok") == true);
}

}  // namespace
}  // namespace weibo
