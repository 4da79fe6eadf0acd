// avatar_set, avatar_url, avatar_rm: weibo-avatar(1), seed 001's avatars. No shard row:
// a user's pictures are three files in the data directory,
//
//   DATA/heads/00/00/00/12/34/head.jpg, head_180x180.jpg, head_48x48.jpg   (user 1234)
//
// the id zero-padded to 10 digits and split in pairs, so that no directory holds more
// than 100 entries however many users there are (the seed: one flat heads/ directory
// slows every lookup once it holds millions). The names never change, so a cache in
// front (Squid, a CDN) would serve an old picture for as long as it keeps it: url appends
// ?t=<mtime>, and each set gives the files a later mtime than the last one's, so a new
// picture is a new address.
//
// Each file is written as a temporary file beside it, fsync'ed, and renamed over the old
// one (then the directory is fsync'ed): a reader sees the old file or the new one, never
// half of one. The three renames are not one step; a crash between them leaves some
// sizes new and some old, and a crash before them a temporary file — fsck reports both
// (CheckAvatarFiles), and set again mends them.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>

#include "flows/avatar_image.h"
#include "flows/flows.h"
#include "storage/failure.h"
#include "storage/files.h"

namespace weibo {
namespace {

// The sizes url serves, and the original, in the order set renames them.
struct AvatarFile {
  int size;  // 0: the original
  const char* name;
};
constexpr AvatarFile kAvatarFiles[] = {
    {0, "head.jpg"}, {180, "head_180x180.jpg"}, {48, "head_48x48.jpg"}};

[[noreturn]] void FailErrno(const std::string& what) {
  Fail(Code::kStorageError, what + ": " + std::strerror(errno));
}

int64_t MtimeSeconds(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0 ? static_cast<int64_t>(st.st_mtim.tv_sec) : -1;
}

void SyncDirectory(const std::string& dir) {
  int fd = open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0 || fsync(fd) != 0) FailErrno("cannot sync " + dir);
  close(fd);
}

const AvatarFile& FileOfSize(int size) {
  for (const AvatarFile& f : kAvatarFiles)
    if (f.size == size) return f;
  Fail(Code::kInvalidArgument, "--size must be 48 or 180, not " + std::to_string(size));
}

std::string UserIdText(int64_t user) { return std::to_string(user); }

}  // namespace

void WriteAtomically(const std::string& path, const std::string& bytes, int64_t t) {
  if (!ReplaceFile(path, path + kAvatarTempMark + std::to_string(getpid()), bytes, t, true))
    FailErrno("cannot write " + path);
}

std::string AvatarDir(int64_t user) {
  char digits[11];
  std::snprintf(digits, sizeof digits, "%010lld", static_cast<long long>(user));
  std::string dir = "heads";
  for (int i = 0; i < 10; i += 2) dir += std::string("/") + digits[i] + digits[i + 1];
  return dir;
}

std::vector<std::string> AvatarFileNames() {
  std::vector<std::string> names;
  for (const AvatarFile& f : kAvatarFiles) names.push_back(f.name);
  return names;
}

Json AvatarSet(Context& ctx, const Json& args) {
  const int64_t user = ctx.ResolveUser(args.at("user"));
  // The edge (ops/args.cc) has checked the base64 and the size.
  const AvatarImages images = MakeAvatarImages(*DecodeBase64(args.at("image").get<std::string>()));
  const std::string rel = AvatarDir(user), dir = ctx.shards().dir() + "/" + rel;
  for (size_t end = rel.find('/');; end = rel.find('/', end + 1)) {
    const std::string part = ctx.shards().dir() + "/" + rel.substr(0, end);
    if (!MakePrivateDir(part) && errno != EEXIST) FailErrno("cannot create " + part);
    if (end == std::string::npos) break;
  }
  // Later than the clock's second and than the picture it replaces, so that two pictures
  // set within one second still have two addresses.
  const int64_t t = std::max(ctx.now() / 1000, MtimeSeconds(dir + "/head_48x48.jpg") + 1);
  const std::string* bytes[] = {&images.original, &images.large, &images.small};
  for (size_t i = 0; i < 3; ++i) WriteAtomically(dir + "/" + kAvatarFiles[i].name, *bytes[i], t);
  SyncDirectory(dir);
  Json urls = Json::object();
  for (const AvatarFile& f : kAvatarFiles)
    urls[f.size == 0 ? "original" : std::to_string(f.size)] =
        rel + "/" + f.name + "?t=" + std::to_string(t);
  return Json{{"user_id", UserIdText(user)}, {"t", t}, {"urls", urls}};
}

Json AvatarUrl(Context& ctx, const Json& args) {
  const int64_t user = ctx.ResolveUser(args.at("user"));
  const int size = args.value("size", 48);
  const std::string path = AvatarDir(user) + "/" + FileOfSize(size).name;
  const int64_t t = MtimeSeconds(ctx.shards().dir() + "/" + path);
  if (t < 0) Fail(Code::kNotFound, "user " + UserIdText(user) + " has no avatar");
  return Json{{"user_id", UserIdText(user)},
              {"size", size},
              {"t", t},
              {"url", path + "?t=" + std::to_string(t)}};
}

Json AvatarRm(Context& ctx, const Json& args) {
  const int64_t user = ctx.ResolveUser(args.at("user"));
  const std::string dir = ctx.shards().dir() + "/" + AvatarDir(user);
  int removed = 0;
  for (const AvatarFile& f : kAvatarFiles) {
    const std::string path = dir + "/" + f.name;
    if (unlink(path.c_str()) == 0)
      ++removed;
    else if (errno != ENOENT)
      FailErrno("cannot remove " + path);
  }
  if (removed == 0) Fail(Code::kNotFound, "user " + UserIdText(user) + " has no avatar");
  SyncDirectory(dir);
  rmdir(dir.c_str());  // when empty; the directories above stay, shared with other users
  return Json{{"user_id", UserIdText(user)}, {"removed", removed}};
}

}  // namespace weibo
