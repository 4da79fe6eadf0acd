// TraceModel: what a trace does, worked out before any cluster runs it, the same for every
// feed mode.
//
// Setup is the leading run of user_add and follow ops (the graph), with the posts made
// before the first follow (history: old posts, which cost no fan-out); everything after
// it is the measured phase. For each post or repost of the measured phase the model knows the
// author's fans at that moment and groups them by shard, as a push fan-out does: one
// deliver transaction per follower shard. Those groups are the batches the raw-insert
// baseline copies. The model assumes every op succeeds and a fresh cluster (user k is the
// k-th user_add).
#ifndef WEIBO_BENCH_MODEL_H_
#define WEIBO_BENCH_MODEL_H_

#include <cstdint>
#include <vector>

#include "graph.h"
#include "trace.h"

namespace weibo::bench {

// The fans of one author on one shard, for one post.
using FanBatch = std::vector<int64_t>;

struct TraceModel {
  size_t setup_ops = 0;
  int64_t setup_users = 0, setup_follows = 0, setup_posts = 0;
  int64_t users = 0, follows = 0;           // at the end of the trace
  std::vector<int64_t> author;              // per op: the author of a post/repost, else 0
  std::vector<int64_t> fans;                // per op: the author's fans then, else 0
  std::vector<FanBatch> batches;            // the first kMaxBatches of the measured phase
  int64_t batch_count = 0, batch_rows = 0;  // over the whole measured phase
  std::vector<int64_t> final_fans;          // per user (index id - 1)
  std::vector<int64_t> final_followees;     // per user (index id - 1)

  static constexpr size_t kMaxBatches = 20000;
};

TraceModel ModelTrace(const Trace& trace, int shards);

// The hybrid mode's celebrity threshold when none is given: the fan count of the user at
// the top 1% (at least one user), so that roughly the top 1% of authors are pulled.
int64_t AutoCelebrityThreshold(const TraceModel& model);

}  // namespace weibo::bench

#endif  // WEIBO_BENCH_MODEL_H_
