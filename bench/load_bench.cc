#include "load_bench.h"

#include <iostream>

#include "cli_support.h"
#include "weibo/cli.h"

namespace weibo::bench {

void AddLoadOptions(CLI::App* sub, LoadSpec* spec, LoadFlags* flags, const char* users_help,
                    const char* seed_help, const char* data_help) {
  sub->add_option("--posts", spec->posts, "posts loaded")->capture_default_str();
  sub->add_option("--users", spec->users, users_help)->capture_default_str();
  sub->add_option("--shards", spec->shards, "shards of the cluster, a power of two")
      ->capture_default_str();
  sub->add_option("--seed", spec->seed, seed_help)->capture_default_str();
  sub->add_option("--now", flags->now, "clock of the first post (one second a post)")
      ->capture_default_str();
  sub->add_option("--data", spec->data, data_help);
  sub->add_flag("--json", flags->json, "print the results as one JSON object");
  sub->add_flag("--progress", spec->progress,
                "draw the progress on standard error even when it is no terminal");
}

int RunLoadBench(const char* program, LoadSpec* spec, const LoadFlags& flags,
                 const std::function<Result<Json>()>& run,
                 const std::function<std::string(const Json&)>& table) {
  auto clock = ParseClock(flags.now);
  if (!clock.ok()) return cli::ReportError(program, clock.status(), flags.json);
  if (clock.value() == 0)
    return cli::ReportError(program, Status(Code::kInvalidArgument, "--now must be a time"),
                            flags.json);
  spec->start_ms = clock.value();
  auto r = run();
  if (!r.ok()) return cli::ReportError(program, r.status(), flags.json);
  std::cout << (flags.json ? r.value().dump() + "\n" : table(r.value()));
  return 0;
}

}  // namespace weibo::bench
