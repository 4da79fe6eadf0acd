#include "baselines.h"

#include <dirent.h>
#include <fcntl.h>
#include <sqlite3.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <vector>

#include "probe.h"

namespace weibo::bench {
namespace {

const char kSchema[] =
    "PRAGMA journal_mode=WAL;"
    "PRAGMA wal_autocheckpoint=0;"
    "PRAGMA synchronous=FULL;"
    "CREATE TABLE msg_index(user_id INTEGER NOT NULL, msg_id INTEGER NOT NULL,"
    " author_id INTEGER NOT NULL, time INTEGER NOT NULL, PRIMARY KEY(user_id, msg_id))"
    " WITHOUT ROWID;";

// The message of the k-th post: its id grows like a gene id, its time like a clock.
struct Message {
  int64_t id, author, time;
};
Message MessageOf(size_t k, const PostFanOut& post) {
  return {static_cast<int64_t>(k + 1) << 22, post.author, 1704067200000LL + int64_t(k)};
}

// One database file set up as a shard is (see baselines.h).
class Db {
 public:
  explicit Db(std::string path) : path_(std::move(path)) {
    rc_ =
        sqlite3_open_v2(path_.c_str(), &db_,
                        SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, nullptr);
    if (ok()) sqlite3_db_config(db_, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 1, nullptr);
    if (Exec(kSchema) && ok())
      rc_ = sqlite3_prepare_v2(
          db_, "INSERT INTO msg_index(user_id, msg_id, author_id, time) VALUES (?, ?, ?, ?)", -1,
          &insert_, nullptr);
  }
  ~Db() {
    sqlite3_finalize(insert_);
    sqlite3_close_v2(db_);
  }
  Db(const Db&) = delete;
  Db& operator=(const Db&) = delete;

  bool ok() const { return rc_ == SQLITE_OK; }
  Status Error() const {
    return Status(Code::kStorageError,
                  path_ + ": " + (db_ ? sqlite3_errmsg(db_) : sqlite3_errstr(rc_)));
  }

  // Opens a transaction. full: its commit fsyncs (synchronous=FULL), else it leaves that to a
  // later SyncWal (NORMAL). The level is set only when it changes, as the library does.
  bool Begin(bool full) {
    if (full != full_ && !Exec(full ? "PRAGMA synchronous=FULL" : "PRAGMA synchronous=NORMAL"))
      return false;
    full_ = full;
    return Exec("BEGIN IMMEDIATE");
  }
  // The author's own row when asked, then a row per user.
  bool Add(const Message& m, bool author_row, const FanBatch& users) {
    bool done = !author_row || Insert(m.author, m);
    for (int64_t user : users) done = done && Insert(user, m);
    return done;
  }
  bool Commit() { return Exec("COMMIT"); }
  // A page cache that holds every page the transaction touches (up to 1 GiB, taken only as
  // pages are used), so that no page is written out and read back before the commit.
  bool UnboundedCache() { return Exec("PRAGMA cache_size=-1048576"); }
  bool Insert(int64_t user, const Message& m) {
    sqlite3_bind_int64(insert_, 1, user);
    sqlite3_bind_int64(insert_, 2, m.id);
    sqlite3_bind_int64(insert_, 3, m.author);
    sqlite3_bind_int64(insert_, 4, m.time);
    int rc = sqlite3_step(insert_);
    sqlite3_reset(insert_);
    if (rc != SQLITE_DONE) rc_ = rc;
    return rc == SQLITE_DONE;
  }

  bool Transaction(const Message& m, bool author_row, const FanBatch& users, bool full) {
    return Begin(full) && Add(m, author_row, users) && Commit();
  }

  // What Shard::SyncWal does: one sync of this connection's WAL.
  bool SyncWal() {
    sqlite3_file* wal = nullptr;
    rc_ = sqlite3_file_control(db_, "main", SQLITE_FCNTL_JOURNAL_POINTER, &wal);
    if (ok() && wal != nullptr && wal->pMethods != nullptr)
      rc_ = wal->pMethods->xSync(wal, SQLITE_SYNC_NORMAL);
    return ok();
  }

 private:
  bool Exec(const char* sql) {
    return ok() && (rc_ = sqlite3_exec(db_, sql, nullptr, nullptr, nullptr)) == SQLITE_OK;
  }

  std::string path_;
  sqlite3* db_ = nullptr;
  sqlite3_stmt* insert_ = nullptr;
  int rc_ = SQLITE_OK;
  bool full_ = true;
};

using Files = std::vector<std::unique_ptr<Db>>;

// Writes path's WAL before SQLite opens the file: CheckpointWalBytes of zeros, on disk (the
// length of a shard's in a cluster of `shards`: weibo/storage.h). A
// busy shard's WAL has that length already (storage/shard.h, Checkpoint: after a checkpoint
// its commits write over it from the start), so its commits' fsyncs flush data only; a
// fresh file's WAL would grow with each commit, and each fsync flush its new length and
// blocks too. SQLite reads a WAL whose header is not valid as empty and writes its first
// frame at the start, as after a checkpoint.
Status WriteWal(const std::string& path, int shards) {
  const std::string wal = path + "-wal";
  int fd = open(wal.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) return Status(Code::kStorageError, "cannot create " + wal);
  std::vector<char> zeros(1 << 20);
  bool ok = true;
  for (int64_t left = CheckpointWalBytes(shards); ok && left > 0;) {
    ssize_t n = write(fd, zeros.data(), std::min<int64_t>(left, zeros.size()));
    ok = n > 0;
    left -= n;
  }
  ok = ok && fdatasync(fd) == 0;
  close(fd);
  return ok ? Status::Ok() : Status(Code::kStorageError, "cannot write " + wal);
}

// count fresh files in dir, named by prefix and index, each with a WAL as a shard's
// (WriteWal); the first that failed, if any.
Result<Files> OpenFiles(const std::string& dir, const char* prefix, int count, BaselineRun* r) {
  Files files;
  for (int i = 0; i < count; ++i) {
    char name[64];
    std::snprintf(name, sizeof name, "/%s-%02d.db", prefix, i);
    Status s = WriteWal(dir + name, count);
    if (!s.ok()) return s;
    files.push_back(std::make_unique<Db>(dir + name));
    if (!files.back()->ok()) return files.back()->Error();
  }
  r->files = count;
  return files;
}

void Count(BaselineRun* r, size_t rows, bool full) {
  ++r->transactions;
  r->rows += static_cast<int64_t>(rows);
  if (full) ++r->fsyncs;
}

// How many deliveries a group-committing process holds back before it applies them
// together (jobs/jobs.h, kMaxHeldDeliveries; never more than its group commit).
constexpr int64_t kHeldDeliveries = 1024;

// The transactions of a push fan-out, post by post. group_commit < 0: each with its fsync
// (one txn per post); else the commits to other shards wait for a WAL sync, made once a
// post leaves group_commit or more of them unsynced, and at the end (same commits). With
// group_commit > 0, as in a group-committing process (weibod(1), --group-commit), the
// deliveries to other shards are held back until min(group_commit, kHeldDeliveries) are
// held; then, as jobs/jobs.cc's DrainCreated does, one shard's are committed in one
// transaction (all the posts held for it), the next shard round the files each time,
// until fewer are held. Post by post (Post), then Finish: so that the same commits can be
// run in steps between a mode's (SameCommitsSteps).
class FanOutCommits {
 public:
  FanOutCommits(Files& files, const std::vector<PostFanOut>& posts, int group_commit,
                BaselineRun* r)
      : files_(files),
        posts_(posts),
        group_commit_(group_commit),
        defer_(group_commit >= 0),
        hold_(group_commit > 0 ? std::min<int64_t>(kHeldDeliveries, group_commit) : 0),
        r_(r) {}

  Status Post(size_t k) {
    const PostFanOut& post = posts_[k];
    Message m = MessageOf(k, post);
    Db& own = *files_[post.author_shard];
    if (!own.Transaction(m, true, post.own, true)) return own.Error();
    Count(r_, post.own.size() + 1, true);
    for (const auto& [shard, fans] : post.far) {
      if (hold_ > 0) {
        held_[shard].emplace_back(m, &fans);
        ++held_jobs_;
        continue;
      }
      if (!files_[shard]->Transaction(m, false, fans, !defer_)) return files_[shard]->Error();
      Count(r_, fans.size(), !defer_);
      if (!defer_) continue;
      ++r_->deferred;
      ++since_sync_;
      unsynced_.insert(shard);
    }
    while (hold_ > 0 && held_jobs_ >= hold_ && !held_.empty()) {
      // The next shard round the files.
      auto it = held_.upper_bound(last_shard_);
      Status s = ApplyShard((it != held_.end() ? it : held_.begin())->first);
      if (!s.ok()) return s;
    }
    if (defer_ && since_sync_ >= group_commit_) return Sync();
    return Status::Ok();
  }

  // Everything still held applied, and the last sync.
  Status Finish() {
    while (!held_.empty()) {
      Status s = ApplyShard(held_.begin()->first);
      if (!s.ok()) return s;
    }
    return Sync();
  }

 private:
  Status Sync() {
    for (int shard : unsynced_) {
      if (!files_[shard]->SyncWal()) return files_[shard]->Error();
      ++r_->fsyncs;
    }
    if (!unsynced_.empty()) ++r_->sync_rounds;
    unsynced_.clear();
    since_sync_ = 0;
    return Status::Ok();
  }

  Status ApplyShard(int shard) {
    auto& batches = held_[shard];
    Db& db = *files_[shard];
    if (!db.Begin(false)) return db.Error();
    size_t rows = 0;
    for (const auto& [m, fans] : batches) {
      if (!db.Add(m, false, *fans)) return db.Error();
      rows += fans->size();
    }
    if (!db.Commit()) return db.Error();
    Count(r_, rows, false);
    ++r_->deferred;
    unsynced_.insert(shard);
    since_sync_ += static_cast<int64_t>(batches.size());
    held_jobs_ -= static_cast<int64_t>(batches.size());
    held_.erase(shard);
    last_shard_ = shard;
    return Status::Ok();
  }

  Files& files_;
  const std::vector<PostFanOut>& posts_;
  const int group_commit_;
  const bool defer_;
  const int64_t hold_;
  BaselineRun* r_;
  std::set<int> unsynced_;
  int64_t since_sync_ = 0;
  // The held deliveries: per shard, (message, fans) in the order made.
  std::map<int, std::vector<std::pair<Message, const FanBatch*>>> held_;
  int64_t held_jobs_ = 0;
  int last_shard_ = -1;  // the shard whose held batches were committed last
};

Status AllPosts(Files& files, const std::vector<PostFanOut>& posts, int group_commit,
                BaselineRun* r) {
  FanOutCommits commits(files, posts, group_commit, r);
  for (size_t k = 0; k < posts.size(); ++k) {
    Status s = commits.Post(k);
    if (!s.ok()) return s;
  }
  return commits.Finish();
}

// Every row of every post, in primary-key order: the order SQLite inserts fastest, as each
// insert lands next to the last (in post order, 100 000 rows over 16 shards' fans sweep the
// whole tree once per shard, and past the page cache that ran at 0.7x the same commits').
struct Row {
  int64_t user;
  Message m;
  bool operator<(const Row& o) const { return user != o.user ? user < o.user : m.id < o.m.id; }
};

std::vector<Row> SortedRows(const std::vector<PostFanOut>& posts) {
  std::vector<Row> rows;
  for (size_t k = 0; k < posts.size(); ++k) {
    const PostFanOut& post = posts[k];
    Message m = MessageOf(k, post);
    rows.push_back({post.author, m});
    for (int64_t user : post.own) rows.push_back({user, m});
    for (const auto& [shard, fans] : post.far)
      for (int64_t user : fans) rows.push_back({user, m});
  }
  std::sort(rows.begin(), rows.end());
  return rows;
}

// The ceiling: no page spilled before the commit (the library's shards keep SQLite's
// default 2 MB cache, and a 100 000-row transaction outgrows it), rows in key order, one
// transaction, one fsync: what SQLite on this disk can do with these rows at most.
Status Ceiling(Db& db, const std::vector<Row>& rows, BaselineRun* r) {
  if (!db.UnboundedCache() || !db.Begin(true)) return db.Error();
  for (const Row& row : rows)
    if (!db.Insert(row.user, row.m)) return db.Error();
  if (!db.Commit()) return db.Error();
  r->rows = static_cast<int64_t>(rows.size());
  r->transactions = 1;
  r->fsyncs = 1;
  return Status::Ok();
}

// Removes every file in dir, then dir.
void RemoveDir(const std::string& dir) {
  if (DIR* d = opendir(dir.c_str())) {
    while (dirent* e = readdir(d)) {
      std::string name = e->d_name;
      if (name != "." && name != "..") std::remove((dir + "/" + name).c_str());
    }
    closedir(d);
  }
  rmdir(dir.c_str());
}

// Runs fn in root, a fresh directory, removed before and after: no baseline starts with
// another's files.
Status InFreshDir(const std::string& root, const std::function<Status()>& fn) {
  RemoveDir(root);
  if (mkdir(root.c_str(), 0755) != 0) return Status(Code::kStorageError, "cannot create " + root);
  Status s = fn();
  RemoveDir(root);
  return s;
}

using Shape = Status (*)(const std::string& dir, const std::vector<PostFanOut>& posts, int shards,
                         int group_commit, BaselineRun* r);

// The same commits in one go: SameCommitsSteps, all the posts in one step.
Status SameCommits(const std::string& dir, const std::vector<PostFanOut>& posts, int shards,
                   int group_commit, BaselineRun* r) {
  auto steps = SameCommitsSteps::Open(dir, posts, shards, group_commit);
  if (!steps.ok()) return steps.status();
  Status s = steps.value()->Run(0, posts.size());
  if (!s.ok()) return s;
  auto run = steps.value()->Finish();
  if (!run.ok()) return run.status();
  *r = run.value();
  return Status::Ok();
}

Status TxnPerPost(const std::string& dir, const std::vector<PostFanOut>& posts, int shards, int,
                  BaselineRun* r) {
  auto files = OpenFiles(dir, "txn-per-post", shards, r);
  if (!files.ok()) return files.status();
  auto t0 = std::chrono::steady_clock::now();
  Status s = AllPosts(files.value(), posts, -1, r);
  r->seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return s;
}

// The ceiling, kCeilingRuns times on a fresh file each, the fastest kept: one transaction
// is one sample of the disk's moods, and a ceiling is what SQLite can do at best (run once,
// it came out below the star post's same commits in one run in three).
Status CeilingRuns(const std::string& dir, const std::vector<PostFanOut>& posts, int runs,
                   BaselineRun* r) {
  std::vector<Row> rows = SortedRows(posts);
  for (int run = 0; run < runs; ++run) {
    const std::string sub = dir + "/ceiling-" + std::to_string(run);
    if (mkdir(sub.c_str(), 0755) != 0) return Status(Code::kStorageError, "cannot create " + sub);
    BaselineRun one;
    Status s;
    {
      auto files = OpenFiles(sub, "ceiling", 1, &one);
      if (!files.ok()) return files.status();
      auto t0 = std::chrono::steady_clock::now();
      s = Ceiling(*files.value()[0], rows, &one);
      one.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    }  // closed before its files go
    RemoveDir(sub);
    if (!s.ok()) return s;
    if (run == 0 || one.seconds < r->seconds) *r = one;
  }
  r->runs = runs;
  return Status::Ok();
}

Status OneFile(const std::string& dir, const std::vector<PostFanOut>& posts, int, int,
               BaselineRun* r) {
  return CeilingRuns(dir, posts, kCeilingRuns, r);
}

}  // namespace

Json BaselineRun::ToJson() const {
  Json j{{"rows", rows},   {"transactions", transactions}, {"fsyncs", fsyncs},
         {"files", files}, {"seconds", seconds},           {"rows_per_s", RowsPerSecond()},
         {"runs", runs},   {"group_commit", nullptr}};
  if (group_commit >= 0) {
    j["group_commit"] = group_commit;
    j["deferred_commits"] = deferred;
    j["sync_rounds"] = sync_rounds;
    j["interleaved_block"] = interleaved_block;
  }
  return j;
}

Json Baselines::ToJson() const {
  return Json{{"same_commits", same_commits.ToJson()},
              {"one_txn_per_post", txn_per_post.ToJson()},
              {"ceiling", ceiling.ToJson()}};
}

struct SameCommitsSteps::State {
  std::string root;
  const std::vector<PostFanOut>& posts;
  BaselineRun run;
  Files files;
  std::unique_ptr<FanOutCommits> commits;
  bool finished = false;
};

Result<std::unique_ptr<SameCommitsSteps>> SameCommitsSteps::Open(
    const std::string& dir, const std::vector<PostFanOut>& posts, int shards, int group_commit) {
  ProbePause pause;  // not the library's rows
  std::unique_ptr<SameCommitsSteps> steps(new SameCommitsSteps);
  steps->state_.reset(new State{dir, posts, BaselineRun(), Files(), nullptr});
  State& st = *steps->state_;
  RemoveDir(st.root);
  if (mkdir(st.root.c_str(), 0755) != 0)
    return Status(Code::kStorageError, "cannot create " + st.root);
  auto files = OpenFiles(st.root, "same-commits", shards, &st.run);
  if (!files.ok()) return files.status();
  st.files = std::move(files.value());
  st.run.group_commit = group_commit;
  st.commits = std::make_unique<FanOutCommits>(st.files, posts, group_commit, &st.run);
  return steps;
}

SameCommitsSteps::~SameCommitsSteps() {
  if (!state_) return;
  state_->commits.reset();
  state_->files.clear();
  RemoveDir(state_->root);
}

Status SameCommitsSteps::Run(size_t from, size_t to) {
  State& st = *state_;
  auto t0 = std::chrono::steady_clock::now();
  Status s;
  for (size_t k = from; k < to && k < st.posts.size() && s.ok(); ++k) s = st.commits->Post(k);
  st.run.seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return s;
}

Result<BaselineRun> SameCommitsSteps::Finish() {
  State& st = *state_;
  if (!st.finished) {
    auto t0 = std::chrono::steady_clock::now();
    Status s = st.commits->Finish();
    st.run.seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (!s.ok()) return s;
    st.finished = true;
  }
  return st.run;
}

Result<BaselineRun> RunCeiling(const std::string& dir, const std::vector<PostFanOut>& posts,
                               int runs) {
  BaselineRun r;
  if (posts.empty()) return r;
  ProbePause pause;  // not the library's rows
  const std::string root = dir + "/baselines";
  Status s = InFreshDir(root, [&] { return CeilingRuns(root, posts, runs, &r); });
  if (!s.ok()) return s;
  return r;
}

Result<Baselines> RunBaselines(const std::string& dir, const std::vector<PostFanOut>& posts,
                               int shards, int group_commit, const BaselineRun* same_commits,
                               const BaselineRun* ceiling) {
  Baselines b;
  if (posts.empty()) return b;
  ProbePause pause;  // not the library's rows
  const std::string root = dir + "/baselines";
  std::vector<std::pair<Shape, BaselineRun*>> shapes = {{TxnPerPost, &b.txn_per_post}};
  if (same_commits != nullptr)
    b.same_commits = *same_commits;
  else
    shapes.insert(shapes.begin(), {SameCommits, &b.same_commits});
  if (ceiling != nullptr)
    b.ceiling = *ceiling;
  else
    shapes.push_back({OneFile, &b.ceiling});
  for (const auto& [shape, run] : shapes) {
    Status s = InFreshDir(root, [&, shape = shape, run = run] {
      return shape(root, posts, shards, group_commit, run);
    });
    if (!s.ok()) return s;
  }
  return b;
}

}  // namespace weibo::bench
