// The embedded executor: runs a Request against the shard files of one data directory.
// Every failure becomes a Status here, at the library's edge: Failure from the flows,
// exceptions from nlohmann/json, anything else as storage_error.
#include <algorithm>
#include <memory>

#include "flows/flows.h"
#include "jobs/jobs.h"
#include "ops/args.h"
#include "storage/failure.h"
#include "storage/gene_id.h"
#include "weibo/ops.h"

namespace weibo {
namespace {

using Handler = Json (*)(Context&, const Json&);

struct Route {
  const char* op;
  Handler handler;
};

const Route kRoutes[] = {
    {"user_add", UserAdd},  {"user_show", UserShow}, {"user_list", UserList},
    {"follow", Follow},     {"unfollow", Unfollow},  {"post", Post},
    {"repost", Repost},     {"comment", Comment},    {"delete", Delete},
    {"timeline", Timeline}, {"show", Show},          {"comments", Comments},
    {"reposts", Reposts},   {"count", Count},        {"fsck", Fsck},
    {"drain", Drain},
};

Handler FindHandler(const std::string& op) {
  for (const auto& r : kRoutes)
    if (op == r.op) return r.handler;
  return nullptr;
}

Json Init(const EmbeddedOptions& options, const Json& args) {
  ClusterConfig config;
  config.shards = static_cast<int>(args.value("shards", int64_t{16}));
  config.feed = args.value("feed", config.feed);
  config.page_size = static_cast<int>(args.value("page_size", int64_t{20}));
  config.strategy = args.value("strategy", config.strategy);
  config.inbox_cap = static_cast<int>(args.value("inbox_cap", int64_t{config.inbox_cap}));
  config.celebrity_threshold = args.value("celebrity_threshold", config.celebrity_threshold);
  config.active_list = args.value("active_list", config.active_list);
  config.tier_fans = args.value("tier_fans", config.tier_fans);
  ShardSet::Create(options.data_dir, config, args.value("force", false));
  return Json{{"data", options.data_dir},
              {"shards", config.shards},
              {"feed", config.feed},
              {"page_size", config.page_size},
              {"strategy", config.strategy}};
}

class Embedded : public Executor {
 public:
  explicit Embedded(EmbeddedOptions options) : options_(std::move(options)) {}
  ~Embedded() override { Idle(); }

  void Idle() override {
    if (!shards_) return;
    try {
      SyncAppliedJobs(*shards_);
    } catch (const std::exception&) {  // the jobs stay pending; the next drain applies them
    }
  }

  Result<Json> Execute(const Request& request) override {
    log_.clear();
    try {
      const OpSpec* op = FindOperation(request.op);
      if (op == nullptr) Fail(Code::kInvalidRequest, "unknown op '" + request.op + "'");
      Json args = ValidateArgs(*op, request.args);
      // A request's own clock is as untrusted as its args (a trace's "now", a fuzzed one);
      // the CLI and the wire refuse it earlier with their own words (storage/gene_id.h).
      if (request.now_ms != 0 && !ClockInRange(request.now_ms))
        Fail(Code::kInvalidArgument, "now must be " + ClockRange());
      if (request.op == "init") {
        Idle();
        shards_.reset();
        return Init(options_, args);
      }
      Handler handler = FindHandler(request.op);
      if (!shards_) {
        shards_ = std::make_unique<ShardSet>(options_.data_dir, Log());
        shards_->set_group_commit(static_cast<size_t>(std::max(0, options_.group_commit)));
      }
      Context ctx(*shards_, Clock(request.now_ms != 0 ? request.now_ms : options_.now_ms));
      ctx.set_drain(options_.drain && !request.async);
      ctx.set_transport(options_.transport);
      ctx.set_request(request.id, request.op);
      Json result = handler(ctx, args);
      if (op->writes) shards_->CheckpointOpened();
      return result;
    } catch (const Failure& f) {
      return f.status();
    } catch (const nlohmann::json::exception& e) {
      return Status(Code::kInvalidRequest, std::string("malformed request: ") + e.what());
    } catch (const std::exception& e) {
      return Status(Code::kStorageError, e.what());
    }
  }

  std::vector<std::string> Explain() const override { return log_; }

 private:
  std::vector<std::string>* Log() { return options_.explain ? &log_ : nullptr; }
  EmbeddedOptions options_;
  std::unique_ptr<ShardSet> shards_;
  std::vector<std::string> log_;
};

}  // namespace

std::unique_ptr<Executor> OpenEmbedded(const EmbeddedOptions& options) {
  return std::make_unique<Embedded>(options);
}

}  // namespace weibo
