#include "tables/counter_cache.h"

#include <sqlite3.h>

#include <cstring>
#include <utility>

#include "storage/shard.h"

namespace weibo {

CounterCache::~CounterCache() {
  for (Shard* shard : watch_.shards())
    if (shard != nullptr) sqlite3_update_hook(shard->db(), nullptr, nullptr);
}

void CounterCache::OnUpdate(void* arg, int, const char*, const char* table, long long rowid) {
  // Every row change of the connection comes here: only msg_counter's matter (rowid is
  // its msg_id, an INTEGER PRIMARY KEY).
  if (std::strcmp(table, "msg_counter") != 0) return;
  static_cast<CounterCache*>(arg)->Forget(rowid);
}

void CounterCache::Validate(Shard& shard) {
  // A connection seen for the first time gets the hook that forgets this process's own
  // changes; the watch catches everyone else's.
  if (watch_.Validate(shard)) sqlite3_update_hook(shard.db(), &CounterCache::OnUpdate, this);
}

const CachedCounter* CounterCache::Find(int shard, int64_t msg_id) {
  auto it = entries_.find(msg_id);
  if (it != entries_.end()) {
    const Entry& e = *it->second;
    if (e.shard == shard && e.generation == watch_.generation(shard)) {
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
  if (!watch_.Watches(shard)) return;               // its changes would go unnoticed
  if (!sqlite3_get_autocommit(shard.db())) return;  // a write transaction's own view
  Forget(row.msg_id);
  lru_.push_front(Entry{CachedCounter{row, std::move(text)}, s, watch_.generation(s)});
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
