// jobs/jobs.cc: outbox jobs are applied idempotently (SPEC §5). A job applied twice — the
// source's "done" mark (the deletion of its row) lost in a crash, simulated by inserting
// the row again with raw SQL — changes nothing the second time; every handler is
// idempotent even without its job_applied mark (a plain deliver job never has one: it is
// idempotent by itself); and a cluster driven by jobs applied this way ends exactly where a
// cluster that drained each write ends.
#include "jobs/jobs.h"

#include <sqlite3.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <set>
#include <thread>

#include "flows/flows.h"
#include "jobs/context.h"
#include "storage/failure.h"
#include "storage/shard.h"
#include "storage/shard_set.h"
#include "tables/active_fan.h"
#include "tables/outbox.h"
#include "test_support.h"
#include "weibo/storage.h"

namespace weibo {
namespace {

// text as an SQL string literal, quotes and all (SQLite's %Q).
std::string Quoted(const std::string& text) {
  char* literal = sqlite3_mprintf("%Q", text.c_str());
  std::string out(literal);
  sqlite3_free(literal);
  return out;
}

using test::Cluster;
using test::ClusterOptions;
using test::DumpCluster;
using test::RawDb;

enum class Replay { kResetState, kForgetApplied };

// Applies every pending job of the cluster, each one twice. Returns the kinds applied.
std::vector<std::string> ApplyAllTwice(Cluster& c, Replay replay) {
  ShardSet set(c.dir(), nullptr);
  Context ctx(set, Clock(test::kNow));
  std::vector<std::string> kinds;
  for (int round = 0; round < 20; ++round) {
    bool any = false;
    for (int s = 0; s < c.shards(); ++s) {
      for (const JobRow& row : PendingJobs(set.At(s), 1000)) {
        any = true;
        kinds.push_back(row.kind);
        INFO("job " << row.kind << " " << row.payload);
        REQUIRE(ApplyJob(ctx, row));
        JobRow done;
        REQUIRE_FALSE(GetJob(set.At(s), row.local_id, &done));  // done: its row deleted
        std::string once = DumpCluster(c.dir(), c.shards(), replay == Replay::kResetState);
        {
          // The deletion lost (a power cut): the job is back, pending.
          RawDb raw(c.ShardPath(s));
          raw.Exec(
              "INSERT INTO outbox(job_id, target_shard, kind, payload, created, state) "
              "VALUES(" +
              std::to_string(row.local_id) + ", " + std::to_string(row.target_shard) + ", '" +
              row.kind + "', " + Quoted(row.payload) + ", " + std::to_string(row.created) + ", 0)");
          if (replay == Replay::kForgetApplied) {
            RawDb target(c.ShardPath(row.target_shard));
            target.Exec("DELETE FROM job_applied WHERE job_id = " +
                        std::to_string(row.global_id()));
          }
        }
        JobRow again;
        REQUIRE(GetJob(set.At(s), row.local_id, &again));
        REQUIRE(again.state == 0);
        REQUIRE(ApplyJob(ctx, again) ==
                (replay == Replay::kForgetApplied || SelfIdempotentJob(again)));
        REQUIRE(DumpCluster(c.dir(), c.shards(), replay == Replay::kResetState) == once);
      }
    }
    ctx.created_jobs().clear();
    if (!any) break;
  }
  for (int s = 0; s < c.shards(); ++s) REQUIRE(CountJobs(set.At(s), 0) == 0);
  return kinds;
}

// The same writes, given as steps so they can run with and without draining.
void Scenario(Cluster& c, const std::function<void()>& settle) {
  for (const char* name : {"alice", "bob", "carol", "dave"}) {
    c.AddUser(name);
    settle();
  }
  c.TimelineIds(1);  // alice reads: in hybrid her follows put her on active lists
  settle();
  const std::pair<int, int> follows[] = {{2, 1}, {3, 1}, {4, 1}, {1, 2}, {3, 2}};
  for (auto [u, t] : follows) {
    c.Follow(u, t);
    settle();
  }
  int64_t m = c.Post(1, "alice posts");
  settle();
  int64_t n = c.Post(2, "bob posts");
  settle();
  c.Follow(4, 2);  // merges bob's post into dave's inbox
  settle();
  int64_t c1 = c.Comment(2, m, "bob comments");
  settle();
  c.Comment(3, m, "carol comments");
  settle();
  c.Comment(4, m, "dave comments");
  settle();
  int64_t r = c.Repost(3, m, "carol reposts");
  settle();
  c.Repost(4, r, "dave reposts carol's repost");
  settle();
  c.Delete(1, c1);  // alice deletes bob's comment on her post
  settle();
  c.Delete(2, n);
  settle();
  c.Unfollow(3, 1);
  settle();
  c.Post(1, "alice again");
  settle();
}

TEST_CASE("jobs: with --async, writes leave pending jobs in the outbox") {
  Cluster c(ClusterOptions{4, "push"});
  c.SetDrain(false);
  c.AddUser("alice");
  int64_t pending = 0;
  for (int s = 0; s < 4; ++s)
    pending += RawDb(c.ShardPath(s)).Int("SELECT count(*) FROM outbox WHERE state = 0");
  REQUIRE(pending == 1);
  REQUIRE(c.CodeOf("user_show", {{"user", 1}}) == Code::kNotFound);  // not created yet
  ShardSet set(c.dir(), nullptr);
  Context ctx(set, Clock(test::kNow));
  REQUIRE(DrainAllPending(ctx) == 1);
  REQUIRE(c.User(1).at("name") == "alice");
  REQUIRE(DrainAllPending(ctx) == 0);
}

// A fan-out smaller than tier_fans runs inside the post's transaction (flows/fanout.cc);
// tier_fans 1 makes every push fan-out a fanout job with tiered deliver jobs.
void EveryFanOutAJob(Cluster& c) {
  c.EditConfig([](Json& j) { j["tier_fans"] = 1; });
}

TEST_CASE("jobs: applying a job twice (state reset to pending) changes nothing the second time") {
  std::string feed = GENERATE("push", "hybrid", "pull");
  Cluster c(ClusterOptions{4, feed, 2});
  EveryFanOutAJob(c);
  c.SetDrain(false);
  std::vector<std::string> kinds;
  Scenario(c, [&] {
    auto more = ApplyAllTwice(c, Replay::kResetState);
    kinds.insert(kinds.end(), more.begin(), more.end());
  });
  for (const char* kind : {"user_create", "fan_add", "fan_remove", "ref_add", "ref_remove"})
    REQUIRE(std::count(kinds.begin(), kinds.end(), kind) > 0);
  if (feed == "push") {
    for (const char* kind : {"inbox_merge", "fanout", "deliver", "purge", "undeliver"})
      REQUIRE(std::count(kinds.begin(), kinds.end(), kind) > 0);
  }
  REQUIRE(c.Fsck().at("ok") == true);
  REQUIRE(c.User(1).at("msg_count") == 2);
  REQUIRE(c.User(1).at("fans_count") == 2);
  REQUIRE(c.User(2).at("msg_count") == 0);
  REQUIRE(c.User(3).at("follow_count") == 1);

  // Exactly the state of the same writes drained one by one.
  Cluster drained(ClusterOptions{4, feed, 2});
  EveryFanOutAJob(drained);
  Scenario(drained, [] {});
  REQUIRE(DumpCluster(c.dir(), 4, false) == DumpCluster(drained.dir(), 4, false));
}

TEST_CASE(
    "jobs: every kind applied twice, with a one-row inbox cap and a low celebrity threshold") {
  // The same replay as above where the handlers' other branches run: merges that raise
  // the inbox floor (cap 1) and, in hybrid, an author who becomes pulled (threshold 2).
  std::string feed = GENERATE("push", "hybrid");
  auto config = [](Json& j) {
    j["inbox_cap"] = 1;
    j["celebrity_threshold"] = 2;
    j["tier_fans"] = 1;  // every push fan-out a fanout job (flows/fanout.cc)
  };
  Cluster c(ClusterOptions{4, feed, 2});
  c.EditConfig(config);
  c.SetDrain(false);
  std::vector<std::string> kinds;
  Scenario(c, [&] {
    auto more = ApplyAllTwice(c, Replay::kResetState);
    kinds.insert(kinds.end(), more.begin(), more.end());
  });
  // In hybrid both authors are pulled from their second fan on: no fan-out to replay, and
  // a follow's merge travels as active_merge (flows/active.cc).
  INFO(feed);
  for (const char* kind : {"user_create", "fan_add", "fan_remove", "inbox_merge", "fanout",
                           "deliver", "purge", "undeliver", "ref_add", "ref_remove"}) {
    std::string k = kind;
    bool fanout = k == "fanout" || k == "deliver" || k == "undeliver";
    if (feed == "hybrid" && k == "inbox_merge") k = "active_merge";
    INFO(k);
    if (feed == "push" || !fanout) CHECK(std::count(kinds.begin(), kinds.end(), k) > 0);
  }
  // A reader listed by bob when bob becomes pulled is taken off (flows/active.cc).
  if (feed == "hybrid") CHECK(std::count(kinds.begin(), kinds.end(), "active_drop") > 0);
  if (feed == "push") {
    int64_t floors = 0;  // full merges (cap 1) raised some reader's floor
    for (int s = 0; s < 4; ++s)
      floors += RawDb(c.ShardPath(s)).Int("SELECT count(*) FROM inbox_floor");
    CHECK(floors > 0);
  }
  REQUIRE(c.Fsck().at("ok") == true);
  Cluster drained(ClusterOptions{4, feed, 2});
  drained.EditConfig(config);
  Scenario(drained, [] {});
  REQUIRE(DumpCluster(c.dir(), 4, false) == DumpCluster(drained.dir(), 4, false));
}

TEST_CASE("jobs: every handler is idempotent even when its job_applied mark is lost") {
  std::string feed = GENERATE("push", "pull");
  Cluster c(ClusterOptions{4, feed, 2});
  EveryFanOutAJob(c);
  c.SetDrain(false);
  Scenario(c, [&] { ApplyAllTwice(c, Replay::kForgetApplied); });
  REQUIRE(c.Fsck().at("ok") == true);
  Cluster drained(ClusterOptions{4, feed, 2});
  EveryFanOutAJob(drained);
  Scenario(drained, [] {});
  REQUIRE(DumpCluster(c.dir(), 4, false) == DumpCluster(drained.dir(), 4, false));
}

TEST_CASE("jobs: every kind has a handler, an unknown kind is a storage error") {
  RegisterFlowJobKinds();  // the flows' table (flows/job_kinds.cc), as OpenEmbedded does
  for (const char* kind :
       {"user_create", "fan_add", "fan_remove", "inbox_merge", "fanout", "deliver", "purge",
        "undeliver", "ref_add", "ref_remove", "active_join", "active_merge", "active_drop"}) {
    INFO(kind);
    const JobKind* found = FindJobKind(kind);
    REQUIRE(found != nullptr);
    REQUIRE(found->handler != nullptr);
  }
  REQUIRE(FindJobKind("launch_missiles") == nullptr);
  Cluster c;
  ShardSet set(c.dir(), nullptr);
  Context ctx(set, Clock(test::kNow));
  JobRow row;
  row.kind = "launch_missiles";
  row.payload = "{}";
  REQUIRE(test::FailureCode([&] { ApplyJob(ctx, row); }) == Code::kStorageError);
}

TEST_CASE("jobs: a job's effect and its done mark commit together on one shard") {
  // A job whose source and target are the same shard (fanout on the author's shard) is
  // marked done in the same transaction that applies it.
  Cluster c(ClusterOptions{1, "push"});
  EveryFanOutAJob(c);
  c.AddUser("alice");
  c.AddUser("bob");
  c.Follow(2, 1);
  c.SetDrain(false);
  c.Post(1, "fan me out");
  ShardSet set(c.dir(), nullptr);
  Context ctx(set, Clock(test::kNow));
  std::vector<JobRow> pending;
  for (const JobRow& job : PendingJobs(set.At(0), 10))
    if (job.kind != "search_index") pending.push_back(job);  // the post's other job
  REQUIRE(pending.size() == 1);
  REQUIRE(pending[0].kind == "fanout");
  REQUIRE(pending[0].target_shard == 0);
  REQUIRE(ApplyJob(ctx, pending[0]));
  REQUIRE(CountJobs(set.At(0), 0) == 1);  // the search_index job alone
  RawDb db(c.ShardPath(0));
  REQUIRE(db.Int("SELECT count(*) FROM job_applied WHERE job_id = " +
                 std::to_string(pending[0].global_id())) == 1);
  REQUIRE(db.Int("SELECT count(*) FROM msg_index WHERE user_id = 2") == 1);
}

}  // namespace
}  // namespace weibo

namespace weibo {
namespace {

// Applies the pending jobs of one kind on every shard, and only those: a worker that
// crashed after these and before the rest.
int ApplyPendingOfKind(Cluster& c, const std::string& kind) {
  ShardSet set(c.dir(), nullptr);
  Context ctx(set, Clock(test::kNow));
  int n = 0;
  for (int s = 0; s < c.shards(); ++s)
    for (const JobRow& row : PendingJobs(set.At(s), 1000))
      if (row.kind == kind && ApplyJob(ctx, row)) ++n;
  return n;
}

// Applies every pending job except those of one kind, until none is left: a worker that
// applies jobs out of order. The drains never do (they take each (source, target) pair in
// order), but a stale job can still be applied late, e.g. by a worker that read it as
// pending before a command's drain applied it and what came after it.
void ApplyPendingExcept(Cluster& c, const std::string& stale) {
  ShardSet set(c.dir(), nullptr);
  Context ctx(set, Clock(test::kNow));
  for (bool more = true; more;) {
    more = false;
    for (int s = 0; s < c.shards(); ++s)
      for (const JobRow& row : PendingJobs(set.At(s), 1000))
        if (row.kind != stale && ApplyJob(ctx, row)) more = true;
    ctx.created_jobs().clear();
  }
}

int64_t InboxRows(Cluster& c, int64_t user, int64_t msg) {
  return RawDb(c.ShardPath(static_cast<int>(user % c.shards())))
      .Int("SELECT count(*) FROM msg_index WHERE user_id = " + std::to_string(user) +
           " AND msg_id = " + std::to_string(msg));
}

TEST_CASE(
    "jobs: a delivery left pending by a crash, applied after the post's purge, adds nothing") {
  // The writer of a post is killed in mid fan-out: the fanout job ran and left one deliver
  // job per follower shard pending. The author deletes the post (its purge and undeliver
  // jobs are drained by the delete), and only then does a worker apply the old delivery.
  Cluster c(ClusterOptions{4, "push"});
  EveryFanOutAJob(c);
  int64_t alice = c.AddUser("alice"), bob = c.AddUser("bob");  // shards 1 and 2
  c.Follow(bob, alice);
  c.SetDrain(false);
  int64_t msg = c.Post(alice, "deleted before it reached bob");
  REQUIRE(ApplyPendingOfKind(c, "fanout") == 1);
  REQUIRE(InboxRows(c, bob, msg) == 0);  // the deliver job to bob's shard is pending
  c.Delete(alice, msg);
  ApplyPendingExcept(c, "deliver");  // the purge and its undeliver, before the old delivery
  c.SetDrain(true);
  ShardSet set(c.dir(), nullptr);
  Context ctx(set, Clock(test::kNow));
  REQUIRE(DrainAllPending(ctx) == 1);  // the stale deliver job
  CHECK(InboxRows(c, bob, msg) == 0);
  Json report = c.Fsck();
  INFO(report.dump());
  CHECK(report.at("ok") == true);
  // A later post still reaches bob.
  int64_t next = c.Post(alice, "after");
  CHECK(InboxRows(c, bob, next) == 1);
}

TEST_CASE("jobs: an inbox merge left pending by a crash, applied after a purge, adds nothing") {
  // bob follows alice; the fan_add ran on alice's shard and snapshotted her posts into an
  // inbox_merge job for bob's shard, then the process died. alice deletes the post (the
  // purge reaches bob: his fan row exists), and a worker applies the old merge afterwards.
  Cluster c(ClusterOptions{4, "push"});
  int64_t alice = c.AddUser("alice"), bob = c.AddUser("bob");
  int64_t kept = c.Post(alice, "kept");
  int64_t msg = c.Post(alice, "deleted before the merge reached bob");
  c.SetDrain(false);
  c.Follow(bob, alice);
  REQUIRE(ApplyPendingOfKind(c, "fan_add") == 1);
  c.Delete(alice, msg);
  ApplyPendingExcept(c, "inbox_merge");  // the purge reaches bob before the old merge
  c.SetDrain(true);
  ShardSet set(c.dir(), nullptr);
  Context ctx(set, Clock(test::kNow));
  REQUIRE(DrainAllPending(ctx) == 1);  // the stale inbox_merge job
  CHECK(InboxRows(c, bob, msg) == 0);
  CHECK(InboxRows(c, bob, kept) == 1);
  Json report = c.Fsck();
  INFO(report.dump());
  CHECK(report.at("ok") == true);
}

TEST_CASE(
    "jobs: a ref_add left pending by a crash, applied after its repost's deletion, adds nothing") {
  // bob's repost of alice's message committed, and the process died before the ref_add on
  // alice's shard. bob deletes the repost (its ref_remove finds no relation row yet), and
  // then a worker applies the old ref_add: it must not count or list the deleted repost.
  std::string kind = GENERATE("repost", "comment");
  Cluster c(ClusterOptions{4, "push"});
  int64_t alice = c.AddUser("alice"), bob = c.AddUser("bob");
  int64_t msg = c.Post(alice, "reposted");
  c.SetDrain(false);
  int64_t ref =
      kind == "repost" ? c.Repost(bob, msg, "gone soon") : c.Comment(bob, msg, "gone soon");
  c.Delete(bob, ref);
  ApplyPendingExcept(c, "ref_add");  // the ref_remove before the old ref_add
  c.SetDrain(true);
  ShardSet set(c.dir(), nullptr);
  Context ctx(set, Clock(test::kNow));
  REQUIRE(DrainAllPending(ctx) >= 1);  // the stale ref_add (and the repost's fanout)
  RawDb db(c.ShardPath(static_cast<int>(alice % 4)));
  CHECK(db.Int("SELECT count(*) FROM msg_msg_relation WHERE referenced_msg_id = " +
               std::to_string(msg)) == 0);
  Json counts = c.Counts(msg);
  CHECK(counts.at("reposts") == 0);
  CHECK(counts.at("comments") == 0);
  Json report = c.Fsck();
  INFO(report.dump());
  CHECK(report.at("ok") == true);
  // The next one is counted and listed as usual.
  int64_t next = kind == "repost" ? c.Repost(bob, msg) : c.Comment(bob, msg, "stays");
  CHECK(db.Int("SELECT count(*) FROM msg_msg_relation WHERE reference_msg_id = " +
               std::to_string(next)) == 1);
}

TEST_CASE("jobs: a request's drain applies the older pending jobs of its pairs first") {
  // bob's follow of alice committed and its process died before the fan_add reached
  // alice's shard. bob unfollows: the unfollow's drain must apply the old fan_add before
  // its own fan_remove (same source and target shards), or alice keeps a fan who does not
  // follow her. Before this was so, the cluster crash test found exactly that.
  Cluster c(ClusterOptions{4, "push"});
  int64_t alice = c.AddUser("alice"), bob = c.AddUser("bob");  // shards 1 and 2
  c.SetDrain(false);
  c.Follow(bob, alice);
  c.SetDrain(true);
  c.Unfollow(bob, alice);
  ShardSet set(c.dir(), nullptr);
  for (int s = 0; s < c.shards(); ++s) CHECK(CountJobs(set.At(s), 0) == 0);
  RawDb db(c.ShardPath(static_cast<int>(alice % 4)));
  CHECK(db.Int("SELECT count(*) FROM user_relation WHERE user_id = " + std::to_string(alice) +
               " AND type = 0") == 0);
  CHECK(db.Int("SELECT fans_count FROM user_info WHERE user_id = " + std::to_string(alice)) == 0);
  Json report = c.Fsck();
  INFO(report.dump());
  CHECK(report.at("ok") == true);
}

// Group commit (jobs.cc): a delivery to another shard commits without an fsync; its job
// stays pending until one sync of the target's WAL, then is marked done. Counted apart
// from the posts' search_index jobs, which a group-committing executor holds back
// (GroupCommit::defer_merged) until they are due.
int64_t PendingOfKind(Cluster& c, const std::string& kind) {
  ShardSet set(c.dir(), nullptr);
  int64_t n = 0;
  for (int s = 0; s < c.shards(); ++s)
    for (const JobRow& job : PendingJobs(set.At(s), 1000)) n += job.kind == kind;
  return n;
}
int64_t PendingOnAll(Cluster& c) { return PendingOfKind(c, "deliver"); }
// A server holds a fan-out's deliveries to other shards as parts of its fanout job, which
// stays pending until they are applied and synced (jobs.cc, "held fan-outs").
int64_t HeldFanOuts(Cluster& c) { return PendingOfKind(c, "fanout"); }

// alice on shard 1, and a fan on each of the other shards (and one on hers).
std::vector<int64_t> FansOnEveryShard(Cluster& c, int64_t* alice) {
  *alice = c.AddUser("alice");
  std::vector<int64_t> fans;
  for (int i = 0; i < 4; ++i) {
    fans.push_back(c.AddUser("fan" + std::to_string(i)));
    c.Follow(fans.back(), *alice);
  }
  return fans;
}

TEST_CASE("jobs: group commit shows deliveries at once and marks their jobs done after the sync") {
  ClusterOptions options{4, "push"};
  options.group_commit = 1000;
  Cluster c(options);
  int64_t alice = 0;
  std::vector<int64_t> fans = FansOnEveryShard(c, &alice);
  REQUIRE(PendingOnAll(c) == 0);  // follows are not deferred: their jobs are not deliveries
  int64_t first = c.Post(alice, "one"), second = c.Post(alice, "two");
  for (int64_t fan : fans) CHECK(c.TimelineIds(fan) == std::vector<int64_t>{second, first});
  // The deliveries to the three other shards wait for their sync: two posts, three each,
  // held as parts of the posts' fanout jobs, with no deliver job of their own.
  CHECK(HeldFanOuts(c) == 2);
  CHECK(PendingOnAll(c) == 0);
  c.executor().Idle();
  CHECK(HeldFanOuts(c) == 0);
  CHECK(PendingOnAll(c) == 0);
  for (int64_t fan : fans) CHECK(c.TimelineIds(fan) == std::vector<int64_t>{second, first});
  Json report = c.Fsck();
  INFO(report.dump());
  CHECK(report.at("ok") == true);
}

// A group-committing process holds deliveries to other shards back (GroupCommit::
// held_deliveries): not applied by the post, shown from memory by its home reads, applied
// together when it is idle, before an op that does not keep them held, or once enough
// are held; each still re-checks the follow when it is applied.
int64_t InboxRowsOnDisk(Cluster& c, int64_t user) {
  RawDb db(c.ShardPath(static_cast<int>(user % c.shards())));
  return db.Int("SELECT count(*) FROM msg_index WHERE user_id = " + std::to_string(user));
}

TEST_CASE("jobs: a server holds deliveries back, reads them from memory, applies them together") {
  ClusterOptions options{4, "push"};
  options.group_commit = 1000;
  Cluster c(options);
  int64_t alice = 0;
  std::vector<int64_t> fans = FansOnEveryShard(c, &alice);
  int64_t one = c.Post(alice, "one"), two = c.Post(alice, "two");
  CHECK(HeldFanOuts(c) == 2);  // held: two posts, three other shards each
  CHECK(PendingOnAll(c) == 0);
  for (int64_t fan : fans) {
    // On disk only the fan on alice's shard has them (the post's own transaction).
    CHECK(InboxRowsOnDisk(c, fan) == (fan % 4 == alice % 4 ? 2 : 0));
    CHECK(c.TimelineIds(fan) == std::vector<int64_t>{two, one});
  }
  // A fan on another shard unfollows while the posts' deliveries to him are held: neither
  // the read from memory nor the deliveries applied later show them to him.
  int64_t three = c.Post(alice, "three");
  int64_t gone = fans[0] % 4 != alice % 4 ? fans[0] : fans[1];
  c.Unfollow(gone, alice);
  CHECK(c.TimelineIds(gone).empty());
  // The others read the third post from memory too: the index of held deliveries by
  // reader that the reads above built (GroupCommit::held_readers) has been extended.
  for (int64_t fan : fans)
    if (fan != gone && fan % 4 != alice % 4) {
      CHECK(InboxRowsOnDisk(c, fan) == 0);
      CHECK(c.TimelineIds(fan) == std::vector<int64_t>{three, two, one});
    }
  // An op that does not keep them held (user list) applies them first, without the sync.
  c.Run("user_list");
  CHECK(HeldFanOuts(c) == 3);  // applied, waiting for their sync
  for (int64_t fan : fans)
    if (fan != gone) {
      CHECK(InboxRowsOnDisk(c, fan) == 3);
      CHECK(c.TimelineIds(fan) == std::vector<int64_t>{three, two, one});
    }
  CHECK(InboxRowsOnDisk(c, gone) == 0);
  c.executor().Idle();
  CHECK(HeldFanOuts(c) == 0);
  CHECK(PendingOnAll(c) == 0);
  CHECK(c.TimelineIds(gone).empty());
  Json report = c.Fsck();
  INFO(report.dump());
  CHECK(report.at("ok") == true);
}

// An executor on c's data, explaining, with a server's group commit (0: a command's).
std::unique_ptr<Executor> OpenExplained(Cluster& c, int group_commit) {
  EmbeddedOptions eo;
  eo.data_dir = c.dir();
  eo.now_ms = test::kNow;
  eo.explain = true;
  eo.group_commit = group_commit;
  return OpenEmbedded(eo);
}

// How many lines of executor's explain log (of its last op) contain text.
int ExplainLines(Executor& executor, const std::string& text) {
  int n = 0;
  for (const std::string& line : executor.Explain())
    if (line.find(text) != std::string::npos) ++n;
  return n;
}

// The statements by which a delivery checks its readers against the author's fan rows when
// no fan list read by this process is at hand (flows/fanout.cc, StillFans), in request's.
int FanRowChecks(Executor& executor, const Request& request) {
  REQUIRE(executor.Execute(request).ok());
  return ExplainLines(executor, "type = 0 AND follow_id = j.value");
}

TEST_CASE("jobs: held deliveries check their readers against the fan list their post read") {
  ClusterOptions options{4, "push"};
  Cluster c(options);
  int64_t alice = 0;
  std::vector<int64_t> fans = FansOnEveryShard(c, &alice);
  const Json post{{"user", alice}, {"content", "one"}};
  auto open = [&](int group_commit) { return OpenExplained(c, group_commit); };
  {
    // A server holds the deliveries to the three other shards; the op that applies them
    // (user list) checks their readers against the list the post's fan-out read, in memory.
    auto server = open(1000);
    CHECK(FanRowChecks(*server, Request{"post", post}) == 0);
    CHECK(HeldFanOuts(c) == 1);
    CHECK(FanRowChecks(*server, Request{"user_list", Json::object()}) == 0);
    server->Idle();
  }
  CHECK(HeldFanOuts(c) == 0);
  for (int64_t fan : fans) CHECK(c.TimelineIds(fan).size() == 1);
  // Deliveries left pending by a process that is gone are checked on the author's shard:
  // one statement per target shard.
  Request async_post{"post", post};
  async_post.async = true;
  REQUIRE(c.executor().Execute(async_post).ok());
  auto worker = open(0);
  CHECK(FanRowChecks(*worker, Request{"drain", Json::object()}) == 3);
  for (int64_t fan : fans) CHECK(c.TimelineIds(fan).size() == 2);
  Json report = c.Fsck();
  INFO(report.dump());
  CHECK(report.at("ok") == true);
}

TEST_CASE("jobs: held deliveries are applied from their held copies, again without harm") {
  ClusterOptions options{4, "push"};
  Cluster c(options);
  int64_t alice = 0;
  std::vector<int64_t> fans = FansOnEveryShard(c, &alice);
  auto open = [&](int group_commit) { return OpenExplained(c, group_commit); };
  auto server = open(1000);
  REQUIRE(server->Execute({"post", Json{{"user", alice}, {"content", "one"}}}).ok());
  REQUIRE(HeldFanOuts(c) == 1);
  // The op that applies them reads no job row from an outbox: what it applies is the copy
  // held since the post, payload included.
  REQUIRE(server->Execute({"user_list", Json::object()}).ok());
  CHECK(ExplainLines(*server, "INSERT OR IGNORE INTO msg_index") == 3);
  CHECK(ExplainLines(*server, "payload, created, state FROM outbox") == 0);
  server->Idle();
  CHECK(HeldFanOuts(c) == 0);
  for (int64_t fan : fans) CHECK(c.TimelineIds(fan).size() == 1);
  // A drain by another process applies the held fan-out's job first (the whole fan-out,
  // with deliver jobs of its own), and a reader unfollows: the server's parts, plain
  // deliveries (idempotent by themselves: no job_applied mark), are applied again and add
  // nothing, not even the unfollowed author's post.
  int64_t quitter = 0;  // a fan on another shard than alice's: its delivery is held
  for (int64_t fan : fans)
    if (fan % 4 != alice % 4) quitter = fan;
  REQUIRE(quitter != 0);
  REQUIRE(server->Execute({"post", Json{{"user", alice}, {"content", "two"}}}).ok());
  REQUIRE(HeldFanOuts(c) == 1);
  REQUIRE(open(0)->Execute({"drain", Json::object()}).ok());
  CHECK(HeldFanOuts(c) == 0);
  CHECK(PendingOnAll(c) == 0);
  const std::vector<int64_t> quitter_had = c.TimelineIds(quitter);
  REQUIRE(c.executor().Execute({"unfollow", Json{{"user", quitter}, {"target", alice}}}).ok());
  REQUIRE(server->Execute({"user_list", Json::object()}).ok());
  CHECK(ExplainLines(*server, "INSERT OR IGNORE INTO msg_index") == 3);
  server->Idle();
  CHECK(quitter_had.size() == 2);
  CHECK(c.TimelineIds(quitter).empty());
  for (int64_t fan : fans)
    if (fan != quitter) CHECK(c.TimelineIds(fan).size() == 2);
  Json report = c.Fsck();
  INFO(report.dump());
  CHECK(report.at("ok") == true);
}

TEST_CASE("jobs: group commit defers tiered deliveries too, and marks them done after the sync") {
  ClusterOptions options{4, "push"};
  options.group_commit = 1000;
  Cluster c(options);
  EveryFanOutAJob(c);
  int64_t alice = 0;
  std::vector<int64_t> fans = FansOnEveryShard(c, &alice);
  int64_t post = c.Post(alice, "one");
  for (int64_t fan : fans) CHECK(c.TimelineIds(fan) == std::vector<int64_t>{post});
  // The fanout job holds its tiered deliveries to the three other shards as parts, and stays
  // pending until they are applied and synced; no deliver job is written for them.
  CHECK(HeldFanOuts(c) == 1);
  CHECK(PendingOnAll(c) == 0);
  c.executor().Idle();
  CHECK(HeldFanOuts(c) == 0);
  CHECK(PendingOnAll(c) == 0);
  for (int64_t fan : fans) CHECK(c.TimelineIds(fan) == std::vector<int64_t>{post});
  Json report = c.Fsck();
  INFO(report.dump());
  CHECK(report.at("ok") == true);
}

// A server's group commit syncs the targets' WALs on a thread of its own
// (StartSyncAppliedJobs): the jobs stay pending in their outboxes, and this process's (a
// drain passes over them), until the sync has ended and they are marked done.
TEST_CASE("jobs: a sync on its own thread keeps its jobs pending and ours until it ends") {
  Cluster c(ClusterOptions{4, "push"});
  c.SetDrain(false);
  c.AddUser("alice");
  c.AddUser("bob");
  ShardSet set(c.dir(), nullptr);
  std::vector<JobRow> jobs;
  for (int s = 0; s < 4; ++s)
    for (JobRow& job : PendingJobs(set.At(s), 10)) jobs.push_back(std::move(job));
  REQUIRE(jobs.size() == 2);
  auto pending = [&] {
    size_t n = 0;
    for (int s = 0; s < 4; ++s) n += PendingJobs(set.At(s), 10).size();
    return n;
  };
  // As if applied in transactions not synced yet: the first starts a sync of its own.
  GroupCommit group;
  group.limit = 1;
  group.unsynced.jobs[{jobs[0].source_shard, jobs[0].local_id}] = jobs[0].target_shard;
  group.unsynced.applied = 1;
  StartSyncAppliedJobs(set, group);
  CHECK(group.unsynced.empty());
  REQUIRE(group.syncing.has_value());
  CHECK(group.Unsynced(jobs[0].source_shard, jobs[0].local_id));
  CHECK(group.UnsyncedBelow(jobs[0].source_shard, jobs[0].local_id + 1) == 1);
  CHECK(group.UnsyncedCount() == 1);
  CHECK(pending() == 2);  // not marked done before the sync has ended
  // The next sync ends the first one (and marks its job done) before it starts.
  group.unsynced.jobs[{jobs[1].source_shard, jobs[1].local_id}] = jobs[1].target_shard;
  group.unsynced.applied = 1;
  StartSyncAppliedJobs(set, group);
  CHECK_FALSE(group.Unsynced(jobs[0].source_shard, jobs[0].local_id));
  CHECK(group.Unsynced(jobs[1].source_shard, jobs[1].local_id));
  CHECK(pending() == 1);
  // A synchronous sync (a drain, a closing executor) ends the one in flight first.
  SyncAppliedJobs(set, group);
  CHECK_FALSE(group.syncing.has_value());
  CHECK(group.UnsyncedCount() == 0);
  CHECK(pending() == 0);
  FinishSyncInFlight(set, group);  // nothing in flight: nothing to do
  CHECK(pending() == 0);
}

TEST_CASE("jobs: SyncFile syncs a file, passes over a missing one and reports a failure") {
  test::TempDir dir;
  const std::string path = dir.path() + "/wal";
  CHECK_NOTHROW(SyncFile(path));  // no such file: nothing to sync
  { std::ofstream(path) << "frames"; }
  CHECK_NOTHROW(SyncFile(path));
  // procfs files cannot be synced (EINVAL): a storage error that names the file.
  try {
    SyncFile("/proc/self/status");
    FAIL("no failure");
  } catch (const Failure& f) {
    CHECK(f.status().code() == Code::kStorageError);
    CHECK(f.status().message().find("/proc/self/status") != std::string::npos);
  }
}

TEST_CASE(
    "jobs: group commit applies one target's held deliveries at a time, syncs once enough "
    "have gathered, and all at drain") {
  ClusterOptions options{4, "push"};
  options.group_commit = 5;
  Cluster c(options);
  int64_t alice = 0;
  std::vector<int64_t> fans = FansOnEveryShard(c, &alice);
  std::vector<int64_t> posts;
  // Each post's deliveries to the three other shards are held as parts of its fanout job;
  // on disk, the fans' inbox rows (alice's shard's fan has each post's from its own
  // transaction).
  auto on_disk = [&] {
    std::vector<int64_t> rows;
    for (int64_t fan : fans) rows.push_back(InboxRowsOnDisk(c, fan));
    std::sort(rows.begin(), rows.end());
    return rows;
  };
  posts.insert(posts.begin(), c.Post(alice, "one"));
  CHECK(HeldFanOuts(c) == 1);  // held: one delivery to each other shard
  CHECK(on_disk() == std::vector<int64_t>{0, 0, 0, 1});
  // 6 >= 5 held: the first target's two are applied, in one transaction; the other four
  // stay held.
  posts.insert(posts.begin(), c.Post(alice, "two"));
  CHECK(on_disk() == std::vector<int64_t>{0, 0, 2, 2});
  // 7 held (1, 3, 3): the next target's three are applied (5 applied: synced). No post
  // has all its parts applied yet: the three fanout jobs stay pending.
  posts.insert(posts.begin(), c.Post(alice, "three"));
  CHECK(on_disk() == std::vector<int64_t>{0, 2, 3, 3});
  CHECK(HeldFanOuts(c) == 3);
  CHECK(PendingOnAll(c) == 0);
  for (int64_t fan : fans) CHECK(c.TimelineIds(fan) == posts);
  Json drained = c.Run("drain");
  CHECK(drained.at("pending") == 0);
  CHECK(HeldFanOuts(c) == 0);
  CHECK(PendingOnAll(c) == 0);
  for (int64_t fan : fans) CHECK(c.TimelineIds(fan) == posts);
}

TEST_CASE(
    "jobs: a process that dies before its group commit loses nothing and duplicates nothing") {
  ClusterOptions options{4, "push"};
  Cluster c(options);
  // The fan-out in the post's transaction, or as a fanout job with tiers (the star's path):
  // either way its deliveries to other shards are held as parts of the fanout job.
  const bool as_job = GENERATE(false, true);
  if (as_job) EveryFanOutAJob(c);
  int64_t alice = 0;
  std::vector<int64_t> fans = FansOnEveryShard(c, &alice);
  std::string dir = c.dir();
  pid_t child = fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    // The child posts through a group-committing executor and dies without its sync.
    EmbeddedOptions eo;
    eo.data_dir = dir;
    eo.now_ms = test::kNow;
    eo.group_commit = 1000;
    auto executor = OpenEmbedded(eo);
    bool ok = true;
    for (int i = 0; i < 3; ++i)
      ok = ok && executor->Execute(Request{"post", Json{{"user", alice}, {"content", "x"}}}).ok();
    // The posts' deliveries are held back (GroupCommit::held_deliveries); an op that does
    // not keep them held applies them, without the sync.
    ok = ok && executor->Execute(Request{"user_list", Json::object()}).ok();
    _exit(ok ? 0 : 1);
  }
  int status = 0;
  REQUIRE(waitpid(child, &status, 0) == child);
  REQUIRE(WIFEXITED(status));
  REQUIRE(WEXITSTATUS(status) == 0);
  CHECK(HeldFanOuts(c) == 3);  // applied, never marked done
  {
    // Nor marked applied on alice's shard (a fanout job applied as a job): else the drain
    // below would skip it, and a power cut could have lost its unsynced deliveries.
    RawDb db(c.ShardPath(static_cast<int>(alice % 4)));
    CHECK(db.Int("SELECT count(*) FROM job_applied WHERE job_id IN (SELECT ((" +
                 std::to_string(alice % 4) +
                 ") << 40) | job_id FROM outbox WHERE kind = 'fanout')") == 0);
  }
  CHECK(PendingOnAll(c) == 0);                   // parts: no deliver job of their own
  CHECK(PendingOfKind(c, "search_index") == 3);  // held back to index together, never applied
  for (int64_t fan : fans) CHECK(c.TimelineIds(fan).size() == 3);
  Json drained = c.Run("drain");
  // Each fan-out made again, with a deliver job per other shard (3 + 9), and the search
  // jobs (and with tiers, the later tiers' jobs): the inbox key keeps one row each.
  if (!as_job) CHECK(drained.at("applied") == 15);
  CHECK(drained.at("applied") >= 15);
  CHECK(drained.at("pending") == 0);
  CHECK(HeldFanOuts(c) == 0);
  for (int64_t fan : fans) {
    CHECK(c.TimelineIds(fan).size() == 3);
    CHECK(InboxRowsOnDisk(c, fan) == 3);
  }
  Json report = c.Fsck();
  INFO(report.dump());
  CHECK(report.at("ok") == true);
}

// A server holds the active_join jobs of hybrid home reads (JobKind::held_to_batch) and
// applies many readers' together: until then the reader pulls the authors it has not
// joined, so no page differs; a join re-checks the fan row when applied, so an unfollow
// meanwhile (applied at once, past the held join) leaves no list entry behind.
TEST_CASE("jobs: a server holds first reads' joins, and pages pull until they are applied") {
  ClusterOptions options{4, "hybrid"};
  options.group_commit = 1000;
  Cluster c(options);
  const int64_t reader = c.AddUser("reader");
  std::vector<int64_t> authors, posts;
  std::set<int64_t> author_shards;
  for (int i = 0; i < 4; ++i) {
    authors.push_back(c.AddUser("author" + std::to_string(i)));
    author_shards.insert(authors.back() % 4);
    c.Follow(reader, authors.back());
  }
  for (int64_t author : authors) posts.push_back(c.Post(author, "before"));
  RawDb own(c.ShardPath(static_cast<int>(reader % 4)));
  const std::string who = std::to_string(reader);
  auto active_on = [&] { return own.Int("SELECT count(*) FROM active_on WHERE user_id = " + who); };
  std::vector<int64_t> expected(posts.rbegin(), posts.rend());
  REQUIRE(c.TimelineIds(reader) == expected);  // the first read: its joins are held
  CHECK(PendingOfKind(c, "active_join") == static_cast<int64_t>(author_shards.size()));
  CHECK(active_on() == 0);
  const int64_t later = c.Post(authors[0], "later");  // not pushed to the reader: pulled
  expected.insert(expected.begin(), later);
  CHECK(c.TimelineIds(reader) == expected);
  c.Unfollow(reader, authors[3]);
  expected.erase(std::find(expected.begin(), expected.end(), posts[3]));
  CHECK(c.TimelineIds(reader) == expected);
  CHECK(PendingOfKind(c, "active_join") == static_cast<int64_t>(author_shards.size()));
  c.Run("user_list");  // an op not known to commute with held jobs applies them first
  CHECK(PendingOfKind(c, "active_join") == 0);
  CHECK(active_on() == 3);
  CHECK(own.Int("SELECT count(*) FROM active_on WHERE user_id = " + who +
                " AND author_id = " + std::to_string(authors[3])) == 0);
  CHECK(c.TimelineIds(reader) == expected);
  const int64_t pushed = c.Post(authors[1], "pushed");  // on the list now: pushed
  c.executor().Idle();
  CHECK(own.Int("SELECT count(*) FROM msg_index WHERE user_id = " + who +
                " AND msg_id = " + std::to_string(pushed)) == 1);
  expected.insert(expected.begin(), pushed);
  CHECK(c.TimelineIds(reader) == expected);
  Json report = c.Fsck();
  INFO(report.dump());
  CHECK(report.at("ok") == true);
}

// Without an idle moment (the bench's replay), the batch is applied by the request that
// makes it the kHeldToBatchRequests-th to hold joins since the last one: every reader then
// is on the author's list, and is pushed to.
TEST_CASE("jobs: the reads that hold joins apply them by themselves once enough did") {
  ClusterOptions options{4, "hybrid"};
  options.group_commit = 1000;
  Cluster c(options);
  const int64_t alice = c.AddUser("alice");
  std::vector<int64_t> readers;
  for (size_t i = 0; i < kHeldToBatchRequests; ++i) {
    readers.push_back(c.AddUser("reader" + std::to_string(i)));
    c.Follow(readers.back(), alice);
  }
  const int64_t first = c.Post(alice, "first");
  for (size_t i = 0; i < readers.size(); ++i) {
    CHECK(PendingOfKind(c, "active_join") == static_cast<int64_t>(i));
    REQUIRE(c.TimelineIds(readers[i]) == std::vector<int64_t>{first});
  }
  CHECK(PendingOfKind(c, "active_join") == 0);  // the last read applied all of them
  ShardSet set(c.dir(), nullptr);
  CHECK(ActiveFans(set.At(static_cast<int>(alice % 4)), alice).size() == readers.size());
  const int64_t second = c.Post(alice, "second");
  c.executor().Idle();
  for (int64_t reader : readers) {
    RawDb db(c.ShardPath(static_cast<int>(reader % 4)));
    CHECK(db.Int("SELECT count(*) FROM msg_index WHERE user_id = " + std::to_string(reader) +
                 " AND msg_id = " + std::to_string(second)) == 1);
  }
  Json report = c.Fsck();
  INFO(report.dump());
  CHECK(report.at("ok") == true);
}

// Background applies (jobs.h): with a limit of 4, every second post hands one target's held
// deliveries to the applier, and the 32nd read that holds joins hands them all. Whatever is
// in flight, every read shows what it would show without it, and once idle nothing is
// pending, every inbox and list is complete, and fsck finds nothing.
TEST_CASE("jobs: a background applier takes held batches while reads see every post") {
  ClusterOptions options{4, "hybrid"};
  options.group_commit = 4;
  options.background_applies = true;
  Cluster c(options);
  int64_t alice = 0;
  std::vector<int64_t> fans = FansOnEveryShard(c, &alice);
  std::vector<int64_t> readers;
  for (size_t i = 0; i < kHeldToBatchRequests; ++i) {
    readers.push_back(c.AddUser("reader" + std::to_string(i)));
    c.Follow(readers.back(), alice);
  }
  std::vector<int64_t> posts;
  for (int round = 0; round < 12; ++round) {
    posts.insert(posts.begin(), c.Post(alice, "post " + std::to_string(round)));
    for (int64_t fan : fans) CHECK(c.TimelineIds(fan) == posts);
    for (size_t i = round; i < readers.size(); i += 12) CHECK(c.TimelineIds(readers[i]) == posts);
  }
  for (int64_t reader : readers) CHECK(c.TimelineIds(reader) == posts);
  c.executor().Idle();
  CHECK(PendingOfKind(c, "deliver") == 0);
  CHECK(PendingOfKind(c, "fanout") == 0);
  CHECK(PendingOfKind(c, "active_join") == 0);
  CHECK(PendingOfKind(c, "active_merge") == 0);
  ShardSet set(c.dir(), nullptr);
  CHECK(ActiveFans(set.At(static_cast<int>(alice % 4)), alice).size() ==
        readers.size() + fans.size());
  for (int64_t fan : fans) {
    RawDb db(c.ShardPath(static_cast<int>(fan % 4)));
    CHECK(db.Int("SELECT count(*) FROM msg_index WHERE user_id = " + std::to_string(fan)) ==
          static_cast<int64_t>(posts.size()));
  }
  const int64_t last = c.Post(alice, "pushed to every reader");
  c.executor().Idle();
  for (int64_t reader : readers) {
    RawDb db(c.ShardPath(static_cast<int>(reader % 4)));
    CHECK(db.Int("SELECT count(*) FROM msg_index WHERE user_id = " + std::to_string(reader) +
                 " AND msg_id = " + std::to_string(last)) == 1);
  }
  Json report = c.Fsck();
  INFO(report.dump());
  CHECK(report.at("ok") == true);
}

// A 4-shard push cluster whose server holds its deliveries (no batch by count) and has a
// background applier, and alice's fans, one on every shard.
struct HeldServer {
  static ClusterOptions Options() {
    ClusterOptions options{4, "push"};
    options.group_commit = 1000;
    options.background_applies = true;
    return options;
  }
  HeldServer() : c(Options()) { fans = FansOnEveryShard(c, &alice); }
  // How many inbox rows each fan has on disk, sorted.
  std::vector<int64_t> OnDisk() {
    std::vector<int64_t> rows;
    for (int64_t fan : fans) rows.push_back(InboxRowsOnDisk(c, fan));
    std::sort(rows.begin(), rows.end());
    return rows;
  }
  Cluster c;
  int64_t alice = 0;
  std::vector<int64_t> fans;
};

// A server under steady load ticks (Executor::Tick) instead of going idle: a held batch is
// not applied on the request thread then, but handed to the background applier once its
// oldest job is kHeldMaxAgeMs old, one batch at a time; the group commit's sync starts on
// a thread of its own, and a later tick marks the jobs done.
TEST_CASE("jobs: a tick under load hands old held batches to the applier, never a young one") {
  HeldServer server;
  Cluster& c = server.c;
  const std::vector<int64_t>& fans = server.fans;
  auto on_disk = [&] { return server.OnDisk(); };
  const int64_t post = c.Post(server.alice, "one");
  c.executor().Tick();
  CHECK(on_disk() == std::vector<int64_t>{0, 0, 0, 1});  // held, and young
  CHECK(HeldFanOuts(c) == 1);
  for (int64_t fan : fans) CHECK(c.TimelineIds(fan) == std::vector<int64_t>{post});
  std::this_thread::sleep_for(std::chrono::milliseconds(kHeldMaxAgeMs + 50));
  // Each tick hands one target's, once the last batch has ended; at most a few seconds.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while ((on_disk() != std::vector<int64_t>{1, 1, 1, 1} || HeldFanOuts(c) > 0) &&
         std::chrono::steady_clock::now() < deadline) {
    c.executor().Tick();
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  CHECK(on_disk() == std::vector<int64_t>{1, 1, 1, 1});
  CHECK(HeldFanOuts(c) == 0);  // synced and marked done by ticks alone
  for (int64_t fan : fans) CHECK(c.TimelineIds(fan) == std::vector<int64_t>{post});
  Json report = c.Fsck();
  INFO(report.dump());
  CHECK(report.at("ok") == true);
}

// A server gone quiet for a moment does Idle()'s work in steps (Executor::IdleStep), one
// target's held deliveries a step, and can stop between them when a request arrives: what
// it left is still held (and seen by reads), and the next steps finish it, sync included.
TEST_CASE("jobs: idle steps apply one target's held deliveries at a time, then sync") {
  HeldServer held;
  Cluster& c = held.c;
  const int64_t post = c.Post(held.alice, "one");
  auto applied = [&] {
    std::vector<int64_t> rows = held.OnDisk();
    return std::count(rows.begin(), rows.end(), int64_t{1});
  };
  CHECK(applied() == 1);  // the author's own shard; three targets held
  int steps = 0;
  bool more = true;
  while (more && steps < 1000) {
    const auto before = applied();
    more = c.executor().IdleStep();
    ++steps;
    CHECK(applied() - before <= 1);  // at most one target a step
    if (applied() == 2 && more) {    // stopped here, a read still sees the post
      for (int64_t fan : held.fans) CHECK(c.TimelineIds(fan) == std::vector<int64_t>{post});
    }
  }
  CHECK(steps >= 5);  // the index job, three targets, a sync started (and collected)
  CHECK(steps < 1000);
  CHECK(held.OnDisk() == std::vector<int64_t>{1, 1, 1, 1});
  CHECK(HeldFanOuts(c) == 0);            // synced and marked done
  CHECK_FALSE(c.executor().IdleStep());  // nothing left
  for (int64_t fan : held.fans) CHECK(c.TimelineIds(fan) == std::vector<int64_t>{post});
  Json report = c.Fsck();
  INFO(report.dump());
  CHECK(report.at("ok") == true);
}

// A server with a background applier leaves a long WAL's checkpoint to the applier, after
// the batch it commits to that shard (BackgroundApplier::Apply), rather than to the write
// that finds the WAL long (ops/embedded.cc, Checkpoint): a checkpoint copies megabytes and
// syncs the file, and it was the post's p99. The server's own write checkpoints a shard
// only past twice the length, and when quiet, in an idle step. A checkpoint restarts the
// WAL, which counts its restarts in its header (the checkpoint sequence number,
// sqlite.org/fileformat2.html).
TEST_CASE("jobs: the background applier checkpoints a long WAL, a post only past twice it") {
  HeldServer held;
  Cluster& c = held.c;
  const int64_t length = CheckpointWalBytes(c.shards());
  auto restarts = [&](int shard) {
    std::ifstream wal(c.ShardPath(shard) + "-wal", std::ios::binary);
    unsigned char header[16] = {};
    wal.read(reinterpret_cast<char*>(header), sizeof header);
    return (uint32_t{header[12]} << 24) | (uint32_t{header[13]} << 16) |
           (uint32_t{header[14]} << 8) | uint32_t{header[15]};
  };
  // Another connection writes a row of `bytes` into a shard's WAL, and does not checkpoint.
  auto pad = [&](int shard, int64_t bytes) {
    RawDb db(c.ShardPath(shard));
    db.Exec("PRAGMA wal_autocheckpoint=0");
    db.Exec("CREATE TABLE IF NOT EXISTS pad(b)");
    db.Exec("INSERT INTO pad VALUES (zeroblob(" + std::to_string(bytes) + "))");
  };
  const int own = static_cast<int>(held.alice % c.shards());
  const int target = (own + 1) % c.shards();  // a fan's shard, delivered to by the applier
  pad(own, length + length / 2);
  pad(target, length + length / 2);
  const uint32_t own_before = restarts(own), target_before = restarts(target);
  c.Post(held.alice, "one");  // the author's shard: past the length, not past twice it
  CHECK(restarts(own) == own_before);
  CHECK(restarts(target) == target_before);
  // The applier's batch to the target checkpoints it, after its commit there.
  std::this_thread::sleep_for(std::chrono::milliseconds(kHeldMaxAgeMs + 50));
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while ((restarts(target) == target_before || HeldFanOuts(c) > 0) &&
         std::chrono::steady_clock::now() < deadline) {
    c.executor().Tick();
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  CHECK(held.OnDisk() == std::vector<int64_t>{1, 1, 1, 1});
  CHECK(restarts(target) != target_before);
  CHECK(restarts(own) == own_before);  // no batch of the applier's went there
  // Past twice the length, the server's own write checkpoints the author's shard.
  pad(own, length);
  c.Post(held.alice, "two");
  CHECK(restarts(own) != own_before);
  // Quiet, the server checkpoints a shard whose WAL its own writes left past the length, in
  // one of its idle steps (Executor::IdleStep).
  pad(own, length + length / 2);
  c.Post(held.alice, "three");
  const uint32_t quiet_before = restarts(own);
  int steps = 0;
  while (c.executor().IdleStep() && steps < 1000) ++steps;
  CHECK(steps < 1000);
  CHECK(restarts(own) != quiet_before);
  for (int shard : {own, target}) RawDb(c.ShardPath(shard)).Exec("DROP TABLE pad");
  c.executor().Idle();
  Json report = c.Fsck();
  INFO(report.dump());
  CHECK(report.at("ok") == true);
}

TEST_CASE("jobs: the held set counts a source's jobs below an id as a walk would") {
  GroupCommit group;
  std::set<std::pair<int, int64_t>> naive;
  auto check = [&] {
    for (int source : {0, 1, 2, 3})
      for (int64_t below : {int64_t{0}, int64_t{1}, int64_t{5}, int64_t{6}, int64_t{40},
                            int64_t{41}, int64_t{1000}}) {
        const auto n =
            std::distance(naive.lower_bound({source, 0}), naive.lower_bound({source, below}));
        INFO("source " << source << " below " << below);
        CHECK(group.HeldBelow(source, below) == n);
      }
    CHECK(group.held.size() == naive.size());
  };
  for (auto [source, id] : std::vector<std::pair<int, int64_t>>{
           {1, 5}, {1, 40}, {1, 7}, {2, 1}, {1, 5}, {3, 1000}, {2, 999}}) {
    group.held.emplace(source, id);
    naive.emplace(source, id);
    check();
  }
  for (auto key : std::vector<std::pair<int, int64_t>>{{1, 40}, {1, 40}, {2, 1}, {3, 1000}}) {
    group.held.erase(key);
    naive.erase(key);
    check();
  }
  CHECK(group.held.count({1, 5}) == 1);
  CHECK(group.held.count({2, 1}) == 0);
}

}  // namespace
}  // namespace weibo
