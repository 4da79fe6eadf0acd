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

// A server's cluster (group commit on: it holds counter deltas back and merges them) with
// alice's message and `likers` users to like it.
struct HotMessage {
  static ClusterOptions ServerOptions() {
    ClusterOptions options;
    options.group_commit = 256;
    return options;
  }
  explicit HotMessage(int likers) {
    int64_t a = c.AddUser("alice");
    for (int i = 0; i < likers; ++i) users.push_back(c.AddUser("u" + std::to_string(i)));
    msg = c.Post(a, "hot");
  }
  ClusterOptions options = ServerOptions();
  Cluster c{options, test::MemoryDir()};
  std::vector<int64_t> users;
  int64_t msg = 0;
};

TEST_CASE("like: a server holds its deltas back and applies them merged when idle") {
  HotMessage hot(300);
  Cluster& c = hot.c;
  const std::vector<int64_t>& users = hot.users;
  const int64_t m = hot.msg;
  for (int64_t u : users) c.Run("like", LikeArgs(u, m));
  c.Run("show", {{"msg", std::to_string(m)}});
  Json counts = c.Counts(m);
  REQUIRE(counts.at("likes") == 300);
  REQUIRE(counts.at("views") == 1);
  // Held back until none has come for kDeferredQuietMs and the server is idle, then
  // applied merged: a drain finds nothing left.
  std::this_thread::sleep_for(std::chrono::milliseconds(kDeferredQuietMs + 50));
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

namespace weibo {
namespace {

TEST_CASE("like: held deltas are due after a quiet second, or ten seconds of steady likes") {
  GroupCommit group;
  REQUIRE_FALSE(DeferredJobsDue(group, 1'000'000));  // nothing held
  group.deferred.push_back(JobRef{0, 1});
  group.deferred_since_ms = group.deferred_last_ms = 0;
  REQUIRE_FALSE(DeferredJobsDue(group, kDeferredQuietMs - 1));
  REQUIRE(DeferredJobsDue(group, kDeferredQuietMs));  // a lone like: a second later
  // A like every 100 ms: never quiet, so applied once the oldest is kDeferredHoldMs old —
  // 1000 likes at 100 a second are two UPDATEs, not ten.
  for (int64_t t = 0; t < kDeferredHoldMs; t += 100) {
    group.deferred_last_ms = t;
    REQUIRE_FALSE(DeferredJobsDue(group, t + 99));
  }
  REQUIRE(DeferredJobsDue(group, kDeferredHoldMs));
  group.deferred_since_ms = group.deferred_last_ms = 0;
  group.deferred.resize(kMaxDeferred);  // a bounded outbox: applied at once
  REQUIRE(DeferredJobsDue(group, 0));
}

TEST_CASE("like: a server's likes stay held through its drain passes, then one UPDATE") {
  HotMessage hot(200);
  Cluster& c = hot.c;
  const ClusterOptions& options = hot.options;
  const std::vector<int64_t>& users = hot.users;
  const int64_t m = hot.msg;
  c.Run("drain", Json::object());
  // The rows UPDATE statements change in msg_counter, counted by a trigger in each shard
  // file (as weibo-bench counters does): every UPDATE of the library names one message.
  auto shard_path = [&](int s) {
    return c.dir() + "/shard-" + std::string(s < 10 ? "0" : "") + std::to_string(s) + ".db";
  };
  for (int s = 0; s < options.shards; ++s)
    test::RawDb(shard_path(s))
        .Exec(
            "CREATE TABLE counted(n INTEGER NOT NULL); INSERT INTO counted VALUES (0);"
            "CREATE TRIGGER count_updates AFTER UPDATE ON msg_counter"
            " BEGIN UPDATE counted SET n = n + 1; END;");
  auto updates = [&] {
    int64_t n = 0;
    for (int s = 0; s < options.shards; ++s)
      n += test::RawDb(shard_path(s)).Int("SELECT n FROM counted");
    return n;
  };
  for (size_t i = 0; i < users.size(); ++i) {
    c.Run("like", LikeArgs(users[i], m));
    // weibod's periodic pass (DrainPending): it leaves the held deltas to merge.
    if (i % 20 == 19) c.Run("drain", {{"keep_held", true}});
  }
  const int64_t during = updates();
  INFO("UPDATE msg_counter while the likes came: " << during);
  REQUIRE(during <= 1);                     // none, unless this took kDeferredHoldMs
  REQUIRE(c.Counts(m).at("likes") == 200);  // every reader counts them meanwhile
  c.Run("drain", Json::object());           // a drain request applies them, merged
  REQUIRE(updates() == during + 1);
  REQUIRE(c.Counts(m).at("likes") == 200);
  REQUIRE(c.Fsck().at("ok") == true);
}

}  // namespace
}  // namespace weibo
