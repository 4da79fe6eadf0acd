#include "star.h"

#include <chrono>

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
  progress.Stage(options.feed + ": star post", 0);
  auto before = SumOverShards(data_dir, kCountInboxRows);
  if (!before.ok()) return before.status();
  auto t0 = std::chrono::steady_clock::now();
  Status s = run("post", Json{{"user", star_id}, {"content", "a post to every fan"}});
  if (s.ok()) s = SettleWrites(executor);  // its search index job and its group commit
  r.seconds = Since(t0);
  if (!s.ok()) return Status(s.code(), "--star post: " + s.message());
  auto after = SumOverShards(data_dir, kCountInboxRows);
  if (!after.ok()) return after.status();
  r.deliveries = after.value() - before.value();

  progress.Stage(options.feed + ": star baselines", 0);
  auto baselines = RunBaselines(work_dir, {FanOutOf(star, fans, options.cluster.shards)},
                                options.cluster.shards, options.cluster.group_commit);
  if (!baselines.ok()) return baselines.status();
  r.baselines = baselines.value();
  return r;
}

}  // namespace weibo::bench
