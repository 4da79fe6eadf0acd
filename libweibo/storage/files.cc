#include "storage/files.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <set>
#include <sstream>

#include "storage/failure.h"

namespace weibo {
namespace {

constexpr const char* kLockFile = "cluster.lock";

// The pids /proc/locks lists as holding an flock on the file open as fd (waiters, the
// lines marked "->", hold nothing), other than this process.
std::set<long> LockHolders(int fd) {
  std::set<long> pids;
  struct stat st;
  if (fstat(fd, &st) != 0) return pids;
  char file_id[64];
  std::snprintf(file_id, sizeof file_id, "%02x:%02x:%llu", major(st.st_dev), minor(st.st_dev),
                static_cast<unsigned long long>(st.st_ino));
  std::ifstream locks("/proc/locks");
  std::string line;
  while (std::getline(locks, line)) {
    std::istringstream fields(line);
    std::string number, kind, mode, access, id;
    long pid = 0;
    if (!(fields >> number >> kind) || kind == "->" || kind != "FLOCK") continue;
    if (fields >> mode >> access >> pid >> id && id == file_id && pid != getpid()) pids.insert(pid);
  }
  return pids;
}

}  // namespace

bool MakePrivateDir(const std::string& dir) {
  if (mkdir(dir.c_str(), kPrivateDirMode) != 0) return false;
  return chmod(dir.c_str(), kPrivateDirMode) == 0;  // the umask may have taken bits away
}

int OpenPrivate(const std::string& path, int flags) {
  int fd = open(path.c_str(), flags | O_CREAT | O_CLOEXEC, kPrivateFileMode);
  if (fd < 0) return -1;
  struct stat st;
  // Only a file this call made (empty) is given the mode: an existing file keeps its own.
  if (fstat(fd, &st) == 0 && st.st_size == 0 && (st.st_mode & 0777) != kPrivateFileMode)
    (void)fchmod(fd, kPrivateFileMode);
  return fd;
}

bool ReplaceFile(const std::string& path, const std::string& tmp, const std::string& bytes,
                 int64_t mtime_s, bool sync) {
  int fd = OpenPrivate(tmp, O_WRONLY | O_TRUNC);
  if (fd < 0) return false;
  bool ok = true;
  for (size_t done = 0; ok && done < bytes.size();) {
    ssize_t n = write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    ok = n > 0;
    if (ok) done += static_cast<size_t>(n);
  }
  const struct timespec times[2] = {{mtime_s, 0}, {mtime_s, 0}};
  ok = ok && (mtime_s < 0 || futimens(fd, times) == 0) && (!sync || fsync(fd) == 0);
  ok = close(fd) == 0 && ok;
  if (ok && std::rename(tmp.c_str(), path.c_str()) == 0) return true;
  int saved = errno;
  std::remove(tmp.c_str());
  errno = saved;
  return false;
}

bool WritePrivateFile(const std::string& path, const std::string& text) {
  return ReplaceFile(path, path + ".tmp", text);
}

ClusterLock ClusterLock::Shared(const std::string& dir) {
  const std::string path = dir + "/" + kLockFile;
  int fd = OpenPrivate(path, O_RDWR);
  if (fd < 0) fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return ClusterLock(-1);
  while (flock(fd, LOCK_SH) != 0 && errno == EINTR) {
  }
  return ClusterLock(fd);
}

ClusterLock ClusterLock::Exclusive(const std::string& dir) {
  const std::string path = dir + "/" + kLockFile;
  int fd = OpenPrivate(path, O_RDWR);
  if (fd < 0) Fail(Code::kStorageError, "cannot open " + path + ": " + std::strerror(errno));
  if (flock(fd, LOCK_EX | LOCK_NB) == 0) return ClusterLock(fd);
  std::string holders;
  for (long pid : LockHolders(fd)) holders += (holders.empty() ? " " : ", ") + std::to_string(pid);
  close(fd);
  Fail(Code::kStorageError,
       "the cluster in " + dir + " is in use" +
           (holders.empty() ? std::string(" by another process") : " by process" + holders) +
           " (a daemon, worker or command holds " + path + "); stop it first");
}

ClusterLock& ClusterLock::operator=(ClusterLock&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) close(fd_);
    fd_ = other.fd_;
    other.fd_ = -1;
  }
  return *this;
}

ClusterLock::~ClusterLock() {
  if (fd_ >= 0) close(fd_);  // closing the last descriptor releases the flock
}

}  // namespace weibo
