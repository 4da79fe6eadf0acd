// net/router.cc: a client's message split at its body, as weibod, a node and the broker
// all read it; anything but exactly one body after the envelope is malformed.
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

}  // namespace
}  // namespace weibo::net
