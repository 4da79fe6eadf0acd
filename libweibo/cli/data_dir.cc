// --data DIR, the same option in every program, and where the data directory is when it
// is not given (weibo(7), FILES).
#include <sys/stat.h>
#include <unistd.h>

#include "weibo/cli.h"

namespace weibo::cli {
namespace {

bool IsFile(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

}  // namespace

CLI::Option* AddDataOption(CLI::App& app, std::string* dir) {
  return app
      .add_option("--data", *dir,
                  "data directory holding cluster.json and the shards (default: shards/ here "
                  "or in the nearest directory above that has a shards/cluster.json, else "
                  "./shards)")
      ->envname("WEIBO_DATA")
      ->type_name("DIR");
}

std::string FindDataDir() {
  // As git finds .git: the working directory's shards/ if it is a cluster, else the
  // nearest parent's. None: ./shards, where weibo-init creates one.
  if (IsFile("shards/cluster.json")) return "./shards";
  char buf[4096];
  if (getcwd(buf, sizeof buf) == nullptr) return "./shards";
  std::string dir = buf;
  while (dir.size() > 1) {
    dir = dir.substr(0, dir.rfind('/'));
    if (dir.empty()) dir = "/";
    const std::string candidate = (dir == "/" ? "" : dir) + "/shards";
    if (IsFile(candidate + "/cluster.json")) return candidate;
  }
  return "./shards";
}

std::string DataDir(const CLI::Option* option, const std::string& given) {
  return option->count() > 0 ? given : FindDataDir();
}

}  // namespace weibo::cli
