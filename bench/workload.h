// The standard workloads of weibo-bench(1): a trace generated from a seed.
//
// Every workload starts with the same setup: `users` user_add ops (names u1, u2, ...),
// `history` posts by every user (old posts, made before anyone follows anyone, so that
// timelines have something to show and a follow has posts to merge), then a power-law
// follow graph — each user's out-degree is a Pareto draw with mean `follows`,
// and each followee is chosen by preferential attachment (in proportion to 1 + the fans it
// already has), so in-degrees follow a power law: a few celebrities, a long tail. Then:
//
//   fanout    `posts` posts by Zipf-distributed authors;
//
// (author popularity: by default the users with the most fans post the most, as on Weibo
// where a celebrity's posts are what a feed mode must cope with; author_rank "random"
// makes posting and being followed independent)
//   timeline  `posts` posts, then `reads` home-timeline reads by Zipf-distributed readers;
//   retwis    `posts` posts, then `ops` ops drawn from Retwis' mix: 5% new user, 15%
//             follow/unfollow (two follows to one unfollow), 30% post, 50% timeline read.
//   social    `posts` posts, then `ops` ops of a microblog's day (seed 004): 20% post, 30%
//             like (or unlike of what the user likes), 8% comment, 5% repost, 2% delete,
//             30% home timeline read, 5% notifications (send, unread, read). Likes,
//             comments and reposts go to recent messages by Zipf over their recency.
//
// Op k runs at start + k * step: "now" is in every op's args, so replaying the trace
// anywhere gives the same ids and the same times. Same spec, same trace, byte for byte.
#ifndef WEIBO_BENCH_WORKLOAD_H_
#define WEIBO_BENCH_WORKLOAD_H_

#include <cstdint>
#include <string>

#include "trace.h"

namespace weibo::bench {

struct WorkloadSpec {
  std::string kind = "fanout";  // fanout | timeline | retwis | social
  uint64_t seed = 1;
  int64_t users = 1000;
  double follows = 10;                 // mean out-degree of the follow graph
  int64_t history = 3;                 // posts of every user in the setup, before the follows
  int64_t posts = 100;                 // posts after the setup (fanout: all of the work)
  int64_t reads = 500;                 // timeline: reads after the posts
  int64_t ops = 500;                   // retwis: ops of the mix after the posts
  int64_t count = 20;                  // items per timeline read
  double zipf = 1.0;                   // exponent of the author and reader popularity
  std::string author_rank = "fans";    // fans: the most followed post the most | random
  int64_t start_ms = 1704067200000LL;  // 2024-01-01T00:00:00Z; 0: no "now" in the trace
  int64_t step_ms = 1000;              // clock step from one op to the next

  Json ToJson() const;
};

// invalid_argument when a size or the kind is out of range.
Status CheckSpec(const WorkloadSpec& spec);
Trace Generate(const WorkloadSpec& spec);

}  // namespace weibo::bench

#endif  // WEIBO_BENCH_WORKLOAD_H_
