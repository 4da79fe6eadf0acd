#include "storage/snapshot.h"

#include <fcntl.h>
#include <stdlib.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <system_error>

#include "storage/failure.h"
#include "storage/files.h"

namespace weibo {
namespace {

namespace fs = std::filesystem;

bool EndsWith(const std::string& s, const std::string& tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

// Files that are not data: SQLite's shared memory (rebuilt from the WAL), lock files,
// a WritePrivateFile's temporary. A -wal is copied with its database, never alone.
bool Skipped(const std::string& name) {
  return name == "cluster.lock" || EndsWith(name, "-shm") || EndsWith(name, "-wal") ||
         EndsWith(name, ".ckpt") || EndsWith(name, ".tmp");
}

// A shared flock on an existing file, opened read-only: -1 (no lock) when there is no
// such file, so that the source gains no file.
int LockShared(const std::string& path) {
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return -1;
  while (flock(fd, LOCK_SH) != 0 && errno == EINTR) {
  }
  return fd;
}

class Unlock {
 public:
  explicit Unlock(int fd) : fd_(fd) {}
  ~Unlock() {
    if (fd_ >= 0) close(fd_);
  }
  Unlock(const Unlock&) = delete;
  Unlock& operator=(const Unlock&) = delete;

 private:
  int fd_;
};

}  // namespace

Snapshot::Snapshot(const std::string& dir) {
  std::error_code ec;
  if (!fs::is_regular_file(dir + "/cluster.json", ec))
    Fail(Code::kStorageError,
         "no cluster in " + dir + ": cluster.json is missing (run weibo-init)");
  const char* tmp = std::getenv("TMPDIR");
  std::string pattern =
      std::string(tmp != nullptr && *tmp != '\0' ? tmp : "/tmp") + "/weibo-explain.XXXXXX";
  if (mkdtemp(&pattern[0]) == nullptr)  // 0700
    Fail(Code::kStorageError, "cannot make a directory for the copy of " + dir + " in " +
                                  pattern.substr(0, pattern.rfind('/')));
  copy_ = pattern;
  try {
    Unlock cluster(LockShared(dir + "/cluster.lock"));  // weibo-init --force waits
    Copy(dir, copy_);
  } catch (...) {
    fs::remove_all(copy_, ec);
    throw;
  }
}

Snapshot::~Snapshot() {
  std::error_code ec;
  fs::remove_all(copy_, ec);
}

void Snapshot::Copy(const std::string& from, const std::string& to) {
  std::error_code walk, ec;
  fs::directory_iterator it(from, walk), end;
  for (; !walk && it != end; it.increment(walk)) {
    const std::string name = it->path().filename().string();
    const std::string source = from + "/" + name, target = to + "/" + name;
    if (it->is_directory(ec)) {
      if (!MakePrivateDir(target)) Fail(Code::kStorageError, "cannot make " + target);
      Copy(source, target);
      continue;
    }
    if (!it->is_regular_file(ec) || Skipped(name)) continue;
    // No checkpoint writes the file or empties its WAL while both are copied.
    Unlock checkpoints(LockShared(source + ".ckpt"));
    for (const std::string& suffix : {std::string(), std::string("-wal")}) {
      if (!suffix.empty() && !fs::exists(source + suffix, ec)) continue;
      fs::copy_file(source + suffix, target + suffix, ec);
      if (ec)
        Fail(Code::kStorageError,
             "cannot copy " + source + suffix + " for the dry run: " + ec.message());
    }
  }
  if (walk) Fail(Code::kStorageError, "cannot read " + from + ": " + walk.message());
}

}  // namespace weibo
