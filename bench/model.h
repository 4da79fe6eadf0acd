// TraceModel: what a trace does, worked out before any cluster runs it, the same for every
// feed mode.
//
// Setup is the leading run of user_add and follow ops (the graph), with the posts made
// before the first follow (history: old posts, which cost no fan-out); everything after
// it is the measured phase. For each post or repost of the measured phase the model knows the
// author's fans at that moment and groups them by shard, as a push fan-out does: one
// deliver transaction per follower shard. Those posts are what the baselines (baselines.h)
// insert. The model assumes every op succeeds and a fresh cluster (user k is the
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

// One post's delivery rows as a push fan-out writes them: the author's own inbox row and the
// fans on the author's shard in the post's own transaction, every other follower shard's fans
// in a transaction of that shard.
struct PostFanOut {
  int64_t author = 0;
  int author_shard = 0;
  FanBatch own;                               // fans on the author's shard
  std::vector<std::pair<int, FanBatch>> far;  // (shard, fans) for every other shard with fans
  int64_t Rows() const;                       // fans + the author's own row
};

struct TraceModel {
  size_t setup_ops = 0;
  int64_t setup_users = 0, setup_follows = 0, setup_posts = 0;
  int64_t users = 0, follows = 0;        // at the end of the trace
  std::vector<int64_t> author;           // per op: the author of a post/repost, else 0
  std::vector<int64_t> fans;             // per op: the author's fans then, else 0
  std::vector<PostFanOut> fan_outs;      // every post and repost of the measured phase
  std::vector<int64_t> final_fans;       // per user (index id - 1)
  std::vector<int64_t> final_followees;  // per user (index id - 1)
};

TraceModel ModelTrace(const Trace& trace, int shards);
// A post by author to these fans, grouped by shard as the push fan-out does.
PostFanOut FanOutOf(int64_t author, const std::vector<int64_t>& fans, int shards);

// The hybrid mode's celebrity threshold when none is given: the fan count of the user at
// the top 1% (at least one user), so that roughly the top 1% of authors are pulled.
int64_t AutoCelebrityThreshold(const TraceModel& model);

}  // namespace weibo::bench

#endif  // WEIBO_BENCH_MODEL_H_
