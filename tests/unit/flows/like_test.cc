// flows/like.cc and the merged counter jobs (jobs.h JobKind::merge, flows/refs.cc
// ApplyRefAdds): likes, their errors, like_count in every view, and deltas merged into one
// UPDATE msg_counter per message when a drain applies them.
#include <chrono>
#include <thread>

#include "jobs/jobs.h"
#include "test_support.h"

namespace weibo {
namespace {

using test::Cluster;
using test::ClusterOptions;
using test::IdOf;

Json LikeArgs(int64_t user, int64_t msg) { return {{"user", user}, {"msg", std::to_string(msg)}}; }

// Runs a drain on a fresh executor with --explain; returns how many UPDATE msg_counter
// statements it ran.
int CounterUpdatesOfDrain(Cluster& c) {
  EmbeddedOptions eo;
  eo.data_dir = c.dir();
  eo.now_ms = test::kNow;
  eo.explain = true;
  auto executor = OpenEmbedded(eo);
  REQUIRE(executor->Execute(Request{"drain"}).ok());
  int updates = 0;
  for (const std::string& line : executor->Explain())
    if (line.find("UPDATE msg_counter") != std::string::npos) ++updates;
  return updates;
}

TEST_CASE("like: at most once per user, counted in every view, unlike takes it back") {
  Cluster c;
  int64_t a = c.AddUser("alice"), b = c.AddUser("bob"), d = c.AddUser("dave");
  int64_t m = c.Post(a, "like me");
  Json liked = c.Run("like", LikeArgs(b, m));
  REQUIRE(IdOf(liked) == m);
  REQUIRE(liked.at("counts").at("likes") == 1);
  c.Run("like", LikeArgs(d, m));
  REQUIRE(c.Counts(m).at("likes") == 2);
  REQUIRE(c.Timeline(a).at(0).at("counts").at("likes") == 2);
  REQUIRE(c.CodeOf("like", LikeArgs(b, m)) == Code::kAlreadyLiked);
  REQUIRE(c.CodeOf("unlike", LikeArgs(a, m)) == Code::kNotLiked);
  Json likes = c.Run("likes", {{"msg", std::to_string(m)}});
  REQUIRE(likes.size() == 2);
  REQUIRE(likes.at(0).at("user_name") == "dave");  // newest first (same time: by user id)
  REQUIRE(c.Run("unlike", LikeArgs(b, m)).at("counts").at("likes") == 1);
  REQUIRE(c.Run("likes", {{"msg", std::to_string(m)}}).size() == 1);
  REQUIRE(c.Fsck().at("ok") == true);
}

TEST_CASE("like: unknown users and messages, deleted messages") {
  Cluster c;
  int64_t a = c.AddUser("alice"), b = c.AddUser("bob");
  int64_t m = c.Post(a, "x");
  REQUIRE(c.CodeOf("like", LikeArgs(99, m)) == Code::kNotFound);
  REQUIRE(c.CodeOf("like", {{"user", "@nobody"}, {"msg", std::to_string(m)}}) == Code::kNotFound);
  REQUIRE(c.CodeOf("like", LikeArgs(b, m + 256)) == Code::kNotFound);
  REQUIRE(c.CodeOf("likes", {{"msg", std::to_string(m + 256)}}) == Code::kNotFound);
  c.Run("like", LikeArgs(b, m));
  c.Delete(a, m);
  REQUIRE(c.CodeOf("like", LikeArgs(a, m)) == Code::kNotFound);
  REQUIRE(c.CodeOf("unlike", LikeArgs(b, m)) == Code::kNotFound);
  REQUIRE(c.Fsck().at("ok") == true);  // the like rows went with the message
}

TEST_CASE("like: 1000 likes left pending are counted at once and drained in few UPDATEs") {
  Cluster c(ClusterOptions{2, "push", 20}, test::MemoryDir());
  int64_t a = c.AddUser("alice");
  std::vector<int64_t> users;
  for (int i = 0; i < 1000; ++i) users.push_back(c.AddUser("u" + std::to_string(i)));
  int64_t m = c.Post(a, "hot");
  c.SetDrain(false);
  for (int64_t u : users) c.Run("like", LikeArgs(u, m));
  REQUIRE(c.Counts(m).at("likes") == 1000);  // pending, and counted by every reader
  REQUIRE(c.Fsck().at("ok") == false);       // the pending jobs are reported
  int updates = CounterUpdatesOfDrain(c);
  INFO("UPDATE msg_counter statements: " << updates);
  REQUIRE(updates >= 1);
  REQUIRE(updates <= 10);
  c.SetDrain(true);
  REQUIRE(c.Counts(m).at("likes") == 1000);
  REQUIRE(c.Run("likes", {{"msg", std::to_string(m)}}).size() == 20);
  REQUIRE(c.Fsck().at("ok") == true);
}

TEST_CASE("like: a server holds its deltas back and applies them merged when idle") {
  ClusterOptions options;
  options.group_commit = 256;
  Cluster c(options, test::MemoryDir());
  int64_t a = c.AddUser("alice");
  std::vector<int64_t> users;
  for (int i = 0; i < 300; ++i) users.push_back(c.AddUser("u" + std::to_string(i)));
  int64_t m = c.Post(a, "hot");
  for (int64_t u : users) c.Run("like", LikeArgs(u, m));
  c.Run("show", {{"msg", std::to_string(m)}});
  Json counts = c.Counts(m);
  REQUIRE(counts.at("likes") == 300);
  REQUIRE(counts.at("views") == 1);
  // Held back until they are kDeferredHoldMs old and the server is idle, then applied
  // merged: a drain finds nothing left.
  std::this_thread::sleep_for(std::chrono::milliseconds(kDeferredHoldMs + 50));
  c.executor().Idle();
  REQUIRE(CounterUpdatesOfDrain(c) == 0);
  REQUIRE(c.Counts(m).at("likes") == 300);
  REQUIRE(c.Fsck().at("ok") == true);
}

TEST_CASE("ref_add jobs merge: three reposts drained together are one +3, pages in order") {
  Cluster c(ClusterOptions{1, "push", 2});
  int64_t a = c.AddUser("alice"), b = c.AddUser("bob");
  int64_t m = c.Post(a, "original");
  c.SetDrain(false);
  std::vector<int64_t> reposts;
  for (int i = 0; i < 3; ++i) reposts.push_back(c.Repost(b, m, "r" + std::to_string(i)));
  REQUIRE(CounterUpdatesOfDrain(c) == 1);
  c.SetDrain(true);
  Json counts = c.Counts(m);
  REQUIRE(counts.at("reposts") == 3);
  REQUIRE(counts.at("reposted") == 3);
  for (int i = 0; i < 3; ++i)
    REQUIRE(c.Run("show", {{"msg", std::to_string(reposts[i])}}).at("page_index") == i / 2);
  REQUIRE(c.Fsck().at("ok") == true);
}

}  // namespace
}  // namespace weibo
