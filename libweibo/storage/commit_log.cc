#include "storage/commit_log.h"

#include <sqlite3.h>
#include <stdlib.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <unordered_map>

namespace weibo {

bool WalHeader::operator==(const WalHeader& other) const {
  return std::memcmp(bytes, other.bytes, sizeof bytes) == 0;
}

// The header's fields are in the machine's byte order (walformat.html, 2.2): iChange at
// byte 8, mxFrame at byte 16.
uint32_t WalHeader::change_counter() const {
  uint32_t v;
  std::memcpy(&v, bytes + 8, sizeof v);
  return v;
}

uint32_t WalHeader::frames() const {
  uint32_t v;
  std::memcpy(&v, bytes + 16, sizeof v);
  return v;
}

bool ReadWalHeader(sqlite3* db, WalHeader* out) {
  // Only a connection with its WAL open has the -shm mapped; asking for the map of one
  // without would make SQLite open it outside its own sequence.
  sqlite3_file* wal = nullptr;
  sqlite3_file* file = nullptr;
  if (sqlite3_file_control(db, "main", SQLITE_FCNTL_JOURNAL_POINTER, &wal) != SQLITE_OK ||
      wal == nullptr || wal->pMethods == nullptr ||
      sqlite3_file_control(db, "main", SQLITE_FCNTL_FILE_POINTER, &file) != SQLITE_OK ||
      file == nullptr || file->pMethods == nullptr || file->pMethods->iVersion < 2 ||
      file->pMethods->xShmMap == nullptr)
    return false;
  volatile void* region = nullptr;
  if (file->pMethods->xShmMap(file, 0, 32768, 0, &region) != SQLITE_OK || region == nullptr)
    return false;
  // A writer stores the second copy, then a barrier, then the first; a reader reads the
  // first, a barrier, the second, and trusts them when they are equal (wal.c,
  // walIndexTryHdr): a copy torn by a commit in progress differs from the other one.
  const auto* base = static_cast<const volatile unsigned char*>(region);
  WalHeader second;
  for (size_t i = 0; i < sizeof out->bytes; ++i) out->bytes[i] = base[i];
  std::atomic_thread_fence(std::memory_order_acquire);
  for (size_t i = 0; i < sizeof second.bytes; ++i) second.bytes[i] = base[48 + i];
  return *out == second;
}

bool CommitInterest::Touches(const std::string& table) const {
  return std::find(tables.begin(), tables.end(), table) != tables.end();
}

bool CommitInterest::Keyed(const std::string& table) const {
  return std::find(keyed.begin(), keyed.end(), table) != keyed.end();
}

std::shared_ptr<CommitLog> CommitLog::For(const std::string& path) {
  // Two connections name one file by one key: its real path where it has one.
  std::string key = path;
  if (char* real = realpath(path.c_str(), nullptr)) {
    key = real;
    free(real);
  }
  static std::mutex mu;
  static std::unordered_map<std::string, std::weak_ptr<CommitLog>> logs;
  std::lock_guard<std::mutex> lock(mu);
  std::weak_ptr<CommitLog>& slot = logs[key];
  std::shared_ptr<CommitLog> log = slot.lock();
  if (!log) {
    log = std::make_shared<CommitLog>();
    slot = log;
  }
  if (logs.size() > 64)  // forget files no connection holds any more
    for (auto it = logs.begin(); it != logs.end();)
      it = it->second.expired() ? logs.erase(it) : std::next(it);
  return log;
}

void CommitLog::Add(Commit commit) {
  std::lock_guard<std::mutex> lock(mu_);
  commits_.push_back(std::move(commit));
  if (commits_.size() > kKeep) commits_.pop_front();
}

bool CommitLog::Covers(const WalHeader& from, const WalHeader& to, const sqlite3* connection,
                       const CommitInterest* interest, std::vector<int64_t>* stale) const {
  std::lock_guard<std::mutex> lock(mu_);
  WalHeader at = from;
  // Each step is one commit later than the last (its change counter one more), so the
  // chain is at most as long as the log.
  for (size_t steps = 0; steps < commits_.size() && at != to; ++steps) {
    const Commit* next = nullptr;
    for (auto it = commits_.rbegin(); it != commits_.rend(); ++it)
      if (it->before == at) {
        next = &*it;
        break;
      }
    if (next == nullptr) return false;  // a commit not made here: another process's
    if (next->connection != connection) {
      if (interest == nullptr) return false;
      for (const std::string& change : next->changes) {
        if (!interest->Touches(change)) continue;
        if (stale == nullptr || !interest->Keyed(change) || !next->keys_complete) return false;
        for (const auto& [name, key] : next->keys)
          if (name == change) stale->push_back(key);
      }
    }
    at = next->after;
  }
  return at == to;
}

}  // namespace weibo
