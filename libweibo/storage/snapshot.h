// Snapshot: a private copy of a data directory, taken without writing to it, where
// weibo-explain(1) runs an operation for real and then throws the copy away.
//
// Why a copy: a dry run inside the real files cannot be made to write nothing. Opening a
// WAL database creates its -wal and -shm files where there are none, a reader writes its
// read mark into the -shm, and a write transaction rolled back may already have spilled
// pages into the WAL. The flows also commit (several shards, one after another) and write
// files of their own (search-NN.db, DATA/heads). A copy lets every flow run unchanged.
//
// How the copy stays consistent while other processes write: in WAL mode only a
// checkpoint writes a database file, and writers only append to its -wal (or, after a
// complete checkpoint, start it again under a new salt). So each database is copied under
// a shared flock on its "<file>.ckpt" — the lock every checkpoint takes exclusively
// without waiting (Shard::Checkpoint), so none runs meanwhile — the file first, then its
// -wal. SQLite's recovery on the copy keeps the -wal's frames up to the last whole
// commit it holds, and a torn or stale frame ends them. -shm files (rebuilt from the WAL),
// the lock files and temporary files are not copied. The source is opened read-only and
// no lock file is created in it: a directory without cluster.lock or a .ckpt is copied
// unlocked.
#ifndef WEIBO_STORAGE_SNAPSHOT_H_
#define WEIBO_STORAGE_SNAPSHOT_H_

#include <string>

namespace weibo {

class Snapshot {
 public:
  // Copies dir (every regular file under it, the directories 0700) into a new directory
  // under $TMPDIR, else /tmp. Failure(storage_error) when dir is not a cluster's
  // (no cluster.json) or a file cannot be copied (the disk full): nothing is left behind.
  explicit Snapshot(const std::string& dir);
  ~Snapshot();  // removes the copy
  Snapshot(const Snapshot&) = delete;
  Snapshot& operator=(const Snapshot&) = delete;

  const std::string& dir() const { return copy_; }

 private:
  void Copy(const std::string& from, const std::string& to);
  std::string copy_;
};

}  // namespace weibo

#endif  // WEIBO_STORAGE_SNAPSHOT_H_
