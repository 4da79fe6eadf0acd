// weibo-bench counters: the targets of seed 004's counters (issue 13), measured in one run,
// each in a fresh cluster of its own (weibo-bench(1), COUNTERS):
//
//   hot/cold   weibo-count of `ids` message ids through a weibod of the bench's own: the
//              same ids again and again (hot: served from the daemon's --counter-cache)
//              against ids never read before (cold: read from their shards), alternated
//              call by call after kWarmRounds untimed pairs; the ratio of the two rates.
//   likes      `likes` likes of one message by as many users, one request each through a
//              weibod, then one drain: the UPDATEs of msg_counter rows they cost (counted
//              by a trigger in the shard files: CounterUpdateCounter), and like_count after.
//   notify     in two clusters of `small_users` and `large_users` users (loaded in bulk
//              with SQL, each with a stored last-read id): the statements one notify send
//              writes (--explain's log), the time of `sends` sends, and the p99 of `unreads`
//              unread calls for random users, the two clusters' calls alternated; the
//              large-to-small ratios.
#ifndef WEIBO_BENCH_COUNTERS_H_
#define WEIBO_BENCH_COUNTERS_H_

#include <cstdint>
#include <iosfwd>
#include <string>

#include "progress.h"
#include "weibo/request.h"

namespace weibo::bench {

// Untimed hot/cold pairs before the timed ones: the first calls of a fresh daemon and
// client (their allocators, the sockets' first messages, the shards' first pages) are
// not what either side costs in a running daemon.
constexpr int64_t kWarmRounds = 10;

struct CountersOptions {
  int shards = 16;
  int64_t ids = 200;     // ids per count call (at most 200, count's limit)
  int64_t rounds = 200;  // count calls on each side, after kWarmRounds untimed ones
  int64_t likes = 1000;  // likes of the one hot message
  int64_t small_users = 1000;
  int64_t large_users = 1000000;
  int64_t sends = 50;       // notify sends timed per cluster
  int64_t unreads = 20000;  // unread calls per cluster
  int64_t now_ms = 1704067200000LL;
  std::string weibod;  // the weibod binary; "": next to this program
};

struct CountersResult {
  int64_t ids = 0;  // per count call
  double hot_calls_per_s = 0, cold_calls_per_s = 0;
  double hot_p50_ms = 0, cold_p50_ms = 0;
  int64_t likes = 0, counter_updates = 0, like_count = 0;
  double likes_per_s = 0;
  struct Notify {
    int64_t users = 0;
    int64_t send_writes = 0;  // write statements of one send
    // unread: as weibod serves it, with its default --seen-cache; uncached: every unread
    // reads its user's row (--seen-cache 0, a one-shot command).
    double send_p50_ms = 0, unread_p50_ms = 0, unread_p99_ms = 0;
    double uncached_p50_ms = 0, uncached_p99_ms = 0;
  } small, large;

  Json ToJson() const;
  void Print(std::ostream& out) const;
};

// Runs the three measurements in work_dir (subdirectories count, likes, notify-small,
// notify-large).
Result<CountersResult> RunCounters(const std::string& work_dir, const CountersOptions& options,
                                   Progress& progress);

// Installs, in every shard file of dir, a counter of the rows UPDATE statements change in
// msg_counter (a table and an AFTER UPDATE trigger of the bench's; every UPDATE msg_counter
// the library runs names one message, so rows are statements). Read with
// CounterUpdates(dir, kCounterUpdates).
Status InstallCounterUpdateCounter(const std::string& dir);
extern const char kCounterUpdates[];

}  // namespace weibo::bench

#endif  // WEIBO_BENCH_COUNTERS_H_
