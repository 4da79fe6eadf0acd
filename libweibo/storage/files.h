// Files of a data directory: private to their owner, and locked while a process uses them.
//
// Modes (weibo(7), FILES): the directory is 0700 and every file in it 0600, whatever the
// umask, as PostgreSQL does: a shard holds every user's messages, and a world-writable
// cluster.json would let anyone re-point the cluster. Each file is created with its mode
// and then fchmod'ed to it, because the umask may only take bits away and SQLite fchmods a
// new database to 0644 itself (so a shard is created here first, and SQLite gives its
// -wal and -shm files the database's own mode).
//
// The cluster lock: every process that opens a cluster holds a shared flock on
// DIR/cluster.lock for as long as it does, and weibo-init takes it exclusively before it
// replaces a cluster, so that --force never pulls files out from under a running daemon.
#ifndef WEIBO_STORAGE_FILES_H_
#define WEIBO_STORAGE_FILES_H_

#include <cstdint>
#include <string>

namespace weibo {

constexpr unsigned kPrivateDirMode = 0700;
constexpr unsigned kPrivateFileMode = 0600;

// Creates dir 0700 when it does not exist; false (errno set) when that fails.
bool MakePrivateDir(const std::string& dir);
// open(2) of path with O_CREAT | O_CLOEXEC added, mode 0600 on a file it creates; -1 on error.
int OpenPrivate(const std::string& path, int flags);
// Replaces path by bytes atomically: written to tmp (created 0600), then renamed over path,
// so a reader sees the old file or the new one, never a part. mtime_s >= 0 sets the new
// file's mtime (seconds); sync fsyncs it before the rename. false (errno set, tmp
// removed) on error.
bool ReplaceFile(const std::string& path, const std::string& tmp, const std::string& bytes,
                 int64_t mtime_s = -1, bool sync = false);
// ReplaceFile through path + ".tmp", neither mtime nor fsync: small state files.
bool WritePrivateFile(const std::string& path, const std::string& text);

// A flock on DIR/cluster.lock, released when the object goes.
class ClusterLock {
 public:
  // Shared: blocks while weibo-init holds it exclusively. A directory where the lock file
  // cannot be opened (read-only, and made before the lock existed) is used unlocked.
  static ClusterLock Shared(const std::string& dir);
  // Exclusive, without waiting; Failure(storage_error) naming the holders' pids (from
  // /proc/locks) while another process holds the lock.
  static ClusterLock Exclusive(const std::string& dir);

  ClusterLock(ClusterLock&& other) noexcept : fd_(other.fd_) { other.fd_ = -1; }
  ClusterLock& operator=(ClusterLock&& other) noexcept;
  ~ClusterLock();

 private:
  explicit ClusterLock(int fd) : fd_(fd) {}
  int fd_;
};

}  // namespace weibo

#endif  // WEIBO_STORAGE_FILES_H_
