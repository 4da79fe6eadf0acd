// RateLimiter: a token bucket per peer (man/weibod.1, LIMITS). Each peer may send `rate`
// requests a second on average and `rate` at once; a request that finds the bucket empty
// is refused without being executed.
//
// A peer is a token under --auth, else a client address (KeyOf), never a connection: a
// client that opens many connections, or reconnects, still has one bucket. Buckets of
// peers that have been idle long enough to be full again carry no information and are
// forgotten when many peers are tracked, so the table stays bounded by the active peers.
// weibod (daemon/service.cc) and a cluster's broker (cluster/broker.cc) both count so.
#ifndef WEIBO_DAEMON_RATE_LIMITER_H_
#define WEIBO_DAEMON_RATE_LIMITER_H_

#include <chrono>
#include <string>
#include <unordered_map>

#include "weibo/status.h"

namespace weibo::daemon {

class RateLimiter {
 public:
  using Time = std::chrono::steady_clock::time_point;

  explicit RateLimiter(double rate) : rate_(rate) {}  // 0: no limit
  // Takes one token from peer's bucket; false when there is none.
  bool Allow(const std::string& peer, Time now);
  // The unavailable status a refused request gets.
  Status Refusal() const;

  // The peer a request counts against: "token T" when auth is on and it carries one, else
  // client (net::ClientMessage::client: its address, or its connection where the transport
  // gives none).
  static std::string KeyOf(bool auth, const std::string& token, const std::string& client);

 private:
  struct Bucket {
    double tokens;
    Time refilled;
  };
  double Refill(const Bucket& bucket, Time now) const;
  void ForgetIdle(Time now);

  double rate_;
  std::unordered_map<std::string, Bucket> buckets_;
};

}  // namespace weibo::daemon

#endif  // WEIBO_DAEMON_RATE_LIMITER_H_
