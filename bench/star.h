// --star N (weibo-bench run): after a mode's measured phase, posts by a new author with N
// fans of its own — the largest fan-out of the run, measured alone, beside the baselines of
// one post's rows (the ceiling: the author's row and one per fan in one transaction).
//
// The star and its fans are new users (named star, star-fan1, ...) who follow nobody else,
// so the workload's graph is untouched; they are set up like the workload's setup (without
// fsyncs unless --durable-setup), and the clock goes on from the trace's, one step an op,
// so the fans' last activity spreads over the time their setup took (push delivers in
// activity tiers from 1000 fans on: flows/fanout.cc). It posts kStarPosts times, each post
// timed with the group commit after it, as the measured phase's last op is, and followed
// by one run of the ceiling; a post's deliveries are the msg_index rows the posts added,
// counted from outside, over the posts.
#ifndef WEIBO_BENCH_STAR_H_
#define WEIBO_BENCH_STAR_H_

#include <cstdint>
#include <string>
#include <vector>

#include "baselines.h"
#include "cluster.h"
#include "progress.h"
#include "weibo/request.h"

namespace weibo::bench {

struct StarOptions {
  std::string feed;  // for the progress line
  int64_t fans = 0;
  int64_t first_user = 0;  // the id the star gets: the cluster's users so far + 1
  int64_t first_ms = 0;    // clock of the first op (0: the system's) and step from op to op
  int64_t step_ms = 1000;
  ClusterOptions cluster;
  bool durable_setup = false;
};

// The star posts this many times, each post followed by one run of the ceiling (baselines.h)
// on its rows; the post's time is the median of the posts', the ceiling the fastest run.
constexpr int kStarPosts = 3;

struct StarResult {
  int64_t fans = 0;
  int64_t posts = 0;       // kStarPosts
  int64_t deliveries = 0;  // rows one post added: the posts' rows / posts
  double setup_seconds = 0;
  double seconds = 0;                // one post's: the median of post_seconds
  std::vector<double> post_seconds;  // each post's, with its settling, in order
  Baselines baselines;
  double DeliveriesPerSecond() const { return seconds > 0 ? deliveries / seconds : 0; }
};

// Runs it through executor on the cluster in data_dir; the baselines in work_dir.
Result<StarResult> RunStar(Executor& executor, const std::string& data_dir,
                           const std::string& work_dir, const StarOptions& options,
                           Progress& progress);

}  // namespace weibo::bench

#endif  // WEIBO_BENCH_STAR_H_
