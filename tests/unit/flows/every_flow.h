// Every message flow once, over a cluster of 4 shards, and what each must then read back:
// shared by the strategy tests (placement_test.cc, tid_strategy_test.cc), which check the
// same reads under uid-mapping and tid after their own placement checks.
#ifndef WEIBO_TESTS_UNIT_FLOWS_EVERY_FLOW_H_
#define WEIBO_TESTS_UNIT_FLOWS_EVERY_FLOW_H_

#include <string>
#include <vector>

#include "test_support.h"

namespace weibo::test {

// alice posts 12 times, followed by bob and dora; bob comments on post 0, dora reposts post
// 1, bob likes post 2, alice edits post 3 and deletes post 4.
struct EveryFlow {
  int64_t a = 0, b = 0, d = 0;
  std::vector<int64_t> posts;
  int64_t com = 0, rep = 0;
};

inline EveryFlow RunEveryFlow(Cluster& c) {
  EveryFlow f;
  f.a = c.AddUser("alice");
  f.b = c.AddUser("bob");
  f.d = c.AddUser("dora");
  c.Follow(f.b, f.a);
  c.Follow(f.d, f.a);
  for (int i = 0; i < 12; ++i) f.posts.push_back(c.Post(f.a, "alice " + std::to_string(i)));
  f.com = c.Comment(f.b, f.posts[0], "bob comments");
  f.rep = c.Repost(f.d, f.posts[1], "dora reposts");
  c.Run("like", {{"user", f.b}, {"msg", std::to_string(f.posts[2])}});
  c.Run("edit", {{"user", f.a}, {"msg", std::to_string(f.posts[3])}, {"content", "edited"}});
  c.Delete(f.a, f.posts[4]);
  return f;
}

// Reads by id, counters, timelines, a comment page and fsck, as the flows left them.
inline void CheckEveryFlow(Cluster& c, const EveryFlow& f) {
  Json shown = c.Run("show", {{"msg", std::to_string(f.posts[2])}});
  REQUIRE(shown.at("content") == "alice 2");
  REQUIRE(shown.at("counts").at("likes") == 1);
  REQUIRE(c.Counts(f.posts[0]).at("comments") == 1);
  REQUIRE(c.Counts(f.posts[1]).at("reposts") == 1);
  REQUIRE(c.Run("show", {{"msg", std::to_string(f.posts[3])}}).at("content") == "edited");
  REQUIRE(c.CodeOf("show", {{"msg", std::to_string(f.posts[4])}}) == Code::kNotFound);
  auto home = c.TimelineIds(f.b, {{"count", 50}});
  REQUIRE(home.size() == 12);      // alice's 12 minus the deleted one, and bob's own comment
  REQUIRE(home.front() == f.com);  // made last
  REQUIRE(home[1] == f.posts.back());
  REQUIRE(c.TimelineIds(f.a, {{"posts", true}, {"count", 50}}).size() == 11);
  REQUIRE(c.CommentPage(f.posts[0], 0) == std::vector<int64_t>{f.com});
  Json report = c.Fsck();
  INFO(report.dump());
  REQUIRE(report.at("ok") == true);
}

}  // namespace weibo::test

#endif  // WEIBO_TESTS_UNIT_FLOWS_EVERY_FLOW_H_
