// The mechanisms of the feed modes (SPEC §5) one by one: push's activity tiers, pull's
// time-partitioned outboxes (what a read touches, seen through --explain), hybrid's
// active-follower LRU lists (evictions, pull for those not on a list, rejoin on return).
// feeds_property_test.cc checks that the timelines stay identical whatever happens.
#include <algorithm>

#include "test_support.h"

namespace weibo {
namespace {

using test::Cluster;
using test::ClusterOptions;
using test::RawDb;

constexpr long long kDay = 24LL * 3600 * 1000;

// Statements of one request that contain sql.
int Statements(const Cluster& c, long long now, const Json& args, const std::string& sql) {
  EmbeddedOptions eo;
  eo.data_dir = c.dir();
  eo.now_ms = now;
  eo.explain = true;
  auto executor = OpenEmbedded(eo);
  REQUIRE(executor->Execute(Request{"timeline", args}).ok());
  int n = 0;
  for (const auto& line : executor->Explain())
    if (line.find(sql) != std::string::npos) ++n;
  return n;
}

// Statements of one request that read an author's outbox partitions.
int OutboxReads(const Cluster& c, long long now, const Json& args) {
  return Statements(c, now, args, "FROM author_feed");
}

TEST_CASE(
    "feeds: pull reads the newest outbox partition, older ones only when the page reaches back") {
  Cluster c(ClusterOptions{4, "pull"});
  int64_t reader = c.AddUser("reader"), bob = c.AddUser("bob");
  c.Follow(reader, bob);
  std::vector<int64_t> old_posts, new_posts;
  for (int i = 0; i < 3; ++i) old_posts.push_back(c.Post(bob, "old " + std::to_string(i)));
  long long later = test::kNow + 30 * kDay;  // four partitions (weeks) later
  c.SetNow(later);
  for (int i = 0; i < 3; ++i) new_posts.push_back(c.Post(bob, "new " + std::to_string(i)));
  RawDb db(c.ShardPath(static_cast<int>(bob % 4)));
  REQUIRE(db.Int("SELECT count(*) FROM author_part WHERE user_id = " + std::to_string(bob)) == 2);

  // A page that fits in the newest week reads one partition.
  REQUIRE(OutboxReads(c, later, Json{{"user", reader}, {"count", 3}}) == 1);
  // A page that reaches back reads the newest week, then the old one: the three weeks
  // between them hold nothing and are never read.
  REQUIRE(OutboxReads(c, later, Json{{"user", reader}, {"count", 5}}) == 2);
  // A cursor in the old week never touches the newer one.
  REQUIRE(OutboxReads(
              c, later,
              Json{{"user", reader}, {"count", 5}, {"max_id", std::to_string(old_posts[2])}}) == 1);
  std::vector<int64_t> all(new_posts.rbegin(), new_posts.rend());
  all.insert(all.end(), old_posts.rbegin(), old_posts.rend());
  REQUIRE(c.TimelineIds(reader, {{"count", 6}}) == all);
  REQUIRE(c.TimelineIds(bob, {{"count", 6}, {"posts", true}}) == all);
  // A deleted message leaves its partition.
  c.Delete(bob, new_posts[1]);
  REQUIRE(db.Int("SELECT count(*) FROM author_feed WHERE msg_id = " +
                 std::to_string(new_posts[1])) == 0);
  REQUIRE(c.Fsck().at("ok") == true);
}

TEST_CASE("feeds: pull scans a shard's outboxes for a reader who follows most of its authors") {
  Cluster c(ClusterOptions{1, "pull"});
  int64_t reader = c.AddUser("reader"), a = c.AddUser("a"), b = c.AddUser("b"), d = c.AddUser("d"),
          noisy = c.AddUser("noisy");
  for (int64_t followee : {a, b, d}) c.Follow(reader, followee);
  std::vector<int64_t> old_posts;
  for (int64_t author : {a, b, d}) old_posts.push_back(c.Post(author, "old"));
  c.Comment(a, old_posts[0], "a comment is not a post");
  // Two weeks later someone the reader does not follow posts more than a probe looks at;
  // two weeks after that, a posts once more.
  c.SetNow(test::kNow + 15 * kDay);
  for (int i = 0; i < 70; ++i) c.Post(noisy, "noise " + std::to_string(i));
  long long later = test::kNow + 30 * kDay;
  c.SetNow(later);
  int64_t fresh = c.Post(a, "new");
  std::vector<int64_t> want{fresh, old_posts[2], old_posts[1], old_posts[0]};
  const std::string scan = "FROM author_feed INDEXED BY author_feed_by_id";
  // 3 of the shard's 5 users: one scan of the shard, no source per author.
  Json args{{"user", reader}, {"count", 5}};
  REQUIRE(Statements(c, later, args, scan) > 0);
  REQUIRE(Statements(c, later, args, "AND part = ? AND msg_id < ?") == 0);
  REQUIRE(c.TimelineIds(reader, {{"count", 5}}) == want);
  // The week of noise holds none of theirs: the probe below the newest week sees only
  // noise, so the authors' partition lists (author_part) name the old week to read next.
  REQUIRE(Statements(c, later, args, "FROM author_part") > 1);
  REQUIRE(c.TimelineIds(reader, {{"count", 2}}) == std::vector<int64_t>{want[0], want[1]});
  REQUIRE(c.TimelineIds(reader, {{"count", 2}, {"max_id", std::to_string(want[1])}}) ==
          std::vector<int64_t>{want[2], want[3]});
  REQUIRE(c.TimelineIds(reader, {{"count", 2}, {"page", 1}}) ==
          std::vector<int64_t>{want[2], want[3]});
  // A page that ends in the newest week reads nothing older.
  REQUIRE(Statements(c, later, Json{{"user", reader}, {"count", 1}}, "FROM author_part") == 1);
  // One followee of five users is a source of its own.
  c.Unfollow(reader, b);
  c.Unfollow(reader, d);
  REQUIRE(Statements(c, later, args, scan) == 0);
  REQUIRE(c.TimelineIds(reader, {{"count", 5}}) == std::vector<int64_t>{fresh, old_posts[0]});
  REQUIRE(c.Fsck().at("ok") == true);
}

TEST_CASE(
    "feeds: push delivers a big author's fans in activity tiers, the day first, then the week") {
  Cluster c(ClusterOptions{1, "push"});
  c.EditConfig([](Json& j) { j["tier_fans"] = 3; });
  test::KeepDoneJobs(c.ShardPath(0));
  int64_t star = c.AddUser("star"), day = c.AddUser("day"), week = c.AddUser("week"),
          gone = c.AddUser("gone");
  for (int64_t fan : {day, week, gone}) c.Follow(fan, star);
  c.SetNow(test::kNow + 5 * kDay);
  c.Timeline(week);  // reading is activity: last_active moves
  c.SetNow(test::kNow + 10 * kDay);
  c.Timeline(day);
  int64_t post = c.Post(star, "to my fans, by tier");
  RawDb db(c.ShardPath(0));
  // The fanout job (one shard: the fans are on the author's shard, so it delivers tier 0
  // itself), then a deliver job for tier 1 and one for tier 2, created in that order.
  std::string jobs = db.Rows(
      "SELECT kind, json_extract(payload, '$.tier'), json_extract(payload, '$.users') "
      "FROM " +
      std::string(test::kEveryJob) + " WHERE kind IN ('fanout', 'deliver') ORDER BY job_id");
  REQUIRE(jobs == "fanout|NULL|NULL\ndeliver|1|[3]\ndeliver|2|[4]\n");
  for (int64_t fan : {day, week, gone}) REQUIRE(c.TimelineIds(fan) == std::vector<int64_t>{post});
  REQUIRE(c.Fsck().at("ok") == true);
}

// A delivery to many fans of one shard checks the follow rows with one scan of the author's
// followers (flows/fanout.cc, ScanFollowers) and, tiered, reads their activity with one scan of
// user_info (Dense): the same inboxes as the seek per reader. A fan whose follow row is gone
// (an unfollow whose fan-row removal is still in flight) gets nothing, tiered or not, in tier 0
// or in a later tier's job (which carries the size of the fan-out's list, "of").
TEST_CASE("feeds: a large delivery scans the followers and still skips one who unfollowed") {
  for (int days : {-1, 0, 2}) {  // -1: not tiered; else the post is that many days on
    CAPTURE(days);
    const bool tiered = days >= 0;
    Cluster c(ClusterOptions{1, "push"});
    c.EditConfig([tiered](Json& j) { j["tier_fans"] = tiered ? 3 : 1000; });
    test::KeepDoneJobs(c.ShardPath(0));
    int64_t star = c.AddUser("star");
    std::vector<int64_t> fans;
    for (int k = 0; k < 80; ++k) {
      fans.push_back(c.AddUser("fan" + std::to_string(k)));
      c.Follow(fans.back(), star);
    }
    // Fan 40 unfollowed on its own shard only; fan 50 was last active long before the post.
    RawDb db(c.ShardPath(0));
    db.Exec("DELETE FROM user_relation WHERE type = 1 AND user_id = " + std::to_string(fans[40]));
    db.Exec("UPDATE user_info SET last_active = 0 WHERE user_id = " + std::to_string(fans[50]));
    EmbeddedOptions eo;
    eo.data_dir = c.dir();
    eo.now_ms = test::kNow + std::max(days, 0) * kDay + kDay / 2;
    eo.explain = true;
    auto executor = OpenEmbedded(eo);
    auto posted = executor->Execute(Request{"post", Json{{"user", star}, {"content", "to all"}}});
    REQUIRE(posted.ok());
    int scans = 0, activity_scans = 0;
    for (const auto& line : executor->Explain()) {
      if (line.find("user_id BETWEEN") != std::string::npos &&
          line.find("user_relation") != std::string::npos)
        ++scans;
      if (line.find("FROM user_info WHERE user_id BETWEEN") != std::string::npos) ++activity_scans;
    }
    REQUIRE(scans == 1);
    REQUIRE(activity_scans == (tiered ? 1 : 0));
    executor.reset();  // applies the deliveries it held back (group commit)
    int64_t post = test::IdOf(posted.value());
    for (int k = 0; k < 80; ++k) {
      CAPTURE(k);
      int64_t in =
          db.Int("SELECT count(*) FROM msg_index WHERE user_id = " + std::to_string(fans[k]) +
                 " AND msg_id = " + std::to_string(post));
      REQUIRE(in == (k == 40 ? 0 : 1));
    }
    // Fan 50 came in the last tier's job; the others at once (0 days) or in tier 1's job.
    const std::string tier_jobs = db.Rows(
        "SELECT json_extract(payload, '$.tier'), json_extract(payload, '$.of'), "
        "json_array_length(payload, '$.users') FROM " +
        std::string(test::kEveryJob) + " WHERE kind = 'deliver' ORDER BY job_id");
    if (days == 0) REQUIRE(tier_jobs == "2|80|1\n");
    if (days == 2) REQUIRE(tier_jobs == "1|80|79\n2|80|1\n");
  }
}

TEST_CASE(
    "feeds: hybrid pushes only to the active list, the others pull, a returning reader rejoins") {
  Cluster c(ClusterOptions{4, "hybrid"});
  c.EditConfig([](Json& j) { j["active_list"] = 2; });
  int64_t star = c.AddUser("star"), a = c.AddUser("a"), b = c.AddUser("b"), d = c.AddUser("d");
  for (int64_t fan : {a, b, d}) c.TimelineIds(fan);   // readers: a follow lists them
  for (int64_t fan : {a, b, d}) c.Follow(fan, star);  // a joins first, so a leaves first
  RawDb star_db(c.ShardPath(static_cast<int>(star % 4)));
  auto listed = [&] {
    return star_db.Rows("SELECT fan_id FROM active_fan WHERE author_id = " + std::to_string(star) +
                        " ORDER BY touched");
  };
  auto inboxed = [&](int64_t user, int64_t msg) {
    return RawDb(c.ShardPath(static_cast<int>(user % 4)))
        .Int("SELECT count(*) FROM msg_index WHERE user_id = " + std::to_string(user) +
             " AND msg_id = " + std::to_string(msg));
  };
  auto active_on = [&](int64_t user) {
    return RawDb(c.ShardPath(static_cast<int>(user % 4)))
        .Int("SELECT count(*) FROM active_on WHERE user_id = " + std::to_string(user) +
             " AND author_id = " + std::to_string(star));
  };
  REQUIRE(listed() == std::to_string(b) + "\n" + std::to_string(d) + "\n");
  REQUIRE(active_on(a) == 0);
  REQUIRE(active_on(b) == 1);
  int64_t p1 = c.Post(star, "one");
  REQUIRE(inboxed(a, p1) == 0);  // not on the list: not pushed
  REQUIRE(inboxed(b, p1) == 1);
  REQUIRE(inboxed(d, p1) == 1);
  for (int64_t fan : {a, b, d}) REQUIRE(c.TimelineIds(fan) == std::vector<int64_t>{p1});

  // a comes back two days later: the page is built by pull, then a rejoins at the head and
  // b, now the least recently active, leaves the list.
  c.SetNow(test::kNow + 2 * kDay);
  REQUIRE(c.TimelineIds(a) == std::vector<int64_t>{p1});
  REQUIRE(listed() == std::to_string(d) + "\n" + std::to_string(a) + "\n");
  REQUIRE(active_on(a) == 1);
  REQUIRE(active_on(b) == 0);
  REQUIRE(inboxed(a, p1) == 1);  // the join copied the star's newest posts
  int64_t p2 = c.Post(star, "two");
  REQUIRE(inboxed(a, p2) == 1);
  REQUIRE(inboxed(b, p2) == 0);
  // b and d come back too: each page is built first, then the reader rejoins; the list
  // keeps the two most recent joins.
  for (int64_t fan : {a, b, d}) REQUIRE(c.TimelineIds(fan) == std::vector<int64_t>{p2, p1});
  REQUIRE(listed() == std::to_string(b) + "\n" + std::to_string(d) + "\n");
  // An unfollow leaves the list and forgets the push.
  c.Unfollow(d, star);
  REQUIRE(listed() == std::to_string(b) + "\n");
  REQUIRE(c.TimelineIds(d).empty());
  REQUIRE(c.Fsck().at("ok") == true);
}

TEST_CASE("feeds: hybrid lists fans who read, not fans who only follow, nor pulled authors") {
  Cluster c(ClusterOptions{4, "hybrid"});
  c.EditConfig([](Json& j) { j["celebrity_threshold"] = 3; });
  int64_t star = c.AddUser("star"), reader = c.AddUser("reader"), lurker = c.AddUser("lurker"),
          late = c.AddUser("late");
  RawDb star_db(c.ShardPath(static_cast<int>(star % 4)));
  auto listed = [&] {
    return star_db.Rows("SELECT fan_id FROM active_fan WHERE author_id = " + std::to_string(star) +
                        " ORDER BY fan_id");
  };
  auto user_db = [&](int64_t user) { return RawDb(c.ShardPath(static_cast<int>(user % 4))); };
  auto inboxed = [&](int64_t user, int64_t msg) {
    return user_db(user).Int("SELECT count(*) FROM msg_index WHERE user_id = " +
                             std::to_string(user) + " AND msg_id = " + std::to_string(msg));
  };
  auto active_on = [&](int64_t user) {
    return user_db(user).Int("SELECT count(*) FROM active_on WHERE user_id = " +
                             std::to_string(user) + " AND author_id = " + std::to_string(star));
  };
  REQUIRE(c.TimelineIds(reader).empty());
  c.Follow(reader, star);
  c.Follow(lurker, star);  // has never read: not listed
  REQUIRE(listed() == std::to_string(reader) + "\n");
  REQUIRE(active_on(reader) == 1);
  REQUIRE(active_on(lurker) == 0);
  int64_t p1 = c.Post(star, "one");
  REQUIRE(inboxed(reader, p1) == 1);
  REQUIRE(inboxed(lurker, p1) == 0);
  // The lurker's first read is built by pull, then joins the list (the join copies p1).
  REQUIRE(c.TimelineIds(lurker) == std::vector<int64_t>{p1});
  REQUIRE(listed() == std::to_string(reader) + "\n" + std::to_string(lurker) + "\n");
  REQUIRE(active_on(lurker) == 1);
  REQUIRE(inboxed(lurker, p1) == 1);
  // A third fan makes the star a celebrity: its list is emptied and each listed reader
  // forgets it (active_drop), so reads pull it without looking at its fan count.
  c.Follow(late, star);
  REQUIRE(listed().empty());
  REQUIRE(active_on(reader) == 0);
  REQUIRE(active_on(lurker) == 0);
  int64_t p2 = c.Post(star, "two");
  REQUIRE(inboxed(reader, p2) == 0);
  for (int64_t fan : {reader, lurker, late})
    REQUIRE(c.TimelineIds(fan) == std::vector<int64_t>{p2, p1});
  REQUIRE(listed().empty());  // a celebrity's list takes no one back
  REQUIRE(c.Fsck().at("ok") == true);
}

}  // namespace
}  // namespace weibo

namespace weibo {
namespace {

TEST_CASE("feeds: with lists as long as the threshold a rejoin touches only missing lists") {
  // Default list (10000) >= threshold (3): no list can push a fan out, so a reader's daily
  // rejoin leaves the lists that hold it alone and joins only the others.
  Cluster c(ClusterOptions{4, "hybrid"});
  c.EditConfig([](Json& j) { j["celebrity_threshold"] = 3; });
  int64_t reader = c.AddUser("reader"), a = c.AddUser("a"), b = c.AddUser("b");
  auto touched = [&](int64_t author) {
    return RawDb(c.ShardPath(static_cast<int>(author % 4)))
        .Rows("SELECT touched FROM active_fan WHERE author_id = " + std::to_string(author) +
              " AND fan_id = " + std::to_string(reader));
  };
  REQUIRE(c.TimelineIds(reader).empty());
  c.Follow(reader, a);  // a reader: listed at once
  REQUIRE(touched(a) == "1\n");
  REQUIRE(RawDb(c.ShardPath(static_cast<int>(reader % 4)))
              .Int("SELECT count(*) FROM active_on WHERE user_id = " + std::to_string(reader) +
                   " AND author_id = " + std::to_string(a)) == 1);
  c.SetNow(test::kNow + 2 * kDay);
  c.Follow(reader, b);  // no read for two days: not listed
  REQUIRE(touched(b).empty());
  int64_t pa = c.Post(a, "by a"), pb = c.Post(b, "by b");
  REQUIRE(c.TimelineIds(reader) == std::vector<int64_t>{pb, pa});  // b pulled, then joined
  REQUIRE(touched(a) == "1\n");                                    // not touched again
  REQUIRE(touched(b) == "1\n");
  int64_t pb2 = c.Post(b, "pushed now");
  REQUIRE(RawDb(c.ShardPath(static_cast<int>(reader % 4)))
              .Int("SELECT count(*) FROM msg_index WHERE user_id = " + std::to_string(reader) +
                   " AND msg_id = " + std::to_string(pb2)) == 1);
  REQUIRE(c.Fsck().at("ok") == true);
}

TEST_CASE("feeds: a first join copies only what the first page showed and newer") {
  // A reader on no list raises the inbox floor to the oldest item of the full first page it
  // was shown, and the join's snapshots hold only items at or above it; below, pages pull.
  Cluster c(ClusterOptions{4, "hybrid"});
  int64_t reader = c.AddUser("reader"), a = c.AddUser("a"), b = c.AddUser("b");
  c.Follow(reader, a);  // never read: on no list
  c.Follow(reader, b);
  std::vector<int64_t> posts;  // oldest first
  for (int i = 0; i < 3; ++i) {
    posts.push_back(c.Post(a, "a" + std::to_string(i)));
    posts.push_back(c.Post(b, "b" + std::to_string(i)));
  }
  RawDb own(c.ShardPath(static_cast<int>(reader % 4)));
  const std::string who = std::to_string(reader);
  auto inbox = [&] {
    return own.Rows("SELECT msg_id FROM msg_index WHERE user_id = " + who + " ORDER BY msg_id");
  };
  REQUIRE(c.TimelineIds(reader, {{"count", 2}}) == std::vector<int64_t>{posts[5], posts[4]});
  REQUIRE(own.Int("SELECT floor_msg_id FROM inbox_floor WHERE user_id = " + who) == posts[4]);
  REQUIRE(inbox() == std::to_string(posts[4]) + "\n" + std::to_string(posts[5]) + "\n");
  REQUIRE(own.Int("SELECT count(*) FROM active_on WHERE user_id = " + who) == 2);
  int64_t later = c.Post(a, "pushed");
  REQUIRE(c.TimelineIds(reader, {{"count", 2}}) == std::vector<int64_t>{later, posts[5]});
  // Below the floor the page is pulled: nothing is missing.
  std::vector<int64_t> all{later};
  all.insert(all.end(), posts.rbegin(), posts.rend());
  REQUIRE(c.WholeTimeline(reader, 3) == all);
  REQUIRE(c.TimelineIds(reader) == all);
  REQUIRE(c.Fsck().at("ok") == true);
}

TEST_CASE("feeds: the library counts the followees each home read pulls, once per read") {
  // reader follows three authors: push pulls none, pull all three; hybrid none while the
  // authors push to the reader (a follow by a reader joins their lists), all three once
  // every author is a celebrity (threshold 1: each has a fan).
  struct Mode {
    std::string feed;
    int64_t threshold;
    int64_t pulled;
  };
  const Mode mode = GENERATE(Mode{"push", 10000, 0}, Mode{"pull", 10000, 3},
                             Mode{"hybrid", 10000, 0}, Mode{"hybrid", 1, 3});
  Cluster c(ClusterOptions{4, mode.feed});
  c.EditConfig([&](Json& j) { j["celebrity_threshold"] = mode.threshold; });
  int64_t reader = c.AddUser("reader");
  c.TimelineIds(reader);  // a reader: hybrid lists them at each follow
  for (const char* name : {"a", "b", "d"}) {
    int64_t author = c.AddUser(name);
    c.Follow(reader, author);
    c.Post(author, std::string("by ") + name);
  }
  const HomeReadTotals before = HomeReadCounts();
  REQUIRE(c.TimelineIds(reader).size() == 3);
  REQUIRE(c.TimelineIds(reader, {{"posts", true}}).empty());  // not a home read
  const HomeReadTotals after = HomeReadCounts();
  REQUIRE(after.reads - before.reads == 1);
  REQUIRE(after.pulled_authors - before.pulled_authors == mode.pulled);
}

TEST_CASE("feeds: init writes the feed settings into cluster.json and refuses zeros") {
  test::TempDir dir;
  EmbeddedOptions eo;
  eo.data_dir = dir.Join("c");
  auto executor = OpenEmbedded(eo);
  Json args{{"shards", 2},      {"feed", "push"}, {"inbox_cap", 5}, {"celebrity_threshold", 3},
            {"active_list", 7}, {"tier_fans", 9}};
  REQUIRE(executor->Execute(Request{"init", args}).ok());
  std::ifstream in(dir.Join("c/cluster.json"));
  Json j = Json::parse(in);
  REQUIRE(j.at("inbox_cap") == 5);
  REQUIRE(j.at("celebrity_threshold") == 3);
  REQUIRE(j.at("active_list") == 7);
  REQUIRE(j.at("tier_fans") == 9);
  for (const char* key : {"inbox_cap", "celebrity_threshold", "active_list", "tier_fans"}) {
    Json bad = args;
    bad[key] = 0;
    bad["force"] = true;
    INFO(key);
    auto r = executor->Execute(Request{"init", bad});
    REQUIRE_FALSE(r.ok());
    REQUIRE(r.status().code() == Code::kInvalidArgument);
  }
}

}  // namespace
}  // namespace weibo
