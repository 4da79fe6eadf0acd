// flows/tokens.cc: apps, access tokens and their revocation (SPEC §8, seed 001).
#include <fstream>
#include <iterator>

#include "test_support.h"

namespace weibo {
namespace {

using test::Cluster;
using test::kNow;

constexpr long long kHour = 3600LL * 1000;

// Every byte of every file in the data directory (shards, their WALs, cluster.json, the key).
std::string AllFiles(const std::string& dir) {
  std::string all;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    std::ifstream in(entry.path(), std::ios::binary);
    all.append(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  return all;
}

struct Setup {
  Cluster c;
  std::string key;
  int64_t alice = 0, bob = 0;
  Setup() {
    alice = c.AddUser("alice");
    bob = c.AddUser("bob");
    key = c.Run("app_register", {{"name", "syncer"}}).at("key").get<std::string>();
  }
  Json Issue(Json extra = Json::object()) {
    Json args = {{"app", key}, {"user", "@alice"}};
    args.update(extra);
    return c.Run("token_issue", args);
  }
};

TEST_CASE("app_register: a key and a secret shown once, names are registered once") {
  Setup s;
  Json app = s.c.Run("app_register", {{"name", "reader"}});
  const std::string key = app.at("key").get<std::string>();
  const std::string secret = app.at("secret").get<std::string>();
  REQUIRE(key.size() == 20);
  REQUIRE(secret.size() == 43);  // 32 bytes of base64url
  REQUIRE(
      key.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_") ==
      std::string::npos);
  REQUIRE(s.c.CodeOf("app_register", {{"name", "reader"}}) == Code::kAppExists);
  Json list = s.c.Run("app_list");
  REQUIRE(list.size() == 2);
  REQUIRE(list[0].at("name") == "reader");
  REQUIRE_FALSE(list[0].contains("secret"));
  REQUIRE(AllFiles(s.c.dir()).find(secret) == std::string::npos);
}

TEST_CASE("token_issue: 24 hours by default, --ttl, --long-lived, never stored as itself") {
  Setup s;
  Json t = s.Issue();
  const std::string token = t.at("token").get<std::string>();
  REQUIRE(token.size() == 40);
  REQUIRE(t.at("user_id") == std::to_string(s.alice));
  REQUIRE(t.at("scope") == "write");
  REQUIRE(t.at("state") == "valid");
  REQUIRE(t.at("issued") == "2023-11-14T22:13:20Z");
  REQUIRE(t.at("expires") == "2023-11-15T22:13:20Z");
  REQUIRE(s.Issue({{"long_lived", true}}).at("expires").is_null());
  REQUIRE(s.Issue({{"ttl", "90m"}}).at("expires") == "2023-11-14T23:43:20Z");
  REQUIRE(s.Issue({{"scope", "read"}}).at("scope") == "read");
  REQUIRE(s.c.CodeOf("token_issue", {{"app", s.key}, {"user", 1}, {"ttl", "0s"}}) ==
          Code::kInvalidArgument);
  REQUIRE(s.c.CodeOf("token_issue", {{"app", s.key}, {"user", 1}, {"ttl", "5w"}}) ==
          Code::kInvalidArgument);
  REQUIRE(s.c.CodeOf("token_issue",
                     {{"app", s.key}, {"user", 1}, {"ttl", "1h"}, {"long_lived", true}}) ==
          Code::kInvalidArgument);
  REQUIRE(s.c.CodeOf("token_issue", {{"app", s.key}, {"user", 1}, {"scope", "root"}}) ==
          Code::kInvalidArgument);
  REQUIRE(s.c.CodeOf("token_issue", {{"app", "AAAAAAAAAAAAAAAAAAAA"}, {"user", 1}}) ==
          Code::kNotFound);
  REQUIRE(s.c.CodeOf("token_issue", {{"app", s.key}, {"user", 99}}) == Code::kNotFound);
  // Two tokens never alike; neither is in any file, nor in a list.
  REQUIRE(s.Issue().at("token") != token);
  REQUIRE(AllFiles(s.c.dir()).find(token) == std::string::npos);
  Json list = s.c.Run("token_list", {{"user", "@alice"}});
  REQUIRE(list.size() == 5);
  for (const auto& row : list) REQUIRE_FALSE(row.contains("token"));
}

TEST_CASE("token_check: valid, expired from its last millisecond on, revoked, unknown") {
  Setup s;
  const std::string token = s.Issue({{"ttl", "1h"}}).at("token").get<std::string>();
  REQUIRE(s.c.Run("token_check", {{"token", token}}).at("state") == "valid");
  s.c.SetNow(kNow + kHour - 1);
  REQUIRE(s.c.Run("token_check", {{"token", token}}).at("state") == "valid");
  s.c.SetNow(kNow + kHour);
  REQUIRE(s.c.CodeOf("token_check", {{"token", token}}) == Code::kTokenExpired);
  // Revoked wins over expired: the user's own decision is the news.
  s.c.Run("token_revoke", {{"token", token}});
  REQUIRE(s.c.CodeOf("token_check", {{"token", token}}) == Code::kTokenRevoked);
  // No token is token_missing; anything else is token_invalid, and says nothing more.
  REQUIRE(s.c.CodeOf("token_check", {{"token", ""}}) == Code::kTokenMissing);
  std::string flipped = token;
  flipped[20] = flipped[20] == 'A' ? 'B' : 'A';
  for (const std::string& bad :
       {flipped, token + "A", token.substr(1), std::string(40, '*'), std::string(1 << 20, 'A')}) {
    Status st = s.c.Fail("token_check", {{"token", bad}});
    REQUIRE(st.code() == Code::kTokenInvalid);
    REQUIRE(st.message() == "the token is not one this cluster issued");
  }
  REQUIRE(ExitStatus(Code::kTokenInvalid) == 3);
}

TEST_CASE("token_revoke: idempotent, one token_revoked event for the app, newest first") {
  Setup s;
  const std::string t1 = s.Issue().at("token").get<std::string>();
  const std::string t2 = s.Issue({{"user", "@bob"}}).at("token").get<std::string>();
  Json first = s.c.Run("token_revoke", {{"token", t1}});
  REQUIRE(first.at("state") == "revoked");
  s.c.SetNow(kNow + kHour);
  REQUIRE(s.c.Run("token_revoke", {{"token", t1}}) == first);
  s.c.Run("token_revoke", {{"token", t2}});
  Json events = s.c.Run("app_events", {{"key", s.key}});
  REQUIRE(events.size() == 2);
  REQUIRE(events[0].at("user_id") == std::to_string(s.bob));
  REQUIRE(events[1].at("token_id") == first.at("token_id"));
  REQUIRE(events[1].at("event") == "token_revoked");
  Json older = s.c.Run("app_events", {{"key", s.key}, {"max_id", events[0].at("id")}});
  REQUIRE(older.size() == 1);
  REQUIRE(older[0] == events[1]);
  REQUIRE(s.c.CodeOf("token_revoke", {{"token", std::string(40, 'A')}}) == Code::kTokenInvalid);
  REQUIRE(s.c.CodeOf("app_events", {{"key", "nope"}}) == Code::kNotFound);
}

TEST_CASE("fsck: a token row of a missing user or app, or with a forged id, is a violation") {
  Setup s;
  s.Issue();
  REQUIRE(s.c.Run("fsck").at("ok") == true);
  {
    test::RawDb db(s.c.ShardPath(static_cast<int>(s.bob % s.c.shards())));
    db.Exec("INSERT INTO access_token VALUES (" + std::to_string(s.bob) +
            ", '0011223344556677', '" + std::string(64, 'f') + "', '" + s.key + "', 2, 1, 0, 0)");
  }
  Json report = s.c.Run("fsck");
  REQUIRE(report.at("ok") == false);
  REQUIRE(report.at("violations").size() == 1);
  REQUIRE(report.at("violations")[0].at("check") == "tokens");
  s.c.Run("fsck", {{"repair", true}});
  REQUIRE(s.c.Run("fsck").at("ok") == true);
  REQUIRE(s.c.Run("token_list", {{"user", "@bob"}}).empty());
}

}  // namespace
}  // namespace weibo
