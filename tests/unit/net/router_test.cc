// net/router.cc: a client's message split at its body, as weibod, a node and the broker
// all read it; anything but exactly one body after the envelope is malformed. And
// CheckBindEndpoint, called before every bind: ZeroMQ reads a TCP port it cannot parse,
// such as 99999, as a wildcard and binds a random port (issue 11).
#include "net/router.h"

#include "net/wire.h"
#include "test_support.h"

namespace weibo::net {
namespace {

TEST_CASE("router: the envelope is the routing id and the delimiter a REQ client adds") {
  ClientMessage req = SplitClientMessage({"id", "", "body"});
  CHECK(req.well_formed);
  CHECK(req.envelope == Frames{"id", ""});
  CHECK(req.body == "body");
  ClientMessage dealer = SplitClientMessage({"id", "body"});
  CHECK(dealer.well_formed);
  CHECK(dealer.envelope == Frames{"id"});
  CHECK(dealer.body == "body");
}

TEST_CASE("router: more than one body is malformed, and answered behind its envelope") {
  ClientMessage two = SplitClientMessage({"id", "", "a", "b"});
  CHECK_FALSE(two.well_formed);
  CHECK(two.envelope == Frames{"id", ""});
  CHECK_FALSE(SplitClientMessage({"id", "a", "b"}).well_formed);
  CHECK_FALSE(SplitClientMessage({"id"}).well_formed);
  WireReply reply;
  REQUIRE(ParseReply(MalformedMessage(), &reply));
  CHECK(reply.status.code() == Code::kInvalidRequest);
}

TEST_CASE("bind endpoints: a TCP port is * or 1 to 65535") {
  for (const char* good :
       {"tcp://127.0.0.1:*", "tcp://127.0.0.1:1", "tcp://*:5550", "tcp://127.0.0.1:65535",
        "tcp://[::1]:5550", "ipc:///tmp/weibo.sock", "inproc://x"}) {
    INFO(good);
    REQUIRE(CheckBindEndpoint(good).ok());
  }
  for (const char* bad :
       {"tcp://127.0.0.1:99999", "tcp://127.0.0.1:65536", "tcp://127.0.0.1:0", "tcp://127.0.0.1:-1",
        "tcp://127.0.0.1:", "tcp://127.0.0.1:55a", "tcp://127.0.0.1:0005550", "tcp://127.0.0.1"}) {
    INFO(bad);
    Status s = CheckBindEndpoint(bad);
    REQUIRE(s.code() == Code::kInvalidArgument);
    REQUIRE_THAT(s.message(), Catch::Contains("from 1 to 65535"));
  }
}

}  // namespace
}  // namespace weibo::net
