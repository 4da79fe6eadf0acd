// weibod --auth (daemon/service.cc, ops/authorize.cc): a request is served only when its
// token grants it, and a refusal changes nothing.
#include "daemon/service.h"
#include "test_support.h"

namespace weibo {
namespace {

using test::Cluster;
using test::DumpCluster;

struct Auth {
  Cluster c;
  std::string key;
  int64_t alice = 0, bob = 0;
  std::unique_ptr<daemon::Service> service;
  int next = 0;

  Auth() {
    alice = c.AddUser("alice");
    bob = c.AddUser("bob");
    key = c.Run("app_register", {{"name", "syncer"}}).at("key").get<std::string>();
    DaemonOptions options;
    options.data_dir = c.dir();
    options.auth = true;
    options.allow_clock = true;
    service = std::make_unique<daemon::Service>(options);
  }
  // Long-lived unless extra says otherwise: the service runs on the system clock, the
  // cluster on test::kNow, years before it.
  std::string Token(const std::string& user, const std::string& scope, Json extra = {}) {
    Json args = {{"app", key}, {"user", user}, {"scope", scope}};
    if (extra.is_object()) args.update(extra);
    if (!args.contains("ttl")) args["long_lived"] = true;
    return c.Run("token_issue", args).at("token").get<std::string>();
  }
  // The reply's error code, or "ok".
  std::string Send(const std::string& op, const Json& args, const Json& token,
                   const Json& extra = Json::object()) {
    Json body = {{"id", "r" + std::to_string(++next)}, {"op", op}, {"args", args}};
    if (!token.is_null()) body["token"] = token;
    body.update(extra);
    Json reply = Json::parse(service->Handle("peer", body.dump()));
    return reply.at("ok") == true ? "ok" : reply.at("error").at("code").get<std::string>();
  }
};

TEST_CASE("auth: each state of a token, refused with its code and nothing changed") {
  Auth a;
  const std::string write = a.Token("@alice", "write");
  const std::string read = a.Token("@alice", "read");
  const std::string bobs = a.Token("@bob", "write");
  const std::string revoked = a.Token("@alice", "write");
  a.c.Run("token_revoke", {{"token", revoked}});
  a.c.SetNow(test::kNow - 2 * 3600 * 1000);  // issued two hours ago for one hour
  const std::string expired = a.Token("@alice", "write", {{"ttl", "1h"}});
  std::string unknown = write;
  unknown[30] = unknown[30] == 'x' ? 'y' : 'x';
  const Json post = {{"user", "@alice"}, {"content", "hi"}};
  const std::string before = DumpCluster(a.c.dir(), a.c.shards());
  REQUIRE(a.Send("post", post, nullptr) == "token_missing");
  REQUIRE(a.Send("post", post, "") == "token_missing");
  REQUIRE(a.Send("post", post, unknown) == "token_invalid");
  REQUIRE(a.Send("post", post, "not a token") == "token_invalid");
  REQUIRE(a.Send("post", post, revoked) == "token_revoked");
  REQUIRE(a.Send("post", post, expired) == "token_expired");
  REQUIRE(a.Send("post", post, read) == "forbidden");
  REQUIRE(a.Send("post", post, bobs) == "forbidden");
  REQUIRE(a.Send("post", post, 7) == "invalid_request");  // a token is a string
  REQUIRE(DumpCluster(a.c.dir(), a.c.shards()) == before);
  REQUIRE(a.Send("post", post, write) == "ok");
  REQUIRE(a.c.User(a.alice).at("msg_count") == 1);
}

TEST_CASE("auth: reads need read scope, operator ops and a request's now need admin") {
  Auth a;
  const std::string read = a.Token("@alice", "read");
  const std::string write = a.Token("@alice", "write");
  const std::string admin = a.Token("@bob", "admin");
  REQUIRE(a.Send("user_list", Json::object(), read) == "ok");
  REQUIRE(a.Send("timeline", {{"user", "@alice"}}, read) == "ok");
  REQUIRE(a.Send("timeline", {{"user", "@bob"}}, read) == "forbidden");
  REQUIRE(a.Send("token_list", {{"user", "@alice"}}, read) == "ok");
  REQUIRE(a.Send("token_list", {{"user", "@bob"}}, read) == "forbidden");
  for (const char* op : {"fsck", "drain", "app_list"})
    REQUIRE(a.Send(op, Json::object(), write) == "forbidden");
  REQUIRE(a.Send("user_add", {{"name", "carol"}}, write) == "forbidden");
  REQUIRE(a.Send("token_issue", {{"app", a.key}, {"user", "@alice"}, {"scope", "admin"}}, write) ==
          "forbidden");
  REQUIRE(a.Send("fsck", Json::object(), admin) == "ok");
  REQUIRE(a.Send("user_add", {{"name", "carol"}}, admin) == "ok");
  const Json now = {{"now", "2026-01-01T00:00:00Z"}};
  REQUIRE(a.Send("timeline", {{"user", "@alice"}}, read, now) == "forbidden");
  // An admin token acts for no other user.
  REQUIRE(a.Send("post", {{"user", "@alice"}, {"content", "x"}}, admin) == "forbidden");
}

TEST_CASE("auth: a revoked token is refused from the next request on, kept replies too") {
  Auth a;
  const std::string write = a.Token("@alice", "write");
  Json body = {{"id", "same"},
               {"op", "post"},
               {"args", {{"user", "@alice"}, {"content", "once"}}},
               {"token", write}};
  Json first = Json::parse(a.service->Handle("peer", body.dump()));
  REQUIRE(first.at("ok") == true);
  REQUIRE(Json::parse(a.service->Handle("peer", body.dump())) == first);  // a retry
  a.c.Run("token_revoke", {{"token", write}});
  Json after = Json::parse(a.service->Handle("peer", body.dump()));
  REQUIRE(after.at("error").at("code") == "token_revoked");
  // A kept reply is its token's: the same id without the token, or with bob's, gets none.
  body.erase("token");
  REQUIRE(Json::parse(a.service->Handle("peer", body.dump())).at("error").at("code") ==
          "token_missing");
  body["token"] = a.Token("@bob", "write");
  REQUIRE(Json::parse(a.service->Handle("peer", body.dump())).at("error").at("code") ==
          "forbidden");
}

}  // namespace
}  // namespace weibo

namespace weibo {
namespace {

TEST_CASE("events: a revocation is published once, when it reaches its app's events") {
  test::Cluster c;
  c.AddUser("alice");
  const std::string key = c.Run("app_register", {{"name", "syncer"}}).at("key").get<std::string>();
  const std::string token =
      c.Run("token_issue", {{"app", key}, {"user", "@alice"}, {"long_lived", true}})
          .at("token")
          .get<std::string>();
  DaemonOptions options;
  options.data_dir = c.dir();
  std::vector<Json> events;
  daemon::Service service(options, nullptr, [&events](const Json& e) { events.push_back(e); });
  const Json revoke = {{"op", "token_revoke"}, {"args", {{"token", token}}}};
  REQUIRE(Json::parse(service.Handle("peer", revoke.dump())).at("ok") == true);
  REQUIRE(Json::parse(service.Handle("peer", revoke.dump())).at("ok") == true);  // again
  REQUIRE(events.size() == 1);
  REQUIRE(events[0].at("event") == "token_revoked");
  REQUIRE(events[0].at("app") == key);
  REQUIRE(events[0].at("user_id") == "1");
  REQUIRE(events[0].dump().find(token) == std::string::npos);
  REQUIRE(c.Run("app_events", {{"key", key}}).size() == 1);
}

}  // namespace
}  // namespace weibo
