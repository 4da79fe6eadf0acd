#include "storage/commit_log.h"

#include <sqlite3.h>
#include <stdlib.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstring>
#include <thread>
#include <unordered_map>

namespace weibo {

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

namespace {

uint32_t BigEndian(const unsigned char* p) {
  return (uint32_t{p[0]} << 24) | (uint32_t{p[1]} << 16) | (uint32_t{p[2]} << 8) | p[3];
}

}  // namespace

// walformat.html 2.2: bytes 0-15 (version, change counter, page size) as before's, no
// frame (16), before's page count (20), salt-1 (32, big-endian as in the WAL file) one
// more than before's, and both salts (32-39) those after's frames were written with.
bool WalHeader::RestartBetween(const WalHeader& before, const WalHeader& after) const {
  return std::memcmp(bytes, before.bytes, 16) == 0 && frames() == 0 &&
         std::memcmp(bytes + 20, before.bytes + 20, 4) == 0 &&
         BigEndian(bytes + 32) == BigEndian(before.bytes + 32) + 1 &&
         std::memcmp(bytes + 32, after.bytes + 32, 8) == 0;
}

bool MapWalIndex(sqlite3* db, const volatile unsigned char** out) {
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
  *out = static_cast<const volatile unsigned char*>(region);
  return true;
}

bool CopyWalHeader(const volatile unsigned char* base, WalHeader* out) {
  // A writer stores the second copy, then a barrier, then the first; a reader reads the
  // first, a barrier, the second, and trusts them when they are equal (wal.c,
  // walIndexTryHdr): a copy torn by a commit in progress differs from the other one. A
  // torn read is tried again a few times, as SQLite's readers do.
  // Read a word at a time: the region is the -shm file's first page, mapped page-aligned,
  // and the header is 6 words; a byte at a time, 96 volatile loads, was 1.3% of a home
  // read's time (perf, r3k trace, session 47: a read validates a dozen shards' caches).
  constexpr size_t kWords = sizeof out->bytes / sizeof(uint64_t);
  static_assert(kWords * sizeof(uint64_t) == sizeof out->bytes);
  const volatile uint64_t* words = reinterpret_cast<const volatile uint64_t*>(base);
  uint64_t first[kWords], second[kWords];
  for (int attempt = 0; attempt < 8; ++attempt) {
    if (attempt > 0) std::this_thread::yield();
    for (size_t i = 0; i < kWords; ++i) first[i] = words[i];
    std::atomic_thread_fence(std::memory_order_acquire);
    for (size_t i = 0; i < kWords; ++i) second[i] = words[kWords + i];
    if (std::memcmp(first, second, sizeof first) == 0) {
      std::memcpy(out->bytes, first, sizeof out->bytes);
      return true;
    }
  }
  return false;
}

bool ReadWalHeader(sqlite3* db, WalHeader* out) {
  const volatile unsigned char* region = nullptr;
  return MapWalIndex(db, &region) && CopyWalHeader(region, out);
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

size_t CommitLog::in_flight() const {
  std::lock_guard<std::mutex> lock(mu_);
  return static_cast<size_t>(
      std::count_if(commits_.begin(), commits_.end(), [](const Commit& c) { return !c.settled; }));
}

uint64_t CommitLog::Begin(Commit commit) {
  std::lock_guard<std::mutex> lock(mu_);
  commit.id = ++last_id_;
  commit.settled = false;
  commits_.push_back(std::move(commit));
  if (commits_.size() > kKeep) commits_.pop_front();
  return last_id_;
}

void CommitLog::Settle(uint64_t id, const WalHeader* after) {
  std::lock_guard<std::mutex> lock(mu_);
  for (auto it = commits_.rbegin(); it != commits_.rend(); ++it) {
    if (it->id != id) continue;
    if (after != nullptr) {
      it->after = *after;
      it->settled = true;
    } else {
      commits_.erase(std::next(it).base());
    }
    return;
  }
}

const CommitLog::Commit* CommitLog::From(const WalHeader& at, bool* in_flight) const {
  *in_flight = false;
  for (auto it = commits_.rbegin(); it != commits_.rend(); ++it) {
    if (it->settled) {
      if (it->before == at || at.RestartBetween(it->before, it->after)) return &*it;
    } else if (it->before == at ||
               (at.frames() == 0 && at.change_counter() == it->before.change_counter())) {
      *in_flight = true;  // it, or the WAL restart it is making; its after will tell
    }
  }
  return nullptr;
}

bool CommitLog::Covers(const WalHeader& from, const WalHeader& to, const sqlite3* connection,
                       const CommitInterest* interest, std::vector<int64_t>* stale) const {
  using Clock = std::chrono::steady_clock;
  Clock::time_point deadline{};
  std::unique_lock<std::mutex> lock(mu_);
  WalHeader at = from;
  // Each step is one commit later than the last (its change counter one more), so the
  // chain is at most as long as the log.
  for (size_t steps = 0; steps <= commits_.size() && at != to;) {
    bool in_flight = false;
    const Commit* next = From(at, &in_flight);
    if (next == nullptr) {
      if (!in_flight) return false;  // a commit not made here: another process's
      // One of this process's commits is between its header and its WAL hook.
      if (deadline == Clock::time_point{})
        deadline = Clock::now() + std::chrono::microseconds(in_flight_wait_us_.load());
      else if (Clock::now() >= deadline)
        return false;
      lock.unlock();
      std::this_thread::yield();
      lock.lock();
      continue;
    }
    // to was read while next was restarting the WAL: its content is next's before.
    if (to.RestartBetween(next->before, next->after)) return true;
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
    ++steps;
  }
  return at == to;
}

}  // namespace weibo
