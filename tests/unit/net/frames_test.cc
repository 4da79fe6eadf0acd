// net/frames.cc: CheckBindEndpoint, called before every bind. ZeroMQ reads a TCP port it
// cannot parse, such as 99999, as a wildcard and binds a random port (issue 11).
#include "net/frames.h"

#include "test_support.h"

namespace weibo {
namespace {

TEST_CASE("bind endpoints: a TCP port is * or 1 to 65535") {
  for (const char* good :
       {"tcp://127.0.0.1:*", "tcp://127.0.0.1:1", "tcp://*:5550", "tcp://127.0.0.1:65535",
        "tcp://[::1]:5550", "ipc:///tmp/weibo.sock", "inproc://x"}) {
    INFO(good);
    REQUIRE(net::CheckBindEndpoint(good).ok());
  }
  for (const char* bad :
       {"tcp://127.0.0.1:99999", "tcp://127.0.0.1:65536", "tcp://127.0.0.1:0", "tcp://127.0.0.1:-1",
        "tcp://127.0.0.1:", "tcp://127.0.0.1:55a", "tcp://127.0.0.1:0005550", "tcp://127.0.0.1"}) {
    INFO(bad);
    Status s = net::CheckBindEndpoint(bad);
    REQUIRE(s.code() == Code::kInvalidArgument);
    REQUIRE_THAT(s.message(), Catch::Contains("from 1 to 65535"));
  }
}

}  // namespace
}  // namespace weibo
