#include "star.h"

#include <algorithm>
#include <chrono>
#include <vector>

#include "disk.h"

namespace weibo::bench {
namespace {

double Since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

Result<StarResult> RunStar(Executor& executor, const std::string& data_dir,
                           const std::string& work_dir, const StarOptions& options,
                           Progress& progress) {
  StarResult r;
  r.fans = options.fans;
  int64_t now = options.first_ms;
  auto run = [&](const std::string& op, Json args) -> Status {
    Request request{op, std::move(args)};
    request.now_ms = now;
    if (now != 0) now += options.step_ms;
    Result<Json> result = executor.Execute(request);
    return result.ok() ? Status::Ok() : result.status();
  };
  const int64_t star = options.first_user;
  const std::string star_id = std::to_string(star);
  std::vector<int64_t> fans;
  {
    struct Durable {
      ~Durable() { SetDurableCommits(true); }
    } durable_again;
    SetDurableCommits(options.durable_setup);
    progress.Stage(options.feed + ": star setup", options.fans);
    auto t0 = std::chrono::steady_clock::now();
    Status s = run("user_add", Json{{"name", "star"}});
    for (int64_t k = 1; s.ok() && k <= options.fans; ++k) {
      fans.push_back(star + k);
      s = run("user_add", Json{{"name", "star-fan" + std::to_string(k)}});
      if (s.ok()) s = run("follow", Json{{"user", std::to_string(star + k)}, {"target", star_id}});
      progress.Step(k);
    }
    if (s.ok()) s = SettleWrites(executor);  // the setup's own deferred work, not timed
    if (!s.ok()) return Status(s.code(), "--star setup: " + s.message());
    r.setup_seconds = Since(t0);
  }
  FlushShards(data_dir);
  auto before = SumOverShards(data_dir, kCountInboxRows);
  if (!before.ok()) return before.status();
  // kStarPosts posts, each followed by one run of the ceiling on the same rows: a slow spell
  // of the disk then falls on a post and a ceiling run alike, not on one side of the ratio.
  const std::vector<PostFanOut> rows = {FanOutOf(star, fans, options.cluster.shards)};
  BaselineRun ceiling;
  for (int p = 0; p < kStarPosts; ++p) {
    progress.Stage(options.feed + ": star post " + std::to_string(p + 1), 0);
    auto t0 = std::chrono::steady_clock::now();
    Status s = run("post", Json{{"user", star_id}, {"content", "a post to every fan"}});
    if (s.ok()) s = SettleWrites(executor);  // its search index job and its group commit
    r.post_seconds.push_back(Since(t0));
    if (!s.ok()) return Status(s.code(), "--star post: " + s.message());
    auto one = RunCeiling(work_dir, rows, 1);
    if (!one.ok()) return one.status();
    if (p == 0 || one.value().seconds < ceiling.seconds) ceiling = one.value();
  }
  ceiling.runs = kStarPosts;
  std::vector<double> sorted = r.post_seconds;
  std::sort(sorted.begin(), sorted.end());
  r.seconds = sorted[sorted.size() / 2];
  auto after = SumOverShards(data_dir, kCountInboxRows);
  if (!after.ok()) return after.status();
  r.posts = kStarPosts;
  r.deliveries = (after.value() - before.value()) / kStarPosts;

  progress.Stage(options.feed + ": star baselines", 0);
  auto baselines = RunBaselines(work_dir, rows, options.cluster.shards,
                                options.cluster.group_commit, nullptr, &ceiling);
  if (!baselines.ok()) return baselines.status();
  r.baselines = baselines.value();
  return r;
}

}  // namespace weibo::bench
