// flows/notify.cc and the red dot (flows/timeline.cc): one notification row for everyone,
// unread counts from one last-seen id per user, its 30-day expiry, and timeline --unread.
#include "flows/flows.h"
#include "test_support.h"

namespace weibo {
namespace {

using test::Cluster;
using test::ClusterOptions;

constexpr long long kDayMs = 24LL * 3600 * 1000;

int64_t Unread(Cluster& c, int64_t user) {
  return c.Run("notify_unread", {{"user", user}}).at("unread").get<int64_t>();
}

// alice and bob, who have both read the first notification and not the second.
std::pair<int64_t, int64_t> TwoReadersOneUnread(Cluster& c) {
  int64_t a = c.AddUser("alice"), b = c.AddUser("bob");
  c.Run("notify_send", {{"content", "one"}});
  c.Run("notify_read", {{"user", a}});
  c.Run("notify_read", {{"user", b}});
  c.Run("notify_send", {{"content", "two"}});
  return {a, b};
}

TEST_CASE("notify: one row for everyone, unread counts from the last-read id") {
  Cluster c;
  int64_t a = c.AddUser("alice"), b = c.AddUser("bob");
  REQUIRE(c.Run("notify_send", {{"content", "one"}}).at("id") == "1");
  REQUIRE(Unread(c, a) == 0);  // no stored id: a new user
  c.Run("notify_read", {{"user", a}});
  c.Run("notify_send", {{"content", "two"}});
  c.Run("notify_send", {{"content", "three"}});
  REQUIRE(Unread(c, a) == 2);
  REQUIRE(Unread(c, b) == 0);
  Json list = c.Run("notify_list", {{"user", b}, {"count", 2}});
  REQUIRE(list.size() == 2);
  REQUIRE(list.at(0).at("content") == "three");
  Json rest = c.Run("notify_list", {{"user", b}, {"max_id", "2"}});
  REQUIRE(rest.size() == 1);
  REQUIRE(rest.at(0).at("id") == "1");
  REQUIRE(c.Run("notify_read", {{"user", a}}).at("last_read") == "3");
  REQUIRE(Unread(c, a) == 0);
  REQUIRE(c.CodeOf("notify_unread", {{"user", 99}}) == Code::kNotFound);
  REQUIRE(c.CodeOf("notify_send", {{"content", std::string(141, 'x')}}) == Code::kContentTooLong);
  REQUIRE(c.CodeOf("notify_send", {{"content", "\xff"}}) == Code::kInvalidUtf8);
}

TEST_CASE("notify: a user inactive for 30 days loses the stored id, an active one keeps it") {
  Cluster c;
  auto [a, b] = TwoReadersOneUnread(c);
  c.SetNow(test::kNow + 20 * kDayMs);
  c.Post(a, "still active");
  c.SetNow(test::kNow + 29 * kDayMs);
  REQUIRE_FALSE(c.Run("drain").contains("expired"));
  REQUIRE(Unread(c, b) == 1);
  c.SetNow(test::kNow + 31 * kDayMs);
  REQUIRE(c.Run("drain").at("expired") == 1);
  REQUIRE(Unread(c, b) == 0);  // new again
  REQUIRE(Unread(c, a) == 1);
  REQUIRE_FALSE(c.Run("drain").contains("expired"));
  // alice's id, kept, is dated to her last activity (day 20): the passes of the next 30
  // days find nothing before their cutoff and read no row (AnySeenStale); then it expires.
  const std::string shard = c.dir() + "/shard-0" + std::to_string(a % 4) + ".db";
  REQUIRE(test::RawDb(shard).Int("SELECT time FROM last_seen WHERE user_id = " +
                                 std::to_string(a)) == test::kNow + 20 * kDayMs);
  c.SetNow(test::kNow + 50 * kDayMs);
  REQUIRE_FALSE(c.Run("drain").contains("expired"));
  REQUIRE(Unread(c, a) == 1);
  c.SetNow(test::kNow + 51 * kDayMs);
  REQUIRE(c.Run("drain").at("expired") == 1);
  REQUIRE(Unread(c, a) == 0);
}

TEST_CASE("notify: a server's kept last-read ids answer unread exactly as the rows do") {
  Cluster c;
  auto [a, b] = TwoReadersOneUnread(c);
  EmbeddedOptions eo = test::ServerOptions(c.dir());
  eo.seen_cache = 64;
  auto server = OpenEmbedded(eo);
  auto unread = [&](int64_t user, int64_t now = 0) {
    Request r{"notify_unread", {{"user", user}}};
    r.now_ms = now;
    auto out = server->Execute(r);
    REQUIRE(out.ok());
    return out.value().at("unread").get<int64_t>();
  };
  REQUIRE(unread(a) == 1);  // read from the row, then kept
  REQUIRE(unread(a) == 1);  // kept
  // Its own notify read forgets the kept id: the next unread counts from the new one.
  REQUIRE(server->Execute(Request{"notify_read", {{"user", a}}}).ok());
  REQUIRE(unread(a) == 0);
  REQUIRE(unread(b) == 1);
  c.Run("notify_send", {{"content", "three"}});  // shard 0, another connection
  REQUIRE(unread(a) == 1);
  REQUIRE(unread(b) == 2);
  c.Run("notify_read", {{"user", b}});  // another connection stores bob's id
  REQUIRE(unread(b) == 0);
  REQUIRE(unread(a) == 1);
  // The expiry, run by the server, forgets the ids of the shards it deleted rows of.
  Request drain{"drain", Json::object()};
  drain.now_ms = test::kNow + 31 * kDayMs;
  auto expired = server->Execute(drain);
  REQUIRE(expired.ok());
  REQUIRE(expired.value().at("expired") == 2);
  REQUIRE(unread(a, drain.now_ms) == 0);  // new again
  REQUIRE(unread(b, drain.now_ms) == 0);
  REQUIRE(server->Execute(Request{"notify_unread", {{"user", 99}}}).status().code() ==
          Code::kNotFound);
}

TEST_CASE("red dot: items by others newer than the mark, capped, the first page moves it") {
  Cluster c(ClusterOptions{2, "push", 20});
  int64_t a = c.AddUser("alice"), b = c.AddUser("bob");
  c.Follow(a, b);
  auto badge = [&] { return c.Timeline(a, {{"unread", true}}); };
  c.Post(b, "first");
  REQUIRE(badge().at("unread") == 0);  // no mark yet
  c.Timeline(a, {{"count", 1}});
  REQUIRE(badge().at("unread") == 0);
  c.SetNow(test::kNow + 1000);
  c.Post(b, "second");
  c.SetNow(test::kNow + 2000);
  c.Post(a, "mine");
  REQUIRE(badge().at("unread") == 1);
  c.Timeline(a, {{"count", 1}, {"page", 1}});  // not the first page: no move
  REQUIRE(badge().at("badge") == "1");
  c.Timeline(a);
  REQUIRE(badge().at("unread") == 0);
  for (int i = 0; i < 105; ++i) {
    c.SetNow(test::kNow + 10000 + i * 1000);
    c.Post(b, "p" + std::to_string(i));
  }
  REQUIRE(badge().at("badge") == "99+");
  REQUIRE(c.CodeOf("timeline", {{"user", a}, {"unread", true}, {"max_id", "5"}}) ==
          Code::kInvalidArgument);
  REQUIRE(c.CodeOf("timeline", {{"user", a}, {"unread", true}, {"posts", true}}) ==
          Code::kInvalidArgument);
}

// A server (group commit, defer_merged) writes nothing on a home read: the marks its reads
// move are held, seen by its own reads, and written for kHeldReadsPerShard readers of a
// shard at once, before an op that does not keep deliveries held, and when it is idle.
TEST_CASE("red dot: a server holds the marks its reads move and writes them in batches") {
  Cluster c(ClusterOptions{2, "push", 20});
  int64_t a = c.AddUser("alice"), b = c.AddUser("bob");
  c.Follow(a, b);
  c.Post(b, "first");
  c.Timeline(a);  // a command's read stores the mark at once
  auto stored_badge = [&] { return c.Timeline(a, {{"unread", true}}).at("unread").get<int>(); };
  auto server = OpenEmbedded(test::ServerOptions(c.dir()));
  auto run = [&](const std::string& op, Json args) {
    auto out = server->Execute(Request{op, std::move(args)});
    REQUIRE(out.ok());
    return out.value();
  };
  auto server_badge = [&] { return run("timeline", {{"user", a}, {"unread", true}})["unread"]; };
  c.SetNow(test::kNow + 1000);
  c.Post(b, "second");
  REQUIRE(server_badge() == 1);
  run("timeline", {{"user", a}});  // moves the mark: held
  REQUIRE(server_badge() == 0);    // its own reads see it
  REQUIRE(stored_badge() == 1);    // not written yet
  server->Idle();
  REQUIRE(stored_badge() == 0);
  c.SetNow(test::kNow + 2000);
  c.Post(b, "third");
  run("timeline", {{"user", a}});
  REQUIRE(stored_badge() == 1);
  run("notify_unread", {{"user", a}});  // does not keep deliveries held: pays first
  REQUIRE(stored_badge() == 0);

  // Readers of each shard are written kHeldReadsPerShard at a time, without Idle.
  const int readers = 2 * static_cast<int>(kHeldReadsPerShard) + 6;
  std::vector<int64_t> users;
  for (int i = 0; i < readers; ++i) {
    users.push_back(c.AddUser("r" + std::to_string(i)));
    c.Post(users.back(), "mine");  // a first page with an item: every first read owes a mark
  }
  auto stored_marks = [&] {
    int64_t n = 0;
    for (int i = 0; i < c.shards(); ++i)
      n += test::RawDb(c.ShardPath(i))
               .Int("SELECT count(*) FROM last_seen WHERE kind = 1 AND user_id > 2");
    return n;
  };
  for (int64_t u : users) run("timeline", {{"user", u}});
  REQUIRE(stored_marks() == 2 * static_cast<int64_t>(kHeldReadsPerShard));  // 35 a shard
  server->Idle();
  REQUIRE(stored_marks() == readers);
}

}  // namespace
}  // namespace weibo
