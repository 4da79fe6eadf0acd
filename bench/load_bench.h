// What weibo-bench archive and search share (weibo-bench(1), ARCHIVE and SEARCH): a
// cluster of their own, loaded with --posts posts by --users users through the real post
// flow at one post a second from --now, then measured; their common options, and the
// running of one such subcommand from its parsed options to its printed table or JSON.
#ifndef WEIBO_BENCH_LOAD_BENCH_H_
#define WEIBO_BENCH_LOAD_BENCH_H_

#include <CLI/CLI.hpp>
#include <cstdint>
#include <functional>
#include <string>

#include "weibo/status.h"
#include "weibo/storage.h"

namespace weibo::bench {

struct LoadSpec {
  int64_t posts = 0;
  int64_t users = 0;
  int shards = 16;
  uint64_t seed = 1;
  int64_t start_ms = 1704067200000LL;  // 2024-01-01T00:00:00Z
  int64_t step_ms = 1000;              // clock step from one post to the next
  std::string data;                    // keep the cluster here ("": a temporary directory)
  bool progress = false;
};

// The command-line side of a LoadSpec: --now as given, and --json.
struct LoadFlags {
  std::string now = "2024-01-01T00:00:00Z";
  bool json = false;
};

// Adds --posts, --users, --shards, --seed, --now, --data, --json and --progress to sub;
// the helps name what this subcommand's users, seed and data directory are.
void AddLoadOptions(CLI::App* sub, LoadSpec* spec, LoadFlags* flags, const char* users_help,
                    const char* seed_help, const char* data_help);

// Sets spec->start_ms from flags.now, runs, and prints the results (JSON with --json, else
// table(results)); the exit status, errors reported as every weibo program reports them.
int RunLoadBench(const char* program, LoadSpec* spec, const LoadFlags& flags,
                 const std::function<Result<Json>()>& run,
                 const std::function<std::string(const Json&)>& table);

}  // namespace weibo::bench

#endif  // WEIBO_BENCH_LOAD_BENCH_H_
