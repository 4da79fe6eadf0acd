// ReplyCache: the request-id dedup window of weibod (man/weibod.1, Retries). A client that
// got no reply sends the same request again with the same id; the daemon answers it from
// here instead of applying the write a second time. This is the fast path and lives only
// as long as the process: the writes themselves record their ids on disk, in their own
// transactions (tables/request_log.h), for a retry that reaches a restarted daemon.
//
// Invariants: at most max_entries replies and max_bytes bytes of them are kept; the
// oldest is dropped first; an id is kept once, with the fingerprint of the request it
// answered (a second Put of a kept id is ignored, so the first reply is the one every
// retry gets); a kept id sent with another fingerprint is a different request and is
// never answered with the kept reply.
#ifndef WEIBO_DAEMON_REPLY_CACHE_H_
#define WEIBO_DAEMON_REPLY_CACHE_H_

#include <cstddef>
#include <deque>
#include <string>
#include <unordered_map>

namespace weibo::daemon {

class ReplyCache {
 public:
  ReplyCache(size_t max_entries, size_t max_bytes)
      : max_entries_(max_entries), max_bytes_(max_bytes) {}

  enum class Match { kNone, kSame, kReused };
  // kSame: id is kept for this fingerprint, and *reply is its reply. kReused: id is kept
  // for another request (RequestFingerprint, tables/request_log.h). kNone: not kept.
  Match Find(const std::string& id, const std::string& fingerprint,
             const std::string** reply) const;
  void Put(const std::string& id, const std::string& fingerprint, const std::string& reply);
  // Whether id is kept at all: Find's answer is kNone without a fingerprint when it is not.
  bool Holds(const std::string& id) const { return replies_.count(id) > 0; }

 private:
  struct Kept {
    std::string fingerprint, reply;
  };
  size_t max_entries_, max_bytes_, bytes_ = 0;
  std::unordered_map<std::string, Kept> replies_;
  std::deque<std::string> order_;  // ids, oldest first
};

}  // namespace weibo::daemon

#endif  // WEIBO_DAEMON_REPLY_CACHE_H_
