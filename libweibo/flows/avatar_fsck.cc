// fsck's "avatars" check (flows/fsck.cc): the files under DATA/heads (flows/avatar.cc).
//
//   a temporary file       a set that died before its rename; repair removes it
//   an unknown user        pictures of a user id no shard knows; repair removes them
//   a set out of step      not all three files, or files of two pictures (their mtimes
//                          differ: set gives all three the same one) — a crash between
//                          set's renames; repair removes the set, so url says not_found
//                          rather than serve one picture at 48 pixels and another at 180
//
// Anything else under heads/ is reported and left alone: fsck deletes only what weibo
// wrote.
#include <sys/stat.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <map>

#include "flows/flows.h"

namespace weibo {
namespace {

namespace fs = std::filesystem;

Json Violation(const std::string& detail, bool repaired) {
  return Json{{"check", "avatars"}, {"detail", detail}, {"repaired", repaired}};
}

// The user whose pictures' directory rel is ("heads/00/00/00/12/34"), or -1.
int64_t UserOfDir(const std::string& rel) {
  if (rel.size() != 20 || rel.compare(0, 5, "heads") != 0) return -1;
  std::string digits;
  for (size_t i = 5; i < rel.size(); i += 3) {
    if (rel[i] != '/' || !std::isdigit(static_cast<unsigned char>(rel[i + 1])) ||
        !std::isdigit(static_cast<unsigned char>(rel[i + 2])))
      return -1;
    digits += rel.substr(i + 1, 2);
  }
  const int64_t user = std::stoll(digits);
  return AvatarDir(user) == rel ? user : -1;
}

}  // namespace

Json CheckAvatarFiles(Context& ctx, const std::set<int64_t>& users, bool repair) {
  Json out = Json::array();
  const fs::path top = fs::path(ctx.shards().dir());
  std::error_code ec;
  if (!fs::is_directory(top / "heads", ec)) return out;
  const std::vector<std::string> names = AvatarFileNames();
  // First the whole walk, in sorted containers (a directory's order is the file system's),
  // then the repairs: nothing is removed under the iterator's feet.
  std::set<fs::path> temps, strays;
  std::map<int64_t, std::vector<fs::path>> sets;  // user -> the pictures found
  for (auto it = fs::recursive_directory_iterator(top / "heads", ec);
       !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
    if (it->is_directory(ec)) continue;
    const fs::path& path = it->path();
    const std::string name = path.filename().string();
    const int64_t user = UserOfDir(path.parent_path().lexically_relative(top).generic_string());
    if (user > 0 && name.find(kAvatarTempMark) != std::string::npos)
      temps.insert(path);
    else if (user > 0 && std::find(names.begin(), names.end(), name) != names.end())
      sets[user].push_back(path);
    else
      strays.insert(path);
  }
  auto rel = [&top](const fs::path& p) { return p.lexically_relative(top).generic_string(); };
  for (const fs::path& path : temps) {
    out.push_back(Violation(rel(path) + " is a temporary file a set left", repair));
    if (repair) fs::remove(path, ec);
  }
  for (const fs::path& path : strays)
    out.push_back(Violation(rel(path) + " is not a file weibo-avatar writes", false));
  for (const auto& [user, files] : sets) {
    std::string wrong;
    std::set<int64_t> mtimes;
    for (const fs::path& f : files) {
      struct stat st;
      if (stat(f.c_str(), &st) == 0) mtimes.insert(st.st_mtim.tv_sec);
    }
    if (!users.count(user))
      wrong = "are of user " + std::to_string(user) + ", who does not exist";
    else if (files.size() != names.size())
      wrong = "lack " + std::to_string(names.size() - files.size()) + " of the three sizes";
    else if (mtimes.size() != 1)
      wrong = "come from two pictures (their mtimes differ)";
    if (wrong.empty()) continue;
    out.push_back(Violation("the pictures in " + AvatarDir(user) + " " + wrong, repair));
    if (repair)
      for (const fs::path& f : files) fs::remove(f, ec);
  }
  return out;
}

}  // namespace weibo
