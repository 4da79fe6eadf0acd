#include "cluster.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "weibo/request.h"

namespace weibo::bench {

Status SettleWrites(Executor& executor) {
  // keep_seen: a drain's other chores (last-seen expiry, discover) are not the writes' work.
  Result<Json> drained = executor.Execute(Request{"drain", Json{{"keep_seen", true}}});
  executor.Idle();
  return drained.status();
}

Status CreateCluster(const std::string& dir, const std::string& feed,
                     const ClusterOptions& options) {
  std::error_code ec;
  if (std::filesystem::exists(dir + "/cluster.json", ec))
    return Status(Code::kInvalidArgument,
                  dir + " already holds a cluster: give --data a directory without one");
  EmbeddedOptions embedded;
  embedded.data_dir = dir;
  Result<Json> init =
      OpenEmbedded(embedded)->Execute(Request{"init", Json{{"shards", options.shards},
                                                           {"feed", feed},
                                                           {"durability", options.durability},
                                                           {"strategy", options.strategy}}});
  if (!init.ok()) return init.status();
  if (options.celebrity_threshold == 0 && options.inbox_cap == 0 && options.active_list == 0)
    return Status::Ok();
  const std::string path = dir + "/cluster.json";
  Json config;
  {
    std::ifstream in(path);
    config = Json::parse(in, nullptr, /*allow_exceptions=*/false);
  }
  if (config.is_discarded() || !config.is_object())
    return Status(Code::kStorageError, path + " is not the JSON object init wrote");
  if (options.celebrity_threshold != 0) config["celebrity_threshold"] = options.celebrity_threshold;
  if (options.inbox_cap != 0) config["inbox_cap"] = options.inbox_cap;
  if (options.active_list != 0) config["active_list"] = options.active_list;
  std::ofstream out(path + ".tmp");
  out << config.dump(2) << "\n";
  out.close();
  if (!out || std::rename((path + ".tmp").c_str(), path.c_str()) != 0)
    return Status(Code::kStorageError, "cannot write " + path);
  return Status::Ok();
}

Result<WorkDir> WorkDir::Make(const std::string& given, const std::string& program) {
  std::error_code ec;
  if (!given.empty()) {
    std::filesystem::create_directories(given, ec);
    if (ec) return Status(Code::kStorageError, "cannot create " + given + ": " + ec.message());
    return WorkDir(given, false);
  }
  const char* tmp = std::getenv("TMPDIR");
  std::string pattern = std::string(tmp && *tmp ? tmp : "/tmp") + "/" + program + "-XXXXXX";
  if (mkdtemp(pattern.data()) == nullptr)
    return Status(Code::kStorageError, "cannot create a temporary directory like " + pattern);
  return WorkDir(pattern, true);
}

WorkDir::WorkDir(WorkDir&& other) noexcept
    : path_(std::move(other.path_)), temporary_(other.temporary_) {
  other.temporary_ = false;
}

WorkDir::~WorkDir() {
  std::error_code ec;
  if (temporary_) std::filesystem::remove_all(path_, ec);
}

}  // namespace weibo::bench
