#include "daemon/rate_limiter.h"

#include <algorithm>

namespace weibo::daemon {
namespace {

constexpr size_t kForgetAbove = 4096;  // tracked peers before idle ones are dropped

}  // namespace

double RateLimiter::Refill(const Bucket& bucket, Time now) const {
  double seconds = std::chrono::duration<double>(now - bucket.refilled).count();
  return std::min(rate_, bucket.tokens + seconds * rate_);
}

void RateLimiter::ForgetIdle(Time now) {
  for (auto it = buckets_.begin(); it != buckets_.end();) {
    if (Refill(it->second, now) >= rate_)
      it = buckets_.erase(it);
    else
      ++it;
  }
}

bool RateLimiter::Allow(const std::string& peer, Time now) {
  if (rate_ <= 0) return true;
  if (buckets_.size() >= kForgetAbove && buckets_.count(peer) == 0) ForgetIdle(now);
  auto [it, fresh] = buckets_.try_emplace(peer, Bucket{rate_, now});
  Bucket& bucket = it->second;
  if (!fresh) bucket = Bucket{Refill(bucket, now), now};
  if (bucket.tokens < 1) return false;
  bucket.tokens -= 1;
  return true;
}

Status RateLimiter::Refusal() const {
  return Status(Code::kUnavailable, "over the rate limit of " + std::to_string(int64_t(rate_)) +
                                        " requests a second; retry later");
}

std::string RateLimiter::KeyOf(bool auth, const std::string& token, const std::string& client) {
  return auth && !token.empty() ? "token " + token : client;
}

}  // namespace weibo::daemon
