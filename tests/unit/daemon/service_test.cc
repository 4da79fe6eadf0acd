// daemon/service.cc: the dedup window a daemon keeps. Within one Service a retried write is
// answered from memory; a fresh Service on the same data (a restarted weibod or node, its
// memory empty) answers it from the shards' request_log with the same bytes, and applies
// nothing.
#include "daemon/service.h"

#include "test_support.h"

namespace weibo {
namespace {

using test::Cluster;

DaemonOptions Options(const Cluster& c) {
  DaemonOptions options;
  options.data_dir = c.dir();
  options.allow_clock = true;  // the requests below carry a clock, as goldens do
  return options;
}

const char kNow[] = R"("now":"2026-01-01T00:00:00Z")";

std::string Body(const std::string& id, const std::string& op, const std::string& args) {
  return R"({"id":")" + id + R"(","op":")" + op + R"(","args":)" + args + "," + kNow + "}";
}

TEST_CASE("service: a write retried on a restarted service gets the same reply, applied once") {
  Cluster c;
  int64_t a = c.AddUser("alice");
  const std::string post = Body("R", "post", R"({"user":"@alice","content":"once"})");
  std::string first;
  {
    daemon::Service service(Options(c));
    first = service.Handle("peer", post);
    REQUIRE(first.find(R"("ok":true)") != std::string::npos);
    REQUIRE(service.Handle("peer", post) == first);  // from memory
  }
  daemon::Service restarted(Options(c));
  REQUIRE(restarted.Handle("another peer", post) == first);  // from the shards
  REQUIRE(c.User(a).at("msg_count") == 1);
  // A new id posts again.
  std::string other =
      restarted.Handle("peer", Body("R2", "post", R"({"user":"@alice","content":"once"})"));
  REQUIRE(other != first);
  REQUIRE(c.User(a).at("msg_count") == 2);
}

TEST_CASE("service: user_add, follow and comment retried on a restarted service") {
  Cluster c;
  const std::vector<std::string> bodies = {
      Body("U1", "user_add", R"({"name":"alice"})"),
      Body("U2", "user_add", R"({"name":"bob"})"),
      Body("F", "follow", R"({"user":"@bob","target":"@alice"})"),
  };
  for (const auto& body : bodies) {
    std::string first = daemon::Service(Options(c)).Handle("peer", body);
    INFO(first);
    REQUIRE(first.find(R"("ok":true)") != std::string::npos);
    REQUIRE(daemon::Service(Options(c)).Handle("peer", body) == first);
  }
  int64_t post = c.Post(1, "hello");
  const std::string comment = Body(
      "C", "comment", R"({"user":"@bob","msg":")" + std::to_string(post) + R"(","content":"hi"})");
  std::string first = daemon::Service(Options(c)).Handle("peer", comment);
  REQUIRE(daemon::Service(Options(c)).Handle("peer", comment) == first);
  REQUIRE(c.Run("user_list").size() == 2);
  REQUIRE(c.User(2).at("follow_count") == 1);
  REQUIRE(c.User(2).at("msg_count") == 1);
  REQUIRE(c.Counts(post).at("comments") == 1);
}

TEST_CASE("service: a request's clock is refused unless the daemon allows it") {
  Cluster c;
  int64_t a = c.AddUser("alice");
  DaemonOptions options = Options(c);
  options.allow_clock = false;
  daemon::Service service(options);
  // The clock a request carries would move the gene's id sequence for every later post.
  std::string reply =
      service.Handle("peer", Body("P", "post", R"({"user":"@alice","content":"x"})"));
  INFO(reply);
  REQUIRE(reply.find(R"("code":"invalid_argument")") != std::string::npos);
  REQUIRE(reply.find("--allow-clock") != std::string::npos);
  REQUIRE(c.User(a).at("msg_count") == 0);
  // Without a clock of its own the request runs on the daemon's.
  reply =
      service.Handle("peer", R"({"id":"Q","op":"post","args":{"user":"@alice","content":"x"}})");
  REQUIRE(reply.find(R"("ok":true)") != std::string::npos);
}

}  // namespace
}  // namespace weibo
