// RetwisPeer: weibo-bench --peer retwis — the trace replayed, in the same run, on the data
// model of Retwis (github.com/antirez/retwis, Redis's own Twitter clone) in a redis-server
// the bench starts as its child, so that the table shows what a user would get from the
// store they might pick instead of us.
//
// The model, as Retwis's PHP has it (weibo-bench(1), "THE RETWIS PEER"):
//   user_add  INCR next_user_id; HSET users NAME ID; HMSET user:ID username NAME password
//             auth SECRET; HSET auths SECRET ID; ZADD users_by_time T NAME
//   follow    ZADD followers:B T A; ZADD following:A T B   (unfollow: ZREM both)
//   post      INCR next_post_id; HMSET post:P user_id A time T body TEXT;
//             ZRANGE followers:A 0 -1; LPUSH posts:F P for every follower F and A;
//             LPUSH timeline P; LTRIM timeline 0 1000
//   timeline  LRANGE posts:U 0 COUNT-1; HGETALL post:P for each
// Ops Retwis has no model of (repost, comment, like, ...) are not replayed (skipped).
//
// Retwis sends one command at a time. The peer pipelines every command of an op that
// does not need an earlier one's reply (hiredis), so an op costs one round trip per
// dependent step (a post three, a read two, a follow one), over a Unix socket: the
// fastest a client of this model can be, so the ratios never flatter us. It also skips
// Retwis's per-post HGET of the author's name on a read, which weibo's timeline returns.
//
// Persistence matches the cluster's durability (weibo(7), "Durability"): appendonly yes
// with appendfsync everysec against normal, always against full; no RDB snapshots.
#ifndef WEIBO_BENCH_RETWIS_H_
#define WEIBO_BENCH_RETWIS_H_

#include <sys/types.h>

#include <memory>
#include <string>

#include "model.h"
#include "replay.h"
#include "trace.h"

struct redisContext;

namespace weibo::bench {

constexpr const char* kRetwisLabel = "retwis";  // the peer's column

class RetwisPeer {
 public:
  // redis-server on PATH, else /usr/bin/redis-server; not_found when there is none.
  static Result<std::string> FindServer();
  // Starts server with its files in dir (created) and the persistence of durability
  // (full or normal), and connects to it.
  static Result<std::unique_ptr<RetwisPeer>> Start(const std::string& server,
                                                   const std::string& dir,
                                                   const std::string& durability);
  RetwisPeer(const RetwisPeer&) = delete;
  RetwisPeer& operator=(const RetwisPeer&) = delete;
  ~RetwisPeer();

  // The trace's setup ops, timed as a whole, as the Replayer's setup is.
  Status Setup(const Trace& trace, const TraceModel& model);
  // The measured ops from..to-1, each timed alone.
  Status Measure(const Trace& trace, size_t from, size_t to);
  // Stops redis-server (it syncs its append-only file on SIGTERM).
  Status Finish();
  const ModeRun& result() const { return run_; }
  int64_t skipped() const { return skipped_; }

 private:
  RetwisPeer(pid_t pid, std::string dir) : pid_(pid), dir_(std::move(dir)) {}
  // One op: false when Retwis has no model of it; not ok on a Redis error.
  Result<bool> Apply(const Request& op);
  Result<int64_t> UserId(const Json& ref);
  Status UserAdd(const Json& args);
  Status Follow(const Json& args, bool follow);
  Status Post(const Json& args);
  Status Timeline(const Json& args);

  pid_t pid_;
  std::string dir_;
  redisContext* redis_ = nullptr;
  ModeRun run_;
  int64_t skipped_ = 0;
};

}  // namespace weibo::bench

#endif  // WEIBO_BENCH_RETWIS_H_
