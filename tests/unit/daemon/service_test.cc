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

// Issue 11, defect 2: an id names one request. Sent again with another op or other args
// it is refused, from memory and, after a restart, from the shard's request_log; never
// answered with the first request's reply while the second is dropped.
const char kReused[] = R"({"code":"invalid_request","message":"request id reused"})";

bool Refused(const std::string& reply) { return reply.find(kReused) != std::string::npos; }

TEST_CASE("service: a request id sent again with another op or other args is refused") {
  Cluster c;
  int64_t a = c.AddUser("alice");
  c.AddUser("bob");
  const std::string post = Body("R", "post", R"({"user":"@alice","content":"one"})");
  const std::vector<std::string> others = {
      Body("R", "post", R"({"user":"@alice","content":"two"})"),
      Body("R", "post", R"({"user":"@bob","content":"one"})"),
      Body("R", "user_add", R"({"name":"carol"})"),
      Body("R", "follow", R"({"user":"@alice","target":"@bob"})"),
  };
  std::string first;
  {
    daemon::Service service(Options(c));
    first = service.Handle("peer", post);
    REQUIRE(first.find(R"("ok":true)") != std::string::npos);
    for (const auto& other : others) {
      INFO(other);
      REQUIRE(Refused(service.Handle("another peer", other)));
    }
    REQUIRE(service.Handle("peer", post) == first);  // the retry itself, from memory
    // The args are compared in canonical form: keys in another order are the same args.
    REQUIRE(service.Handle("peer", Body("R", "post", R"({"content":"one","user":"@alice"})")) ==
            first);
  }
  REQUIRE(c.User(a).at("msg_count") == 1);
  REQUIRE(c.Run("user_list").size() == 2);  // no carol
  REQUIRE(c.User(a).at("follow_count") == 0);

  // Restarted: memory is empty, the shards remember. The other content whose home is
  // the first request's (alice's shard) is refused; the retry is still answered.
  daemon::Service restarted(Options(c));
  const int64_t msg = test::IdOf(Json::parse(first).at("result"));
  const std::vector<std::string> durable = {
      others[0],
      others[3],
      Body("R", "delete", R"({"user":"@alice","msg":")" + std::to_string(msg) + R"("})"),
  };
  for (const auto& other : durable) {
    INFO(other);
    REQUIRE(Refused(restarted.Handle("peer", other)));
  }
  REQUIRE(restarted.Handle("peer", post) == first);
  REQUIRE(c.User(a).at("msg_count") == 1);
  REQUIRE(c.User(a).at("follow_count") == 0);
  // fsck at the requests' clock: the posts are in the future of the test cluster's own.
  c.SetNow(1767225600000);  // 2026-01-01T00:00:00Z
  REQUIRE(c.Fsck().at("ok") == true);
}

TEST_CASE("service: request_log rows from before the fingerprint still replay by id and op") {
  Cluster c;
  int64_t a = c.AddUser("alice");
  const std::string post = Body("OLD", "post", R"({"user":"@alice","content":"one"})");
  std::string first = daemon::Service(Options(c)).Handle("peer", post);
  REQUIRE(first.find(R"("ok":true)") != std::string::npos);
  // As schema version 8 wrote it: no fingerprint (migration 9 gives old rows '').
  test::RawDb(c.ShardPath(static_cast<int>(a % c.shards())))
      .Exec("UPDATE request_log SET fingerprint = '' WHERE request_id = 'OLD'");
  REQUIRE(daemon::Service(Options(c)).Handle("peer", post) == first);
  c.AddUser("bob");
  REQUIRE(
      Refused(daemon::Service(Options(c))
                  .Handle("peer", Body("OLD", "follow", R"({"user":"@alice","target":"@bob"})"))));
  REQUIRE(c.User(a).at("msg_count") == 1);
  REQUIRE(c.User(a).at("follow_count") == 0);
}

}  // namespace
}  // namespace weibo
