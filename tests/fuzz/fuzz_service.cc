// fuzz_service: untrusted bytes through everything weibod does with a request body —
// net/wire.cc's parsing (size, nesting depth, UTF-8, JSON, field types), the dedup window,
// the op table, argument validation (ops/args.cc) and the flows themselves — on a small
// cluster made once per process in a temporary directory. The property: Handle never
// crashes, leaks or trips a sanitizer, and always answers one well-formed reply of the
// protocol (ParseReply accepts it) that carries the request's id when it had a valid one.
//
// The same entry point is built twice (tests/fuzz/CMakeLists.txt): with clang and
// -fsanitize=fuzzer as a libFuzzer target, and with the main build's compiler as
// fuzz_replay, which feeds it every file of the committed corpus (replay_main.cc).
#include <stdlib.h>

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>

#include "daemon/service.h"
#include "net/wire.h"
#include "weibo/request.h"

namespace {

// 2026-01-01T00:00:00Z: the seed cluster's clock, so its message ids are the same in every
// run and the corpus can name them (see corpus/README).
constexpr int64_t kSeedNow = 1767225600000LL;

class FuzzCluster {
 public:
  FuzzCluster() {
    const char* base = getenv("TMPDIR");
    std::string root = std::filesystem::exists("/dev/shm") ? "/dev/shm" : (base ? base : "/tmp");
    std::string tmpl = root + "/weibo-fuzz-XXXXXX";
    if (mkdtemp(tmpl.data()) == nullptr) {
      perror("mkdtemp");
      abort();
    }
    dir_ = tmpl;
    Seed();
    weibo::DaemonOptions options;
    options.data_dir = dir_;
    options.rate = 0;            // no rate limit: every input reaches the op table
    options.allow_clock = true;  // inputs with a "now" reach the flows too
    options.dedup = 64;          // a small dedup window, so eviction runs too
    options.dedup_bytes = 1 << 20;
    service_ = std::make_unique<weibo::daemon::Service>(options);
  }
  ~FuzzCluster() {
    service_.reset();
    std::error_code ignored;
    std::filesystem::remove_all(dir_, ignored);
  }

  weibo::daemon::Service& service() { return *service_; }

 private:
  void Run(const std::string& op, weibo::Json args) {
    weibo::EmbeddedOptions eo;
    eo.data_dir = dir_;
    eo.now_ms = kSeedNow;
    if (!executor_) executor_ = weibo::OpenEmbedded(eo);
    auto r = executor_->Execute(weibo::Request{op, std::move(args)});
    if (!r.ok()) {
      fprintf(stderr, "fuzz seed cluster: %s failed: %s\n", op.c_str(),
              r.status().message().c_str());
      abort();
    }
    if (op == "post" || op == "comment" || op == "repost")
      fprintf(stderr, "fuzz seed cluster: %s %s\n", op.c_str(),
              r.value().at("id").get<std::string>().c_str());
  }

  // Users 1 alice, 2 bob, 3 carol; bob and carol follow alice; alice posts twice, bob
  // comments on her first post and carol reposts it. With this clock and 4 shards her posts
  // are 794354201395200001 and 794354201395200257 (tests/fuzz/make_corpus.py uses them).
  void Seed() {
    Run("init", {{"shards", 4}, {"feed", "push"}, {"page_size", 2}});
    for (const char* name : {"alice", "bob", "carol"}) Run("user_add", {{"name", name}});
    Run("follow", {{"user", "@bob"}, {"target", "@alice"}});
    Run("follow", {{"user", "@carol"}, {"target", "@alice"}});
    Run("post", {{"user", "@alice"}, {"content", "seed post"}});
    Run("post", {{"user", "@alice"}, {"content", "the one the corpus deletes"}});
    Run("comment", {{"user", "@bob"}, {"msg", "794354201395200001"}, {"content", "seed comment"}});
    Run("repost", {{"user", "@carol"}, {"msg", "794354201395200001"}});
    executor_.reset();
  }

  std::string dir_;
  std::unique_ptr<weibo::Executor> executor_;
  std::unique_ptr<weibo::daemon::Service> service_;
};

FuzzCluster& Cluster() {
  static FuzzCluster* cluster = new FuzzCluster();  // lives until exit, by design
  return *cluster;
}

void RemoveAtExit() { delete &Cluster(); }

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static bool once = [] {
    Cluster();
    atexit(RemoveAtExit);
    return true;
  }();
  (void)once;
  std::string body(reinterpret_cast<const char*>(data), size);
  std::string reply = Cluster().service().Handle("fuzz-peer", body);
  static const bool verbose = getenv("WEIBO_FUZZ_VERBOSE") != nullptr;
  if (verbose) fprintf(stderr, "%.300s\n", reply.c_str());
  weibo::net::WireReply parsed;
  if (!weibo::net::ParseReply(reply, &parsed)) {
    fprintf(stderr, "not a reply of the protocol: %s\n", reply.c_str());
    abort();
  }
  // A request whose id could be read gets it back, whatever else was wrong with it.
  weibo::net::WireRequest wire;
  (void)weibo::net::ParseRequest(body, weibo::net::WireLimits{}, &wire);
  if (wire.id.is_string() && parsed.id != wire.id) {
    fprintf(stderr, "reply id %s for request id %s\n", parsed.id.dump().c_str(),
            wire.id.dump().c_str());
    abort();
  }
  return 0;
}
