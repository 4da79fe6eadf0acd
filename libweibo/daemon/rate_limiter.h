// RateLimiter: a token bucket per peer (man/weibod.1, LIMITS). Each peer may send `rate`
// requests a second on average and `rate` at once; a request that finds the bucket empty
// is refused without being executed.
//
// Peers are ZeroMQ routing ids, which a reconnecting client changes; buckets of peers that
// have been idle long enough to be full again carry no information and are forgotten
// when many peers are tracked, so the table stays bounded by the active peers.
#ifndef WEIBO_DAEMON_RATE_LIMITER_H_
#define WEIBO_DAEMON_RATE_LIMITER_H_

#include <chrono>
#include <string>
#include <unordered_map>

namespace weibo::daemon {

class RateLimiter {
 public:
  using Time = std::chrono::steady_clock::time_point;

  explicit RateLimiter(double rate) : rate_(rate) {}  // 0: no limit
  // Takes one token from peer's bucket; false when there is none.
  bool Allow(const std::string& peer, Time now);

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
