#include "search_bench.h"

#include <sqlite3.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <sstream>

#include "cluster.h"
#include "progress.h"
#include "rng.h"
#include "stats.h"
#include "weibo/request.h"

namespace weibo::bench {
namespace {

// Common Chinese characters, in no particular order, and common English words: a post is a
// run of short Chinese phrases and English words, 10 to 70 characters, as Weibo's mixed
// posts are. Zipf-drawn, so some trigrams are everywhere and most are rare.
const char kHanzi[] =
    "的一是在不了有和人这中大为上个国我以要他时来用们生到作地于出就分对成会可主发年动同工也能"
    "下过子说产种面而方后多定行学法所民得经十三之进着等部度家电力里如水化高自二理起小物现实加量"
    "都两体制机当使点从业本去把性好应开它合还因由其些然前外天政四日那社义事平形相全表间样与关各"
    "重新线内数正心反你明看原又么利比或但质气第向道命此变条只没结解问意建月公无系军很情者最立代"
    "想已通并提直题党程展五果料象员革位入常文总次品式活设及管特件长求老头基资边流路级少图山统接"
    "知较将组见计别她手角期根论运农指几九区强放决西被干做必战先回则任取据处府研";
const char* const kWords[] = {
    "the",   "of",    "and",  "to",    "in",    "is",   "you",   "that",  "it",    "was",
    "for",   "on",    "are",  "with",  "they",  "be",   "at",    "one",   "have",  "this",
    "from",  "word",  "but",  "what",  "some",  "we",   "can",   "out",   "other", "were",
    "all",   "there", "when", "up",    "use",   "your", "how",   "said",  "an",    "each",
    "weibo", "feed",  "post", "shard", "index", "news", "today", "happy", "movie", "music"};

class TextMaker {
 public:
  explicit TextMaker(Rng rng) : rng_(rng), words_(std::size(kWords), 1.0) {
    for (size_t i = 0; i + 3 <= sizeof kHanzi - 1; i += 3) chars_.emplace_back(kHanzi + i, 3);
    char_zipf_ = std::make_unique<Zipf>(chars_.size(), 0.8);
  }
  std::string Next() {
    const int64_t length = 10 + static_cast<int64_t>(rng_.Below(61));
    std::string text;
    int64_t n = 0;
    while (n < length) {
      if (rng_.Below(2) == 0) {
        for (uint64_t k = 2 + rng_.Below(5); k > 0 && n < length; --k, ++n)
          text += chars_[char_zipf_->Sample(rng_)];
      } else {
        std::string word = std::string(" ") + kWords[words_.Sample(rng_)] + " ";
        for (char c : word)
          if (n < length) text += c, ++n;
      }
    }
    return text;
  }
  // A random window of 3 code points of text.
  std::string Window(const std::string& text) {
    std::vector<size_t> starts;
    for (size_t i = 0; i < text.size(); i += (static_cast<unsigned char>(text[i]) < 0x80 ? 1 : 3))
      starts.push_back(i);
    starts.push_back(text.size());
    size_t k = rng_.Below(starts.size() - 3);
    return text.substr(starts[k], starts[k + 3] - starts[k]);
  }
  Rng& rng() { return rng_; }

 private:
  Rng rng_;
  Zipf words_;
  std::vector<std::string> chars_;
  std::unique_ptr<Zipf> char_zipf_;
};

// shard-NN.db or search-NN.db (three digits from 128 shards on), as weibo-init names them.
std::string FileName(const char* prefix, int index, int shards) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%s-%0*d.db", prefix, shards > 100 ? 3 : 2, index);
  return buf;
}

Status Check(const Result<Json>& r, const char* what) {
  if (r.ok()) return Status::Ok();
  return Status(r.status().code(), std::string(what) + ": " + r.status().message());
}

// The bytes SQLite uses for some tables of one file: dbstat's pages (the file's logical
// pages, the WAL's included), or every page when names is empty.
Result<int64_t> Bytes(const std::string& path, const char* names) {
  sqlite3* db = nullptr;
  if (sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr) != SQLITE_OK) {
    sqlite3_close_v2(db);
    return Status(Code::kStorageError, "cannot open " + path);
  }
  std::string sql =
      names[0] != '\0' ? std::string("SELECT sum(pgsize) FROM dbstat WHERE name IN (") + names + ")"
                       : "SELECT page_count * page_size FROM pragma_page_count, pragma_page_size";
  sqlite3_stmt* st = nullptr;
  int64_t bytes = -1;
  if (sqlite3_prepare_v2(db, sql.c_str(), -1, &st, nullptr) == SQLITE_OK &&
      sqlite3_step(st) == SQLITE_ROW)
    bytes = sqlite3_column_int64(st, 0);
  sqlite3_finalize(st);
  sqlite3_close_v2(db);
  if (bytes < 0) return Status(Code::kStorageError, "cannot measure " + path);
  return bytes;
}

}  // namespace

Result<Json> RunSearchBench(const SearchBenchSpec& spec) {
  if (spec.posts < 1 || spec.users < 1 || spec.queries < 1 || spec.count < 1 || spec.count > 200)
    return Status(Code::kInvalidArgument,
                  "--posts, --users and --queries must be at least 1, --count 1 to 200");
  if (spec.reuse &&
      (spec.data.empty() || !std::filesystem::exists(spec.data + "/search/cluster.json")))
    return Status(Code::kInvalidArgument,
                  "--reuse needs --data DIR where an earlier run kept its cluster (DIR/search)");
  auto work = WorkDir::Make(spec.data, "weibo-bench");
  if (!work.ok()) return work.status();
  const std::string dir = work.value().path() + "/search";
  Progress progress(spec.progress);
  EmbeddedOptions eo;
  eo.data_dir = dir;
  eo.now_ms = spec.start_ms;
  std::unique_ptr<Executor> ex = OpenEmbedded(eo);
  Status s = spec.reuse
                 ? Status::Ok()
                 : Check(ex->Execute(Request{
                             "init", {{"shards", spec.shards}, {"feed", "push"}, {"force", true}}}),
                         "init");
  if (!s.ok()) return s;
  // A benchmark's setup: no fsync (weibo/storage.h); the queries read, so it changes nothing
  // they measure.
  SetDurableCommits(false);
  progress.Stage("search: users", spec.users);
  for (int64_t u = 1; u <= spec.users && !spec.reuse; ++u) {
    s = Check(ex->Execute(Request{"user_add", {{"name", "u" + std::to_string(u)}}}), "user_add");
    if (!s.ok()) return s;
    progress.Step(u);
  }
  TextMaker texts(Rng(spec.seed));
  Rng authors = texts.rng().Fork(1);
  Zipf author_zipf(static_cast<uint64_t>(spec.users), 1.0);
  std::vector<std::string> sample;  // texts to draw queries from (a reservoir)
  const size_t kSample = 4096;
  progress.Stage("search: posts", spec.posts);
  const auto load_start = std::chrono::steady_clock::now();
  const int64_t kBatch = 1000;  // posts whose index jobs one drain applies together
  for (int64_t k = 0; k < spec.posts; ++k) {
    std::string text = texts.Next();
    Request post{
        "post",
        {{"user", static_cast<int64_t>(author_zipf.Sample(authors)) + 1}, {"content", text}}};
    post.now_ms = spec.start_ms + k * spec.step_ms;
    post.async = true;
    if (!spec.reuse) s = Check(ex->Execute(post), "post");
    if (!s.ok()) return s;
    if (sample.size() < kSample)
      sample.push_back(std::move(text));
    else if (uint64_t slot = texts.rng().Below(static_cast<uint64_t>(k) + 1); slot < kSample)
      sample[slot] = std::move(text);
    if (((k + 1) % kBatch == 0 || k + 1 == spec.posts) && !spec.reuse) {
      s = Check(ex->Execute(Request{"drain", Json::object()}), "drain");
      if (!s.ok()) return s;
      progress.Step(k + 1);
    }
  }
  const double load_s =
      spec.reuse
          ? 0.0
          : std::chrono::duration<double>(std::chrono::steady_clock::now() - load_start).count();
  SetDurableCommits(true);

  Latencies latency;
  int64_t hits = 0, empty = 0;
  progress.Stage("search: queries", spec.queries);
  for (int64_t q = 0; q < spec.queries; ++q) {
    std::string query = texts.Window(sample[texts.rng().Below(sample.size())]);
    auto t0 = std::chrono::steady_clock::now();
    auto r = ex->Execute(Request{"search", {{"query", query}, {"count", spec.count}}});
    auto t1 = std::chrono::steady_clock::now();
    s = Check(r, "search");
    if (!s.ok()) return s;
    latency.Add(std::chrono::duration_cast<std::chrono::nanoseconds>(t1 - t0).count());
    hits += static_cast<int64_t>(r.value().size());
    empty += r.value().empty() ? 1 : 0;
    progress.Step(q + 1);
  }
  ex.reset();
  progress.Clear();

  int64_t index_bytes = 0, msg_info_bytes = 0;
  for (int i = 0; i < spec.shards; ++i) {
    auto a = Bytes(dir + "/" + FileName("search", i, spec.shards), "");
    auto b = Bytes(dir + "/" + FileName("shard", i, spec.shards), "'msg_info','msg_info_by_user'");
    if (!a.ok()) return a.status();
    if (!b.ok()) return b.status();
    index_bytes += a.value();
    msg_info_bytes += b.value();
  }
  Json out{
      {"workload", "search"},
      {"posts", spec.posts},
      {"users", spec.users},
      {"shards", spec.shards},
      {"seed", spec.seed},
      {"load_seconds", load_s},
      {"posts_per_second", load_s > 0 ? Json(static_cast<double>(spec.posts) / load_s) : Json()},
      {"reused", spec.reuse},
      {"queries", spec.queries},
      {"query_chars", 3},
      {"count", spec.count},
      {"mean_results", static_cast<double>(hits) / static_cast<double>(spec.queries)},
      {"empty_results", empty},
      {"latency_ms",
       {{"p50", latency.PercentileMs(50)},
        {"p99", latency.PercentileMs(99)},
        {"max", latency.MaxMs()}}},
      {"index_bytes", index_bytes},
      {"msg_info_bytes", msg_info_bytes},
      {"index_ratio", static_cast<double>(index_bytes) / static_cast<double>(msg_info_bytes)}};
  if (!work.value().temporary()) out["data"] = dir;
  return out;
}

std::string SearchBenchTable(const Json& r) {
  char buf[512];
  std::ostringstream out;
  std::snprintf(buf, sizeof buf,
                "search workload, seed %llu: %lld posts by %lld users on %d shards, ",
                static_cast<unsigned long long>(r.at("seed").get<uint64_t>()),
                static_cast<long long>(r.at("posts").get<int64_t>()),
                static_cast<long long>(r.at("users").get<int64_t>()), r.at("shards").get<int>());
  out << buf;
  if (r.value("reused", false)) {
    out << "loaded by an earlier run (--reuse)\n";
  } else {
    std::snprintf(buf, sizeof buf,
                  "loaded in %.1f s (%.0f posts/s, index fed through the outbox)\n",
                  r.at("load_seconds").get<double>(), r.at("posts_per_second").get<double>());
    out << buf;
  }
  const Json& l = r.at("latency_ms");
  std::snprintf(buf, sizeof buf,
                "%lld queries of 3 characters, --count %lld: p50 %.2f ms  p99 %.2f ms  max %.2f "
                "ms  (%.1f results a query, %lld found nothing)\n",
                static_cast<long long>(r.at("queries").get<int64_t>()),
                static_cast<long long>(r.at("count").get<int64_t>()), l.at("p50").get<double>(),
                l.at("p99").get<double>(), l.at("max").get<double>(),
                r.at("mean_results").get<double>(),
                static_cast<long long>(r.at("empty_results").get<int64_t>()));
  out << buf;
  std::snprintf(buf, sizeof buf,
                "index %lld bytes (search-NN.db) / msg_info %lld bytes (table and its index) = "
                "%.2fx\n",
                static_cast<long long>(r.at("index_bytes").get<int64_t>()),
                static_cast<long long>(r.at("msg_info_bytes").get<int64_t>()),
                r.at("index_ratio").get<double>());
  out << buf;
  if (r.contains("data")) out << "cluster kept in " << r.at("data").get<std::string>() << "\n";
  return out.str();
}

}  // namespace weibo::bench
