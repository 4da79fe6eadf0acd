#include "tables/counter_cache.h"

#include <sqlite3.h>

#include <atomic>
#include <cstring>
#include <utility>

#include "storage/shard.h"

namespace weibo {

CounterCache::~CounterCache() {
  for (auto& w : watched_)
    if (w && w->shard != nullptr) sqlite3_update_hook(w->shard->db(), nullptr, nullptr);
}

void CounterCache::OnUpdate(void* arg, int, const char*, const char* table, long long rowid) {
  // Every row change of the connection comes here: only msg_counter's matter (rowid is
  // its msg_id, an INTEGER PRIMARY KEY).
  if (std::strcmp(table, "msg_counter") != 0) return;
  static_cast<Watched*>(arg)->cache->Forget(rowid);
}

CounterCache::Watched& CounterCache::Slot(int shard) {
  if (static_cast<size_t>(shard) >= watched_.size()) watched_.resize(shard + 1);
  auto& w = watched_[shard];
  if (!w) {
    w = std::make_unique<Watched>();
    w->cache = this;
  }
  return *w;
}

bool CounterCache::ReadWalHeader(Shard& shard, unsigned char (&out)[48]) {
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

void CounterCache::Validate(Shard& shard) {
  Watched& w = Slot(shard.index());
  if (w.shard != &shard) {  // a connection not seen before: nothing cached is from it
    sqlite3_update_hook(shard.db(), &CounterCache::OnUpdate, &w);
    w.shard = &shard;
    w.data_version = -1;
    w.header_known = false;
  }
  // Read before the pragma: a commit landing between the two moves the header away from
  // this copy, so the next Validate asks again.
  unsigned char header[48];
  const bool have_header = ReadWalHeader(shard, header);
  if (have_header && w.header_known && std::memcmp(header, w.wal_header, sizeof header) == 0)
    return;  // nothing committed since the last pragma: data_version is what it was
  w.header_known = have_header;
  if (have_header) std::memcpy(w.wal_header, header, sizeof header);
  int64_t version = shard.Query("PRAGMA data_version").IntOr(-1);
  if (version != w.data_version) {
    ++w.generation;  // another connection committed: the shard's entries are dropped
    w.data_version = version;
  }
}

const CachedCounter* CounterCache::Find(int shard, int64_t msg_id) {
  auto it = entries_.find(msg_id);
  if (it != entries_.end()) {
    const Entry& e = *it->second;
    if (e.shard == shard && static_cast<size_t>(shard) < watched_.size() && watched_[shard] &&
        e.generation == watched_[shard]->generation) {
      lru_.splice(lru_.begin(), lru_, it->second);
      ++hits_;
      return &e.counter;
    }
    lru_.erase(it->second);
    entries_.erase(it);
  }
  ++misses_;
  return nullptr;
}

void CounterCache::Put(Shard& shard, const CounterRow& row, std::string text) {
  if (capacity_ == 0) return;
  const int s = shard.index();
  if (static_cast<size_t>(s) >= watched_.size() || !watched_[s] || watched_[s]->shard != &shard)
    return;                                         // not watched: its changes would go unnoticed
  if (!sqlite3_get_autocommit(shard.db())) return;  // a write transaction's own view
  Forget(row.msg_id);
  lru_.push_front(Entry{CachedCounter{row, std::move(text)}, s, watched_[s]->generation});
  entries_[row.msg_id] = lru_.begin();
  if (entries_.size() > capacity_) {
    entries_.erase(lru_.back().counter.row.msg_id);
    lru_.pop_back();
  }
}

void CounterCache::Forget(int64_t msg_id) {
  auto it = entries_.find(msg_id);
  if (it == entries_.end()) return;
  lru_.erase(it->second);
  entries_.erase(it);
}

}  // namespace weibo
