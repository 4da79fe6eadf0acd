#include "daemon/reply_cache.h"

namespace weibo::daemon {

ReplyCache::Match ReplyCache::Find(const std::string& id, const std::string& fingerprint,
                                   const std::string** reply) const {
  auto it = replies_.find(id);
  if (it == replies_.end()) return Match::kNone;
  if (it->second.fingerprint != fingerprint) return Match::kReused;
  *reply = &it->second.reply;
  return Match::kSame;
}

void ReplyCache::Put(const std::string& id, const std::string& fingerprint,
                     const std::string& reply) {
  const size_t size = id.size() + fingerprint.size() + reply.size();
  if (max_entries_ == 0 || size > max_bytes_) return;
  if (!replies_.emplace(id, Kept{fingerprint, reply}).second) return;
  order_.push_back(id);
  bytes_ += size;
  while (order_.size() > max_entries_ || bytes_ > max_bytes_) {
    auto oldest = replies_.find(order_.front());
    bytes_ -=
        oldest->first.size() + oldest->second.fingerprint.size() + oldest->second.reply.size();
    replies_.erase(oldest);
    order_.pop_front();
  }
}

}  // namespace weibo::daemon
