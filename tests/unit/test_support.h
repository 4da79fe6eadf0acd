// Helpers shared by the unit tests: temporary clusters, running requests through the public
// API with a fixed clock, raw SQLite access for planting violations, and a dump of every
// row of a cluster for "nothing changed" comparisons.
#ifndef WEIBO_TESTS_UNIT_TEST_SUPPORT_H_
#define WEIBO_TESTS_UNIT_TEST_SUPPORT_H_

#include <sqlite3.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "storage/failure.h"
#include "storage/schema.h"
#include "storage/shard.h"
#include "storage/shard_set.h"
#include "weibo/request.h"
#include "weibo/status.h"

namespace weibo::test {

// 2023-11-14T22:13:20Z: every test runs on this fixed clock unless it says otherwise.
constexpr long long kNow = 1700000000000LL;

// A directory made by mkdtemp, removed with everything in it when the test ends.
class TempDir {
 public:
  // In base when given (e.g. /dev/shm), else in the system's temporary directory.
  explicit TempDir(const std::string& base = "") {
    std::filesystem::path parent =
        base.empty() ? std::filesystem::temp_directory_path() : std::filesystem::path(base);
    std::string tmpl = (parent / "weibo-test-XXXXXX").string();
    REQUIRE(mkdtemp(tmpl.data()) != nullptr);
    path_ = tmpl;
  }
  ~TempDir() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::string& path() const { return path_; }
  std::string Join(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

// Every statement db has cached, by its text: how many times SQLite re-prepared it
// (SQLITE_STMTSTATUS_REPREPARE). Not the pragmas: SQLite prepares a PRAGMA synchronous again
// at every step, whatever is bound (Shard::UseSync runs one when a transaction's durability
// differs from the last one's: 99 re-prepares in 100 runs, in a C check).
inline void AddReprepared(sqlite3* db, std::map<std::string, int>* out) {
  for (sqlite3_stmt* s = sqlite3_next_stmt(db, nullptr); s != nullptr;
       s = sqlite3_next_stmt(db, s)) {
    const std::string sql = sqlite3_sql(s);
    if (sql.rfind("PRAGMA ", 0) == 0) continue;
    (*out)[sql] += sqlite3_stmt_status(s, SQLITE_STMTSTATUS_REPREPARE, 0);
  }
}

// xorshift64: a fixed sequence of pseudo-random numbers, the same on every run, for tests
// that drive a structure with random operations against a plain model of it.
class XorShift {
 public:
  uint64_t operator()() {
    x_ ^= x_ << 13;
    x_ ^= x_ >> 7;
    x_ ^= x_ << 17;
    return x_;
  }

 private:
  uint64_t x_ = 88172645463325252ull;
};

inline int64_t IdOf(const Json& j) { return std::stoll(j.at("id").get<std::string>()); }

inline std::vector<int64_t> IdsOf(const Json& list) {
  std::vector<int64_t> ids;
  for (const auto& m : list) ids.push_back(IdOf(m));
  return ids;
}

// args as text for a failure message, even when they hold invalid UTF-8 on purpose.
inline std::string Shown(const Json& args) {
  return args.dump(-1, ' ', false, Json::error_handler_t::replace);
}

inline std::string Describe(const Status& s) {
  return std::string(CodeName(s.code())) + ": " + s.message();
}

struct ClusterOptions {
  int shards = 4;
  std::string feed = "push";
  int page_size = 2;
  long long now_ms = kNow;
  bool drain = true;
  int group_commit = 0;             // EmbeddedOptions::group_commit
  bool background_applies = false;  // EmbeddedOptions::background_applies
  int64_t message_cache = 0;        // EmbeddedOptions::message_cache
};

// /dev/shm when it is a writable directory (tmpfs: fsync costs nothing), else "". For tests
// that run thousands of writes and do not test durability.
inline std::string MemoryDir() {
  std::error_code ec;
  if (std::filesystem::is_directory("/dev/shm", ec) && access("/dev/shm", W_OK) == 0)
    return "/dev/shm";
  return "";
}

// The options of an embedded executor over dir as a server (weibod) runs it: the tests'
// clock, and group commit on (counter deltas merged, deliveries held back). Callers add
// the caches they test.
inline EmbeddedOptions ServerOptions(const std::string& dir) {
  EmbeddedOptions eo;
  eo.data_dir = dir;
  eo.now_ms = kNow;
  eo.group_commit = 16;
  return eo;
}

// A fresh cluster in a temporary directory and an embedded executor over it.
class Cluster {
 public:
  // base_dir: where the cluster's temporary directory goes ("": the system's).
  explicit Cluster(ClusterOptions options = ClusterOptions(), const std::string& base_dir = "")
      : dir_(base_dir), options_(std::move(options)) {
    Reopen();
    Run("init", Json{{"shards", options_.shards},
                     {"feed", options_.feed},
                     {"page_size", options_.page_size}});
  }

  const std::string& dir() const { return dir_.path(); }
  int shards() const { return options_.shards; }
  Executor& executor() { return *executor_; }
  std::string ShardPath(int index) const {
    return dir_.Join(ShardFileName(index, options_.shards));
  }

  // A new executor (new connections) with the given clock and drain setting.
  void Reopen() {
    EmbeddedOptions eo;
    eo.data_dir = dir_.path();
    eo.now_ms = options_.now_ms;
    eo.drain = options_.drain;
    eo.group_commit = options_.group_commit;
    eo.background_applies = options_.background_applies;
    eo.message_cache = options_.message_cache;
    executor_ = OpenEmbedded(eo);
  }
  void SetNow(long long now_ms) {
    options_.now_ms = now_ms;
    Reopen();
  }
  void SetDrain(bool drain) {
    options_.drain = drain;
    Reopen();
  }

  // Rewrites cluster.json (e.g. a lower celebrity_threshold) and reopens.
  void EditConfig(const std::function<void(Json&)>& edit) {
    std::string path = dir_.Join("cluster.json");
    Json j;
    {
      std::ifstream in(path);
      j = Json::parse(in);
    }
    edit(j);
    std::ofstream(path) << j.dump(2) << "\n";
    Reopen();
  }

  Result<Json> Try(const std::string& op, Json args = Json::object()) {
    return executor_->Execute(Request{op, std::move(args)});
  }

  Json Run(const std::string& op, Json args = Json::object()) {
    std::string shown = Shown(args);
    Result<Json> r = Try(op, std::move(args));
    INFO(op << " " << shown << " -> " << (r.ok() ? std::string("ok") : Describe(r.status())));
    REQUIRE(r.ok());
    return r.value();
  }

  // The status of a request that must fail.
  Status Fail(const std::string& op, Json args = Json::object()) {
    std::string shown = Shown(args);
    Result<Json> r = Try(op, std::move(args));
    INFO(op << " " << shown << " unexpectedly succeeded");
    REQUIRE_FALSE(r.ok());
    return r.status();
  }
  Code CodeOf(const std::string& op, Json args = Json::object()) {
    return Fail(op, std::move(args)).code();
  }

  int64_t AddUser(const std::string& name) { return IdOf(Run("user_add", {{"name", name}})); }
  Json User(int64_t user) { return Run("user_show", {{"user", user}}); }
  int64_t Post(int64_t user, const std::string& text) {
    return IdOf(Run("post", {{"user", user}, {"content", text}}));
  }
  int64_t Comment(int64_t user, int64_t msg, const std::string& text) {
    return IdOf(Run("comment", {{"user", user}, {"msg", std::to_string(msg)}, {"content", text}}));
  }
  int64_t Repost(int64_t user, int64_t msg, const std::string& text = "") {
    Json args{{"user", user}, {"msg", std::to_string(msg)}};
    if (!text.empty()) args["content"] = text;
    return IdOf(Run("repost", args));
  }
  void Follow(int64_t user, int64_t target) { Run("follow", {{"user", user}, {"target", target}}); }
  void Unfollow(int64_t user, int64_t target) {
    Run("unfollow", {{"user", user}, {"target", target}});
  }
  void Delete(int64_t user, int64_t msg) {
    Run("delete", {{"user", user}, {"msg", std::to_string(msg)}});
  }
  Json Timeline(int64_t user, Json extra = Json::object()) {
    extra["user"] = user;
    return Run("timeline", extra);
  }
  std::vector<int64_t> TimelineIds(int64_t user, Json extra = Json::object()) {
    return IdsOf(Timeline(user, std::move(extra)));
  }
  // Every item of a home timeline, paged with max_id.
  std::vector<int64_t> WholeTimeline(int64_t user, int count = 200) {
    std::vector<int64_t> all;
    Json args{{"count", count}};
    for (;;) {
      auto page = TimelineIds(user, args);
      all.insert(all.end(), page.begin(), page.end());
      if (static_cast<int>(page.size()) < count) return all;
      args["max_id"] = std::to_string(page.back());
    }
  }
  Json Counts(int64_t msg) {
    Json r = Run("count", {{"msgs", Json::array({std::to_string(msg)})}});
    REQUIRE(r.size() == 1);
    return r[0].at("counts");
  }
  Json Fsck(bool repair = false) { return Run("fsck", {{"repair", repair}}); }
  std::vector<int64_t> CommentPage(int64_t msg, int page) {
    return IdsOf(Run("comments", {{"msg", std::to_string(msg)}, {"page", page}}));
  }
  std::vector<int64_t> RepostPage(int64_t msg, int page) {
    return IdsOf(Run("reposts", {{"msg", std::to_string(msg)}, {"page", page}}));
  }

 private:
  TempDir dir_;
  ClusterOptions options_;
  std::unique_ptr<Executor> executor_;
};

// A shard is its file plus "-wal" and "-shm" (no checkpoint on close keeps the WAL around):
// removing or replacing a shard must treat all three together.
inline void RemoveShardFiles(const std::string& path) {
  for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(path + suffix);
}
inline void CopyShardFiles(const std::string& from, const std::string& to) {
  RemoveShardFiles(to);
  for (const char* suffix : {"", "-wal"})
    if (std::filesystem::exists(from + suffix))
      std::filesystem::copy_file(from + suffix, to + suffix);
}

// The checks named by fsck's violations, in order.
inline std::vector<std::string> ViolationChecks(const Json& report) {
  std::vector<std::string> checks;
  for (const auto& v : report.at("violations")) checks.push_back(v.at("check").get<std::string>());
  return checks;
}

// A plain sqlite3 connection to a shard file, for planting violations and reading rows
// behind the library's back.
class RawDb {
 public:
  explicit RawDb(const std::string& path) {
    REQUIRE(sqlite3_open_v2(path.c_str(), &db_, SQLITE_OPEN_READWRITE, nullptr) == SQLITE_OK);
    sqlite3_busy_timeout(db_, 10000);
    // Like the library's connections: never checkpoint behind its back (storage/shard.h).
    sqlite3_db_config(db_, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 1, nullptr);
  }
  ~RawDb() { sqlite3_close_v2(db_); }
  RawDb(const RawDb&) = delete;
  RawDb& operator=(const RawDb&) = delete;

  void Exec(const std::string& sql) {
    char* error = nullptr;
    int rc = sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &error);
    std::string message = error ? error : "";
    sqlite3_free(error);
    INFO(sql << ": " << message);
    REQUIRE(rc == SQLITE_OK);
  }
  int Changes() { return sqlite3_changes(db_); }
  // Every row of a query, columns joined by '|', rows by '\n'.
  std::string Rows(const std::string& sql) {
    sqlite3_stmt* stmt = nullptr;
    INFO(sql);
    REQUIRE(sqlite3_prepare_v2(db_, sql.c_str(), -1, &stmt, nullptr) == SQLITE_OK);
    std::string out;
    while (sqlite3_step(stmt) == SQLITE_ROW) {
      for (int c = 0; c < sqlite3_column_count(stmt); ++c) {
        if (c > 0) out += '|';
        const unsigned char* text = sqlite3_column_text(stmt, c);
        out += text ? reinterpret_cast<const char*>(text) : "NULL";
      }
      out += '\n';
    }
    sqlite3_finalize(stmt);
    return out;
  }
  int64_t Int(const std::string& sql) {
    sqlite3_stmt* stmt = nullptr;
    INFO(sql);
    REQUIRE(sqlite3_prepare_v2(db_, sql.c_str(), -1, &stmt, nullptr) == SQLITE_OK);
    REQUIRE(sqlite3_step(stmt) == SQLITE_ROW);
    int64_t v = sqlite3_column_int64(stmt, 0);
    sqlite3_finalize(stmt);
    return v;
  }
  sqlite3* db() { return db_; }

 private:
  sqlite3* db_ = nullptr;
};

// A done outbox job's row is deleted (tables/outbox.h). A test that asks which jobs a flow
// made keeps them: a trigger copies each deleted row into outbox_done, and kEveryJob reads
// both tables as one (use it where "outbox" would be).
inline void KeepDoneJobs(const std::string& shard_path) {
  RawDb(shard_path)
      .Exec(
          "CREATE TABLE outbox_done AS SELECT * FROM outbox WHERE 0;"
          "CREATE TRIGGER keep_done AFTER DELETE ON outbox BEGIN INSERT INTO outbox_done "
          "VALUES (OLD.job_id, OLD.target_shard, OLD.kind, OLD.payload, OLD.created, 1); END;");
}
constexpr const char kEveryJob[] = "(SELECT * FROM outbox UNION ALL SELECT * FROM outbox_done)";

// Every row of the tables of SPEC §3 on every shard. With jobs=false the outbox,
// job_applied and request_log bookkeeping is left out, so only the data a user can see is
// compared.
inline std::string DumpCluster(const std::string& dir, int shards, bool jobs = true) {
  static const char* const kData[] = {
      "SELECT * FROM user_info ORDER BY user_id",
      "SELECT * FROM user_name ORDER BY user_name",
      "SELECT * FROM user_relation ORDER BY user_id, type, follow_id",
      "SELECT * FROM msg_index ORDER BY user_id, msg_id",
      "SELECT * FROM msg_info ORDER BY msg_id",
      "SELECT * FROM msg_counter ORDER BY msg_id",
      "SELECT * FROM msg_msg_relation ORDER BY reference_id, reference_msg_id",
      "SELECT * FROM msg_seq ORDER BY low8",
      "SELECT * FROM inbox_floor ORDER BY user_id",
      "SELECT * FROM msg_deleted ORDER BY msg_id",
      "SELECT added_id, hex(id), updated, hex(body) FROM entities ORDER BY added_id",
      "SELECT * FROM meta WHERE key != 'cluster_id' ORDER BY key",
  };
  static const char* const kJobs[] = {
      "SELECT * FROM outbox ORDER BY job_id",
      "SELECT * FROM job_applied ORDER BY job_id",
      "SELECT * FROM sqlite_sequence ORDER BY name",
      "SELECT * FROM request_log ORDER BY seq",
  };
  std::string out;
  for (int i = 0; i < shards; ++i) {
    RawDb db(dir + "/" + ShardFileName(i, shards));
    out += "== shard " + std::to_string(i) + "\n";
    for (const char* sql : kData) out += std::string("-- ") + sql + "\n" + db.Rows(sql);
    if (jobs)
      for (const char* sql : kJobs) out += std::string("-- ") + sql + "\n" + db.Rows(sql);
  }
  return out;
}

// Every file under dir (its path below dir) with its size, mtime in nanoseconds and bytes:
// equal before and after, nothing was created, removed or written.
inline std::map<std::string, std::string> FileStates(const std::string& dir) {
  std::map<std::string, std::string> states;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(dir)) {
    if (!entry.is_regular_file()) continue;
    struct stat st;
    REQUIRE(stat(entry.path().c_str(), &st) == 0);
    std::ifstream in(entry.path(), std::ios::binary);
    std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    states[entry.path().string().substr(dir.size())] =
        std::to_string(st.st_size) + " " + std::to_string(st.st_mtim.tv_sec) + "." +
        std::to_string(st.st_mtim.tv_nsec) + " " + bytes;
  }
  return states;
}

// The code of the Failure fn throws; fails the test when it throws none.
template <typename Fn>
Code FailureCode(Fn fn) {
  try {
    fn();
  } catch (const Failure& f) {
    return f.status().code();
  }
  FAIL("no Failure was thrown");
  return Code::kOk;
}

// A fresh, migrated shard file in dir (index 0 unless told).
inline std::unique_ptr<Shard> FreshShard(const TempDir& dir, const std::string& name = "shard.db",
                                         int index = 0) {
  auto shard = std::make_unique<Shard>(index, dir.Join(name), true, nullptr);
  Migrate(*shard, true);
  return shard;
}

}  // namespace weibo::test

#endif  // WEIBO_TESTS_UNIT_TEST_SUPPORT_H_
