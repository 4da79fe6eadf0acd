#include "daemon/reply_cache.h"

namespace weibo::daemon {

const std::string* ReplyCache::Find(const std::string& id) const {
  auto it = replies_.find(id);
  return it == replies_.end() ? nullptr : &it->second;
}

void ReplyCache::Put(const std::string& id, const std::string& reply) {
  if (max_entries_ == 0 || reply.size() + id.size() > max_bytes_) return;
  if (!replies_.emplace(id, reply).second) return;
  order_.push_back(id);
  bytes_ += id.size() + reply.size();
  while (order_.size() > max_entries_ || bytes_ > max_bytes_) {
    auto oldest = replies_.find(order_.front());
    bytes_ -= oldest->first.size() + oldest->second.size();
    replies_.erase(oldest);
    order_.pop_front();
  }
}

}  // namespace weibo::daemon
