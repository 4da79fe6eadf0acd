#include "cli_support.h"

#include <algorithm>
#include <fstream>
#include <iostream>

#include "weibo/time.h"

namespace weibo::bench {

void AddWorkloadOptions(CLI::App* app, WorkloadSpec* spec) {
  app->add_option("--workload", spec->kind, "fanout, timeline, retwis or social")
      ->capture_default_str();
  app->add_option("--seed", spec->seed, "seed of the generator: same seed, same trace")
      ->capture_default_str();
  app->add_option("--users", spec->users, "users created in the setup")->capture_default_str();
  app->add_option("--follows", spec->follows, "mean follows per user (power-law graph)")
      ->capture_default_str();
  app->add_option("--history", spec->history,
                  "posts of every user in the setup, before the follows")
      ->capture_default_str();
  app->add_option("--posts", spec->posts, "posts after the setup")->capture_default_str();
  app->add_option("--reads", spec->reads, "timeline workload: reads after the posts")
      ->capture_default_str();
  app->add_option("--ops", spec->ops, "retwis and social workloads: ops of the mix after the posts")
      ->capture_default_str();
  app->add_option("--count", spec->count, "items per timeline read, 1 to 200")
      ->capture_default_str();
  app->add_option("--zipf", spec->zipf, "Zipf exponent of author and reader popularity")
      ->capture_default_str();
  app->add_option("--author-rank", spec->author_rank,
                  "fans: the most followed post the most; random: independent")
      ->capture_default_str();
}

std::vector<CLI::Option*> AddClusterOptions(CLI::App* app, ClusterFlags* flags) {
  return {
      app->add_option("--shards", flags->shards, "shards of each cluster, a power of two")
          ->capture_default_str(),
      app->add_option("--celebrity-threshold", flags->threshold,
                      "hybrid: fans from which an author is pulled, or auto (top 1%)")
          ->capture_default_str(),
      app->add_option("--active-list", flags->active_list,
                      "hybrid: fans on each author's active list, or auto (the threshold)")
          ->capture_default_str(),
      app->add_option("--inbox-cap", flags->inbox_cap, "push inbox rows kept per user (0: default)")
          ->capture_default_str(),
      app->add_option("--group-commit", flags->group_commit,
                      "deliveries whose done marks may wait for one shared sync of each shard, "
                      "as weibod's --group-commit (0: every post syncs its own deliveries)")
          ->check(CLI::Range(0, 100000))
          ->capture_default_str(),
      app->add_flag("--durable-setup", flags->durable_setup,
                    "run the setup with synchronous=FULL too (slow)"),
      app->add_option("--durability", flags->durability,
                      "the clusters' durability, full or normal (weibo-init(1))")
          ->check(CLI::IsMember({"full", "normal"}))
          ->capture_default_str(),
      app->add_option("--strategy", flags->strategy,
                      "the clusters' message sharding (weibo-init(1)), or all: compare the "
                      "strategies by the shards and statements of each kind of op")
          ->check(CLI::IsMember({"gene", "uid-mapping", "tid", "all"}))
          ->capture_default_str()};
}

Result<int64_t> ParseClock(const std::string& text) {
  if (text == "none") return int64_t{0};
  auto ms = ParseNow(Json(text));
  if (!ms || *ms < kEarliestTimeMs)
    return Status(
        Code::kInvalidArgument,
        "--now must be none, or epoch seconds or ISO 8601 from 2020-01-01 on, not '" + text + "'");
  return *ms;
}

Result<std::vector<std::string>> ParseFeeds(const std::string& text) {
  if (text == "all") return std::vector<std::string>{"push", "pull", "hybrid"};
  if (text == "push" || text == "pull" || text == "hybrid") return std::vector<std::string>{text};
  return Status(Code::kInvalidArgument,
                "--feed must be push, pull, hybrid or all, not '" + text + "'");
}

namespace {

// A positive count given as text, for the options that also take "auto".
bool ParseCount(const std::string& t, int64_t* out) {
  if (t.empty() || t.size() > 12 || t.find_first_not_of("0123456789") != std::string::npos ||
      std::stoll(t) < 1)
    return false;
  *out = std::stoll(t);
  return true;
}

}  // namespace

Status ResolveCluster(const ClusterFlags& flags, const TraceModel& model, ClusterOptions* options) {
  options->shards = flags.shards;
  options->inbox_cap = flags.inbox_cap;
  options->group_commit = flags.group_commit;
  options->durability = flags.durability;
  options->strategy = flags.strategy == "all" ? "gene" : flags.strategy;
  if (flags.inbox_cap < 0)
    return Status(Code::kInvalidArgument, "--inbox-cap must not be negative");
  if (flags.threshold == "auto")
    options->celebrity_threshold = AutoCelebrityThreshold(model);
  else if (!ParseCount(flags.threshold, &options->celebrity_threshold))
    return Status(
        Code::kInvalidArgument,
        "--celebrity-threshold must be auto or a positive number, not '" + flags.threshold + "'");
  // The library's defaults pair a threshold of 10000 fans with lists of 10000: a pushed
  // author (below the threshold) can list every fan who reads, and a fan who does not read
  // is not listed (weibo(7), THE HYBRID'S DEFAULTS). auto keeps that for the threshold in use.
  if (flags.active_list == "auto")
    options->active_list = options->celebrity_threshold;
  else if (!ParseCount(flags.active_list, &options->active_list))
    return Status(Code::kInvalidArgument, "--active-list must be auto or a positive number, not '" +
                                              flags.active_list + "'");
  return Status::Ok();
}

Result<Trace> LoadTrace(const std::string& path) {
  if (path == "-") return ReadTrace(std::cin, "<stdin>");
  std::ifstream in(path);
  if (!in) return Status(Code::kNotFound, "cannot open trace " + path);
  return ReadTrace(in, path);
}

Status WriteText(const std::string& path, const std::string& text) {
  if (path == "-") {
    std::cout << text << std::flush;
    return Status::Ok();
  }
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
  out.close();
  if (!out) return Status(Code::kStorageError, "cannot write " + path);
  return Status::Ok();
}

}  // namespace weibo::bench
