#include "disk.h"

#include <dirent.h>
#include <fcntl.h>
#include <sqlite3.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <fstream>
#include <vector>

#include "probe.h"

namespace weibo::bench {
namespace {

bool EndsWith(const std::string& s, const char* suffix) {
  size_t n = std::strlen(suffix);
  return s.size() >= n && s.compare(s.size() - n, n, suffix) == 0;
}

// Names of dir's entries that start with "shard-" and end with suffix.
std::vector<std::string> ShardFiles(const std::string& dir, const char* suffix) {
  std::vector<std::string> names;
  if (DIR* d = opendir(dir.c_str())) {
    while (dirent* e = readdir(d)) {
      std::string name = e->d_name;
      if (name.rfind("shard-", 0) == 0 && EndsWith(name, suffix)) names.push_back(name);
    }
    closedir(d);
  }
  return names;
}

}  // namespace

void FlushShards(const std::string& dir) {
  for (const char* suffix : {".db", ".db-wal"})
    for (const auto& name : ShardFiles(dir, suffix)) {
      int fd = open((dir + "/" + name).c_str(), O_RDONLY | O_CLOEXEC);
      if (fd < 0) continue;
      fdatasync(fd);
      close(fd);
    }
}

Status CheckpointShards(const std::string& dir) {
  for (const auto& name : ShardFiles(dir, ".db")) {
    const std::string path = dir + "/" + name;
    sqlite3* db = nullptr;
    int rc = sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READWRITE, nullptr);
    if (rc == SQLITE_OK) {
      sqlite3_busy_timeout(db, 30000);
      rc = sqlite3_wal_checkpoint_v2(db, nullptr, SQLITE_CHECKPOINT_TRUNCATE, nullptr, nullptr);
    }
    std::string error = rc == SQLITE_OK ? "" : db ? sqlite3_errmsg(db) : sqlite3_errstr(rc);
    sqlite3_close_v2(db);
    if (rc != SQLITE_OK)
      return Status(Code::kStorageError, "cannot checkpoint " + path + ": " + error);
  }
  return Status::Ok();
}

int64_t ClusterBytes(const std::string& dir) {
  int64_t total = 0;
  for (const char* suffix : {".db", ".db-wal"})
    for (const auto& name : ShardFiles(dir, suffix)) {
      struct stat st;
      if (stat((dir + "/" + name).c_str(), &st) == 0) total += st.st_size;
    }
  return total;
}

const char kCountInboxRows[] = "SELECT count(*) FROM msg_index";
const char kStoredBytes[] = "SELECT coalesce(sum(pgsize - unused), 0) FROM dbstat";
const char kPagesInUse[] =
    "SELECT (page_count - freelist_count) * page_size"
    " FROM pragma_page_count(), pragma_freelist_count(), pragma_page_size()";

Result<int64_t> SumOverShards(const std::string& dir, const char* sql) {
  ProbePause pause;
  int64_t total = 0;
  for (const auto& name : ShardFiles(dir, ".db")) {
    std::string path = dir + "/" + name;
    sqlite3* db = nullptr;
    sqlite3_stmt* stmt = nullptr;
    int rc = sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr);
    if (rc == SQLITE_OK) {
      sqlite3_db_config(db, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 1, nullptr);
      sqlite3_busy_timeout(db, 30000);
      rc = sqlite3_prepare_v2(db, sql, -1, &stmt, nullptr);
    }
    bool ok = rc == SQLITE_OK && sqlite3_step(stmt) == SQLITE_ROW;
    if (ok) total += sqlite3_column_int64(stmt, 0);
    std::string error = ok ? "" : db ? sqlite3_errmsg(db) : sqlite3_errstr(rc);
    sqlite3_finalize(stmt);
    sqlite3_close_v2(db);
    if (!ok) return Status(Code::kStorageError, "cannot read " + path + ": " + error);
  }
  return total;
}

Status ExecOnShards(const std::string& dir, const char* sql,
                    const std::function<std::vector<int64_t>(int index)>& params) {
  for (const auto& name : ShardFiles(dir, ".db")) {
    int index = -1;
    if (std::sscanf(name.c_str(), "shard-%d.db", &index) != 1) continue;
    const std::string path = dir + "/" + name;
    sqlite3* db = nullptr;
    int rc = sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READWRITE, nullptr);
    if (rc == SQLITE_OK) {
      // As the library's connections: no checkpoint behind their back (storage/shard.h).
      sqlite3_db_config(db, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 1, nullptr);
      sqlite3_busy_timeout(db, 30000);
      rc = sqlite3_exec(db, "BEGIN IMMEDIATE", nullptr, nullptr, nullptr);
    }
    const std::vector<int64_t> values = params ? params(index) : std::vector<int64_t>();
    for (const char* tail = sql; rc == SQLITE_OK && tail != nullptr && *tail != '\0';) {
      sqlite3_stmt* stmt = nullptr;
      rc = sqlite3_prepare_v2(db, tail, -1, &stmt, &tail);
      if (rc != SQLITE_OK || stmt == nullptr) break;  // an error, or only a comment left
      for (int i = 1; i <= sqlite3_bind_parameter_count(stmt) && i <= int(values.size()); ++i)
        sqlite3_bind_int64(stmt, i, values[i - 1]);
      while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
      }
      rc = rc == SQLITE_DONE ? SQLITE_OK : rc;
      sqlite3_finalize(stmt);
    }
    if (rc == SQLITE_OK) rc = sqlite3_exec(db, "COMMIT", nullptr, nullptr, nullptr);
    std::string error = rc == SQLITE_OK ? "" : db ? sqlite3_errmsg(db) : sqlite3_errstr(rc);
    sqlite3_close_v2(db);  // rolls back what did not commit
    if (rc != SQLITE_OK) return Status(Code::kStorageError, "cannot write " + path + ": " + error);
  }
  return Status::Ok();
}

int64_t WrittenBytes() {
  std::ifstream in("/proc/self/io");
  std::string key;
  int64_t value;
  while (in >> key >> value)
    if (key == "wchar:") return value;
  return -1;
}

}  // namespace weibo::bench
