// flows/show.cc: show (counts a view), comments / reposts pages, count in one batch.
#include <cstdint>

#include "flows/message.h"
#include "tables/msg_counter.h"
#include "test_support.h"

namespace weibo {
namespace {

using test::Cluster;
using test::ClusterOptions;
using test::IdOf;

TEST_CASE("show: one message, and every show counts a view") {
  Cluster c;
  int64_t a = c.AddUser("alice");
  int64_t m = c.Post(a, "look at me");
  Json first = c.Run("show", {{"msg", std::to_string(m)}});
  REQUIRE(IdOf(first) == m);
  REQUIRE(first.at("content") == "look at me");
  REQUIRE(first.at("user_name") == "alice");
  REQUIRE(first.at("counts").at("views") == 1);
  REQUIRE(c.Run("show", {{"msg", m}}).at("counts").at("views") == 2);
  // count, timeline and comments do not count views.
  REQUIRE(c.Counts(m).at("views") == 2);
  c.Timeline(a);
  c.CommentPage(m, 0);
  REQUIRE(c.Counts(m).at("views") == 2);
}

TEST_CASE("show: unknown and malformed ids") {
  Cluster c;
  int64_t a = c.AddUser("alice");
  int64_t m = c.Post(a, "x");
  REQUIRE(c.CodeOf("show", {{"msg", m + 1}}) == Code::kNotFound);  // another gene
  REQUIRE(c.CodeOf("show", {{"msg", m + 256}}) == Code::kNotFound);
  REQUIRE(c.CodeOf("show", {{"msg", "x"}}) == Code::kInvalidArgument);
  REQUIRE(c.CodeOf("show", {{"msg", 0}}) == Code::kInvalidArgument);
  REQUIRE(c.CodeOf("show", {}) == Code::kInvalidRequest);
  REQUIRE(c.Counts(m).at("views") == 0);
}

TEST_CASE("show: a comment shows its ref, fixed page_index and root") {
  Cluster c(ClusterOptions{4, "push", 2});
  int64_t a = c.AddUser("alice"), b = c.AddUser("bob");
  int64_t m = c.Post(a, "original");
  int64_t c1 = c.Comment(b, m, "one"), c2 = c.Comment(b, m, "two"), c3 = c.Comment(b, m, "three");
  REQUIRE(c.Run("show", {{"msg", c1}}).at("page_index") == 0);
  REQUIRE(c.Run("show", {{"msg", c2}}).at("page_index") == 0);
  Json third = c.Run("show", {{"msg", c3}});
  REQUIRE(third.at("page_index") == 1);
  REQUIRE(third.at("type") == "comment");
  REQUIRE(third.at("ref") == Json{{"id", std::to_string(m)}, {"user_id", "1"}});
  REQUIRE(third.at("root").at("id") == std::to_string(m));
  REQUIRE(third.at("root").at("root").is_null());
}

TEST_CASE("count: all counters of many messages in one call, in the order asked") {
  Cluster c;
  int64_t a = c.AddUser("alice"), b = c.AddUser("bob");
  int64_t m1 = c.Post(a, "one"), m2 = c.Post(b, "two");
  c.Comment(b, m1, "c");
  c.Comment(a, m1, "c");
  c.Repost(a, m2);
  Json r = c.Run("count", {{"msgs", Json::array({std::to_string(m2), std::to_string(m1)})}});
  REQUIRE(r == Json::array({
                   Json{{"id", std::to_string(m2)},
                        {"counts",
                         {{"comments", 0},
                          {"commented", 0},
                          {"reposts", 1},
                          {"reposted", 1},
                          {"likes", 0},
                          {"views", 0}}}},
                   Json{{"id", std::to_string(m1)},
                        {"counts",
                         {{"comments", 2},
                          {"commented", 2},
                          {"reposts", 0},
                          {"reposted", 0},
                          {"likes", 0},
                          {"views", 0}}}},
               }));
  REQUIRE(c.CodeOf("count", {{"msgs", Json::array({m1, m1 + 256 * 1000})}}) == Code::kNotFound);
  REQUIRE(c.CodeOf("count", {{"msgs", Json::array()}}) == Code::kInvalidArgument);
}

TEST_CASE("comments / reposts: unknown messages are not_found, pages of a message") {
  Cluster c(ClusterOptions{4, "pull", 2});
  int64_t a = c.AddUser("alice");
  int64_t m = c.Post(a, "x");
  REQUIRE(c.CodeOf("comments", {{"msg", m + 256}}) == Code::kNotFound);
  REQUIRE(c.CodeOf("reposts", {{"msg", m + 256}}) == Code::kNotFound);
  REQUIRE(c.CommentPage(m, 0).empty());
  REQUIRE(c.RepostPage(m, 0).empty());
  int64_t c1 = c.Comment(a, m, "1");
  int64_t r1 = c.Repost(a, m);
  REQUIRE(c.CommentPage(m, 0) == std::vector<int64_t>{c1});
  REQUIRE(c.RepostPage(m, 0) == std::vector<int64_t>{r1});
  Json page = c.Run("comments", {{"msg", m}});
  REQUIRE(page.size() == 1);
  REQUIRE(page[0].at("content") == "1");
  REQUIRE(page[0].at("page_index") == 0);
}

TEST_CASE("count: an item's text is the dump of its document, at the integers' edges") {
  for (int64_t v : {int64_t{0}, int64_t{1}, int64_t{-1}, INT64_MAX, INT64_MIN}) {
    CounterRow c;
    c.msg_id = v == INT64_MIN ? 1 : v;
    c.comments = v;
    c.commented = 2;
    c.transfers = v / 3;
    c.transferred = 4;
    c.likes = -v / 5;
    c.views = 6;
    Json item = Json::object();
    item["id"] = std::to_string(c.msg_id);
    item["counts"] = CountsJson(c);
    CHECK(CountItemText(c) == item.dump());
  }
}

}  // namespace
}  // namespace weibo
