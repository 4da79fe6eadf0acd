#include "storage/shard_watch.h"

#include <sqlite3.h>

#include <atomic>
#include <cstring>

#include "storage/shard.h"

namespace weibo {

bool ShardWatch::ReadWalHeader(Shard& shard, unsigned char (&out)[48]) {
  // Only a connection with its WAL open has the -shm mapped; asking for the map of one
  // without would make SQLite open it outside its own sequence.
  sqlite3_file* wal = nullptr;
  sqlite3_file* db = nullptr;
  if (sqlite3_file_control(shard.db(), "main", SQLITE_FCNTL_JOURNAL_POINTER, &wal) != SQLITE_OK ||
      wal == nullptr || wal->pMethods == nullptr ||
      sqlite3_file_control(shard.db(), "main", SQLITE_FCNTL_FILE_POINTER, &db) != SQLITE_OK ||
      db == nullptr || db->pMethods == nullptr || db->pMethods->iVersion < 2 ||
      db->pMethods->xShmMap == nullptr)
    return false;
  volatile void* region = nullptr;
  if (db->pMethods->xShmMap(db, 0, 32768, 0, &region) != SQLITE_OK || region == nullptr)
    return false;
  // The writer stores the header's second copy, then a barrier, then this first one; a
  // copy torn by a commit in progress differs from the kept one and only costs a pragma.
  std::atomic_thread_fence(std::memory_order_acquire);
  std::memcpy(out, const_cast<const void*>(region), sizeof out);
  return true;
}

bool ShardWatch::Validate(Shard& shard) {
  const size_t i = static_cast<size_t>(shard.index());
  if (i >= watched_.size()) watched_.resize(i + 1);
  Watched& w = watched_[i];
  bool fresh = false;
  if (w.shard != &shard) {  // a connection not seen before: nothing held is from it
    w.shard = &shard;
    w.data_version = -1;
    w.header_known = false;
    ++w.generation;
    fresh = true;
  }
  unsigned char header[48];
  const bool have_header = ReadWalHeader(shard, header);
  if (have_header && w.header_known && std::memcmp(header, w.wal_header, sizeof header) == 0)
    return fresh;  // nothing committed since the last pragma: data_version is what it was
  w.header_known = have_header;
  if (have_header) std::memcpy(w.wal_header, header, sizeof header);
  int64_t version = shard.Query("PRAGMA data_version").IntOr(-1);
  if (version != w.data_version) {
    ++w.generation;  // another connection committed: the shard's copies are stale
    w.data_version = version;
  }
  return fresh;
}

bool ShardWatch::Watches(Shard& shard) const {
  const size_t i = static_cast<size_t>(shard.index());
  return i < watched_.size() && watched_[i].shard == &shard;
}

uint64_t ShardWatch::generation(int shard) const {
  const size_t i = static_cast<size_t>(shard);
  return i < watched_.size() ? watched_[i].generation : 0;
}

void ShardWatch::Bump(int shard) {
  const size_t i = static_cast<size_t>(shard);
  if (i < watched_.size()) ++watched_[i].generation;
}

std::vector<Shard*> ShardWatch::shards() const {
  std::vector<Shard*> out;
  for (const Watched& w : watched_) out.push_back(w.shard);
  return out;
}

}  // namespace weibo
