#include "archive_bench.h"

#include <sqlite3.h>

#include <chrono>
#include <cstdio>
#include <sstream>

#include "cluster.h"
#include "progress.h"
#include "rng.h"
#include "stats.h"
#include "weibo/request.h"
#include "weibo/time.h"

namespace weibo::bench {
namespace {

Status Check(const Result<Json>& r, const char* what) {
  if (r.ok()) return Status::Ok();
  return Status(r.status().code(), std::string(what) + ": " + r.status().message());
}

// The bytes a file's data takes: its pages less the free ones (a shard does not shrink on
// disk when rows leave it; SQLite reuses the pages), the WAL's included.
Result<int64_t> UsedBytes(const std::string& path) {
  sqlite3* db = nullptr;
  if (sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr) != SQLITE_OK) {
    sqlite3_close_v2(db);
    return Status(Code::kStorageError, "cannot open " + path);
  }
  sqlite3_stmt* st = nullptr;
  int64_t bytes = -1;
  if (sqlite3_prepare_v2(db,
                         "SELECT (c.page_count - f.freelist_count) * s.page_size FROM "
                         "pragma_page_count c, pragma_freelist_count f, pragma_page_size s",
                         -1, &st, nullptr) == SQLITE_OK &&
      sqlite3_step(st) == SQLITE_ROW)
    bytes = sqlite3_column_int64(st, 0);
  sqlite3_finalize(st);
  sqlite3_close_v2(db);
  if (bytes < 0) return Status(Code::kStorageError, "cannot measure " + path);
  return bytes;
}

Result<int64_t> Total(const std::string& dir, const char* prefix, int shards) {
  int64_t total = 0;
  for (int i = 0; i < shards; ++i) {
    char name[32];
    std::snprintf(name, sizeof name, "%s-%0*d.db", prefix, shards > 100 ? 3 : 2, i);
    auto b = UsedBytes(dir + "/" + name);
    if (!b.ok()) return b.status();
    total += b.value();
  }
  return total;
}

// First pages (20 items) of the home timelines of random readers, timed one by one.
Result<Json> TimeReads(Executor& ex, const ArchiveBenchSpec& spec, Rng rng, Progress& progress,
                       const char* stage) {
  Latencies latency;
  progress.Stage(stage, spec.reads);
  for (int64_t k = 0; k < spec.reads; ++k) {
    Request read{"timeline",
                 {{"user", static_cast<int64_t>(rng.Below(static_cast<uint64_t>(spec.users))) + 1},
                  {"count", 20}}};
    auto t0 = std::chrono::steady_clock::now();
    auto r = ex.Execute(read);
    auto t1 = std::chrono::steady_clock::now();
    Status s = Check(r, "timeline");
    if (!s.ok()) return s;
    latency.Add(std::chrono::duration_cast<std::chrono::nanoseconds>(t1 - t0).count());
    progress.Step(k + 1);
  }
  return Json{{"p50", latency.PercentileMs(50)}, {"p99", latency.PercentileMs(99)}};
}

Status Load(Executor& ex, const ArchiveBenchSpec& spec, Progress& progress) {
  Status s;
  progress.Stage("archive: users", spec.users);
  for (int64_t u = 1; u <= spec.users; ++u) {
    s = Check(ex.Execute(Request{"user_add", {{"name", "u" + std::to_string(u)}}}), "user_add");
    if (!s.ok()) return s;
    progress.Step(u);
  }
  Rng rng(spec.seed);
  Rng follows = rng.Fork(1), authors = rng.Fork(2);
  progress.Stage("archive: follows", spec.users);
  for (int64_t u = 1; u <= spec.users; ++u) {
    for (int64_t f = 0; f < spec.follows && spec.users > 1; ++f) {
      int64_t target = static_cast<int64_t>(follows.Below(static_cast<uint64_t>(spec.users))) + 1;
      if (target == u) continue;
      Request follow{"follow", {{"user", u}, {"target", target}, {"exist_ok", true}}};
      follow.now_ms = spec.start_ms;
      s = Check(ex.Execute(follow), "follow");
      if (!s.ok()) return s;
    }
    progress.Step(u);
  }
  Zipf author_zipf(static_cast<uint64_t>(spec.users), 1.0);
  progress.Stage("archive: posts", spec.posts);
  const int64_t kBatch = 1000;  // posts whose fan-out one drain applies together
  for (int64_t k = 0; k < spec.posts; ++k) {
    Request post{"post",
                 {{"user", static_cast<int64_t>(author_zipf.Sample(authors)) + 1},
                  {"content", "post " + std::to_string(k)}}};
    post.now_ms = spec.start_ms + k * spec.step_ms;
    post.async = true;
    s = Check(ex.Execute(post), "post");
    if (!s.ok()) return s;
    if ((k + 1) % kBatch == 0 || k + 1 == spec.posts) {
      s = Check(ex.Execute(Request{"drain", Json::object()}), "drain");
      if (!s.ok()) return s;
      progress.Step(k + 1);
    }
  }
  return Status::Ok();
}

}  // namespace

Result<Json> RunArchiveBench(const ArchiveBenchSpec& spec) {
  if (spec.posts < 1 || spec.users < 1 || spec.follows < 0 || spec.reads < 1 ||
      !(spec.fraction > 0 && spec.fraction < 1))
    return Status(Code::kInvalidArgument,
                  "--posts, --users and --reads must be at least 1, --follows at least 0, "
                  "--fraction between 0 and 1");
  auto work = WorkDir::Make(spec.data, "weibo-bench");
  if (!work.ok()) return work.status();
  const std::string dir = work.value().path() + "/archive";
  Progress progress(spec.progress);
  // The clock of the reads and the archive run: a second after the last post.
  const int64_t end_ms = spec.start_ms + spec.posts * spec.step_ms + 1000;
  EmbeddedOptions eo;
  eo.data_dir = dir;
  eo.now_ms = end_ms;
  std::unique_ptr<Executor> ex = OpenEmbedded(eo);
  Status s = Check(
      ex->Execute(Request{"init", {{"shards", spec.shards}, {"feed", spec.feed}, {"force", true}}}),
      "init");
  if (!s.ok()) return s;
  SetDurableCommits(false);  // the setup only: the reads and the archive run are durable
  const auto load_start = std::chrono::steady_clock::now();
  s = Load(*ex, spec, progress);
  if (!s.ok()) return s;
  const double load_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - load_start).count();
  SetDurableCommits(true);
  ex = OpenEmbedded(eo);  // fresh connections: the same cache state on both sides
  Rng reads(spec.seed ^ 0x5eed);
  auto before_ms = TimeReads(*ex, spec, reads, progress, "archive: reads before");
  if (!before_ms.ok()) return before_ms.status();
  auto before_bytes = Total(dir, "shard", spec.shards);
  if (!before_bytes.ok()) return before_bytes.status();

  const int64_t cut = static_cast<int64_t>(static_cast<double>(spec.posts) * spec.fraction);
  const std::string before = FormatTime(spec.start_ms + cut * spec.step_ms);
  progress.Stage("archive: moving", 1);
  const auto t0 = std::chrono::steady_clock::now();
  auto moved = ex->Execute(Request{"archive", {{"before", before}}});
  const double archive_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  s = Check(moved, "archive");
  if (!s.ok()) return s;
  ex = OpenEmbedded(eo);
  auto after_ms = TimeReads(*ex, spec, reads, progress, "archive: reads after");
  if (!after_ms.ok()) return after_ms.status();
  ex.reset();
  progress.Clear();
  auto after_bytes = Total(dir, "shard", spec.shards);
  auto archive_bytes = Total(dir, "archive", spec.shards);
  if (!after_bytes.ok()) return after_bytes.status();
  if (!archive_bytes.ok()) return archive_bytes.status();
  Json out{{"workload", "archive"},
           {"posts", spec.posts},
           {"users", spec.users},
           {"follows", spec.follows},
           {"feed", spec.feed},
           {"shards", spec.shards},
           {"seed", spec.seed},
           {"reads", spec.reads},
           {"load_seconds", load_s},
           {"archive",
            {{"before", before},
             {"fraction", spec.fraction},
             {"seconds", archive_s},
             {"messages", moved.value().at("messages")},
             {"inbox", moved.value().at("inbox")},
             {"bytes", archive_bytes.value()}}},
           {"before", {{"live_bytes", before_bytes.value()}, {"timeline_ms", before_ms.value()}}},
           {"after", {{"live_bytes", after_bytes.value()}, {"timeline_ms", after_ms.value()}}}};
  if (!work.value().temporary()) out["data"] = dir;
  return out;
}

std::string ArchiveBenchTable(const Json& r) {
  char buf[512];
  std::ostringstream out;
  std::snprintf(buf, sizeof buf,
                "archive workload, seed %llu: %lld posts by %lld users (%lld follows each, feed "
                "%s) on %d shards, loaded in %.1f s\n",
                static_cast<unsigned long long>(r.at("seed").get<uint64_t>()),
                static_cast<long long>(r.at("posts").get<int64_t>()),
                static_cast<long long>(r.at("users").get<int64_t>()),
                static_cast<long long>(r.at("follows").get<int64_t>()),
                r.at("feed").get<std::string>().c_str(), r.at("shards").get<int>(),
                r.at("load_seconds").get<double>());
  out << buf;
  const Json& a = r.at("archive");
  std::snprintf(buf, sizeof buf,
                "weibo-archive --before %s (the oldest %.0f%%): %lld messages and %lld inbox rows "
                "in %.1f s; archive files %lld bytes\n",
                a.at("before").get<std::string>().c_str(), a.at("fraction").get<double>() * 100,
                static_cast<long long>(a.at("messages").get<int64_t>()),
                static_cast<long long>(a.at("inbox").get<int64_t>()), a.at("seconds").get<double>(),
                static_cast<long long>(a.at("bytes").get<int64_t>()));
  out << buf;
  out << "                 live shards (bytes)   home timeline p50 (ms)   p99 (ms)\n";
  for (const char* side : {"before", "after"}) {
    const Json& x = r.at(side);
    std::snprintf(buf, sizeof buf, "%-16s %20lld %24.3f %10.3f\n", side,
                  static_cast<long long>(x.at("live_bytes").get<int64_t>()),
                  x.at("timeline_ms").at("p50").get<double>(),
                  x.at("timeline_ms").at("p99").get<double>());
    out << buf;
  }
  if (r.contains("data")) out << "cluster kept in " << r.at("data").get<std::string>() << "\n";
  return out.str();
}

}  // namespace weibo::bench
