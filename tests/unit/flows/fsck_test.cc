// flows/fsck.cc: every invariant of SPEC §12 is checked; a planted violation (a row changed
// behind the library's back with the raw sqlite3 API) is found, and --repair fixes it.
#include <algorithm>

#include "storage/clock.h"
#include "storage/gene_id.h"
#include "test_support.h"

namespace weibo {
namespace {

using test::Cluster;
using test::ClusterOptions;
using test::RawDb;
using test::ViolationChecks;

// alice(1) and bob(2) follow each other, dora(3) follows alice; posts, comments, a repost.
struct World {
  explicit World(const std::string& feed = "push") : c(ClusterOptions{4, feed, 2}) {
    a = c.AddUser("alice");
    b = c.AddUser("bob");
    d = c.AddUser("dora");
    c.Follow(a, b);
    c.Follow(b, a);
    c.Follow(d, a);
    m = c.Post(a, "alice posts");
    bm = c.Post(b, "bob posts");
    c1 = c.Comment(b, m, "bob comments");
    c2 = c.Comment(d, m, "dora comments");
    r = c.Repost(d, bm, "dora reposts");
  }
  RawDb Db(int64_t id) { return RawDb(c.ShardPath(static_cast<int>(id % c.shards()))); }
  Cluster c;
  int64_t a, b, d, m, bm, c1, c2, r;
};

std::string S(int64_t v) { return std::to_string(v); }

TEST_CASE("fsck: a cluster made by the flows is clean in every feed mode") {
  std::string feed = GENERATE("push", "pull", "hybrid");
  World w(feed);
  w.c.Delete(w.b, w.c1);
  w.c.Unfollow(w.d, w.a);
  Json report = w.c.Fsck();
  INFO(report.dump());
  REQUIRE(report.at("ok") == true);
  REQUIRE(report.at("shards") == 4);
  REQUIRE(report.at("repair") == false);
  REQUIRE(report.at("violations") == Json::array());
}

// fsck finds check among the violations, checking changes nothing, and after one
// --repair run a second fsck is clean.
void RequireFoundAndRepaired(World& w, const std::string& check) {
  std::string before = w.c.Fsck().dump();
  Json report = w.c.Fsck();
  INFO(report.dump());
  REQUIRE(report.at("ok") == false);
  auto checks = ViolationChecks(report);
  REQUIRE(std::find(checks.begin(), checks.end(), check) != checks.end());
  REQUIRE(w.c.Fsck().dump() == before);  // checking changes nothing

  Json repaired = w.c.Fsck(true);
  INFO("repair: " << repaired.dump());
  REQUIRE(repaired.at("repair") == true);
  for (const auto& v : repaired.at("violations")) REQUIRE(v.at("repaired") == true);
  Json after = w.c.Fsck();
  INFO("after repair: " << after.dump());
  REQUIRE(after.at("ok") == true);
}

TEST_CASE("fsck: finds each planted count, counter or inbox violation, and one --repair fixes it") {
  World w;
  std::string check;
  SECTION("user_counts: a wrong msg_count") {
    w.Db(w.a).Exec("UPDATE user_info SET msg_count = 99 WHERE user_id = 1");
    check = "user_counts";
  }
  SECTION("user_counts: a wrong follow_count") {
    w.Db(w.d).Exec("UPDATE user_info SET follow_count = 0 WHERE user_id = 3");
    check = "user_counts";
  }
  SECTION("counters: a wrong comment_count") {
    w.Db(w.m).Exec("UPDATE msg_counter SET comment_count = 5 WHERE msg_id = " + S(w.m));
    check = "counters";
  }
  SECTION("counters: a commented_count below the pages handed out") {
    w.Db(w.m).Exec("UPDATE msg_counter SET commented_count = 0, comment_count = 2 WHERE msg_id = " +
                   S(w.m));
    check = "counters";
  }
  SECTION("counters: a message without its counter row") {
    w.Db(w.c2).Exec("DELETE FROM msg_counter WHERE msg_id = " + S(w.c2));
    check = "counters";
  }
  SECTION("counters: a counter row of a missing message") {
    w.Db(w.a).Exec("INSERT INTO msg_counter(msg_id) VALUES (" + S(w.m + 4 * 256 * 1000) + ")");
    check = "counters";
  }
  SECTION("inbox: a row for a deleted message") {
    w.Db(w.d).Exec("INSERT INTO msg_index VALUES (3, " + S(w.m + 256 * 1000) + ", 1, 0)");
    check = "inbox";
  }
  SECTION("inbox: a row of an author the reader does not follow") {
    w.Db(w.d).Exec("INSERT INTO msg_index VALUES (3, " + S(w.bm) + ", 2, 0)");
    check = "inbox";
  }
  SECTION("inbox: a message missing from its author's own inbox") {
    w.Db(w.a).Exec("DELETE FROM msg_index WHERE user_id = 1 AND msg_id = " + S(w.m));
    check = "inbox";
  }
  SECTION("inbox: a pushed post missing from a follower's inbox") {
    w.Db(w.d).Exec("DELETE FROM msg_index WHERE user_id = 3 AND msg_id = " + S(w.m));
    check = "inbox";
  }
  RequireFoundAndRepaired(w, check);
}

TEST_CASE("fsck: finds a planted half-follow, and one --repair fixes it with its counts") {
  // SPEC §12: both relation rows exist for every follow, fans_count / follow_count equal a
  // recount of the rows, and --repair fixes what it finds.
  World w;
  SECTION("the fan row of a follow is missing") {
    w.Db(w.a).Exec("DELETE FROM user_relation WHERE user_id = 1 AND follow_id = 3 AND type = 0");
  }
  SECTION("a fan row without its follow row") {
    w.Db(w.d).Exec("DELETE FROM user_relation WHERE user_id = 3 AND follow_id = 1 AND type = 1");
  }
  RequireFoundAndRepaired(w, "relation");
}

TEST_CASE("fsck: finds the relation row of a deleted comment or repost, --repair drops it") {
  // What a ref_add applied after its comment's ref_remove used to leave behind (jobs_test):
  // a listed comment that no longer exists, counted in comment_count.
  World w;
  int64_t gone = w.c1 + 1000000;  // an id no message has
  w.Db(w.m).Exec("INSERT INTO msg_msg_relation VALUES (" + S(w.b) + ", " + S(gone) + ", " + S(w.a) +
                 ", " + S(w.m) + ", 1, 0, 0)");
  w.Db(w.m).Exec("UPDATE msg_counter SET comment_count = comment_count + 1 WHERE msg_id = " +
                 S(w.m));
  RequireFoundAndRepaired(w, "relation");
  auto page = w.c.CommentPage(w.m, 0);
  std::sort(page.begin(), page.end());
  REQUIRE(page == std::vector<int64_t>{std::min(w.c1, w.c2), std::max(w.c1, w.c2)});
  REQUIRE(w.c.Counts(w.m).at("comments") == 2);
}

TEST_CASE("fsck --repair restores the exact values") {
  World w;
  w.Db(w.a).Exec("UPDATE user_info SET msg_count = 99, fans_count = 7 WHERE user_id = 1");
  w.Db(w.m).Exec("UPDATE msg_counter SET comment_count = 9, commented_count = 1 WHERE msg_id = " +
                 S(w.m));
  w.Db(w.d).Exec("DELETE FROM msg_index WHERE user_id = 3 AND msg_id = " + S(w.m));
  w.c.Fsck(true);
  REQUIRE(w.c.User(w.a).at("msg_count") == 1);
  REQUIRE(w.c.User(w.a).at("fans_count") == 2);
  REQUIRE(w.c.Counts(w.m).at("comments") == 2);
  REQUIRE(w.c.Counts(w.m).at("commented") == 2);
  REQUIRE(w.c.TimelineIds(w.d) == std::vector<int64_t>{w.r, w.c2, w.m});
  REQUIRE(w.c.Fsck().at("ok") == true);
}

TEST_CASE("fsck: pending outbox jobs are reported, --repair applies them") {
  World w;
  w.c.SetDrain(false);
  int64_t late = w.c.Post(w.a, "not yet delivered");
  w.c.Comment(w.b, late, "not yet counted");
  Json report = w.c.Fsck();
  REQUIRE(report.at("ok") == false);
  auto checks = ViolationChecks(report);
  REQUIRE(std::count(checks.begin(), checks.end(), "outbox") >= 1);
  w.c.Fsck(true);
  REQUIRE(w.c.Fsck().at("ok") == true);
  REQUIRE(w.c.Counts(late).at("comments") == 1);
  auto home = w.c.TimelineIds(w.d);
  REQUIRE(std::count(home.begin(), home.end(), late) == 1);
}

TEST_CASE("fsck: integrity_check runs on every shard") {
  World w;
  Json report = w.c.Fsck();
  REQUIRE(report.at("ok") == true);
  REQUIRE(report.at("shards") == 4);
}

// Issue 11: a clock moved forward drags a gene's id sequence into the future; fsck
// reports it, the message that holds it there, and the empty partition left behind.
TEST_CASE("fsck: sequences, partitions and messages ahead of the clock") {
  Cluster c(ClusterOptions{2, "pull", 2});
  int64_t a = c.AddUser("a");
  int64_t b = c.AddUser("b");
  c.Follow(b, a);
  c.Post(a, "normal");
  REQUIRE(c.Fsck().at("ok") == true);
  c.SetNow(*ParseTime("2089-08-01T00:00:00Z"));
  int64_t poison = c.Post(a, "poison");
  REQUIRE(c.Fsck().at("ok") == true);  // under its own clock nothing is ahead
  c.SetNow(test::kNow);
  Json report = c.Fsck(true);
  INFO(report.dump());
  REQUIRE(report.at("ok") == false);  // a future message is not repaired
  REQUIRE(ViolationChecks(report) == std::vector<std::string>{"clock", "clock"});
  REQUIRE_THAT(report["violations"][0]["detail"].get<std::string>(),
               Catch::Contains("message " + S(poison)) && Catch::Contains("2089-08-01T00:00:00Z"));
  REQUIRE_THAT(report["violations"][1]["detail"].get<std::string>(),
               Catch::Contains("gene 1") && Catch::Contains("holds it there"));
  // Deleted, the message no longer holds the sequence: repair lowers it and drops the
  // partition of 2089 that is now empty.
  c.Delete(a, poison);
  report = c.Fsck();
  REQUIRE(ViolationChecks(report) == std::vector<std::string>{"clock", "clock"});
  REQUIRE(c.Fsck(true).at("ok") == true);  // both repaired
  REQUIRE(c.Fsck().at("ok") == true);
  int64_t next = c.Post(a, "back to now");
  REQUIRE(GeneIdTimeMs(next) == test::kNow);
  REQUIRE(c.TimelineIds(b).front() == next);
  REQUIRE(c.Fsck().at("ok") == true);
}

}  // namespace
}  // namespace weibo
