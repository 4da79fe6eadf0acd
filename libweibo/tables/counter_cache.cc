#include "tables/counter_cache.h"

#include <sqlite3.h>

#include <cstring>

#include "storage/shard.h"
#include "tables/outbox.h"

namespace weibo {

namespace {

// A live counter is its msg_counter row and the deltas pending in the outbox: a commit of
// another of the process's connections that changed neither leaves every entry good
// (storage/commit_log.h).
const CommitInterest kInterest{{"msg_counter", kCounterDeltaKind}, {}};

}  // namespace

CounterCache::CounterCache(size_t capacity) : table_(capacity), watch_(&kInterest) {}

CounterCache::~CounterCache() {
  for (Shard* shard : watch_.shards())
    if (shard != nullptr) shard->RemoveRowListener(this);
}

void CounterCache::OnUpdate(void* arg, int, const char* table, int64_t rowid) {
  // Every row change of the connection comes here: only msg_counter's matter (rowid is
  // its msg_id, an INTEGER PRIMARY KEY).
  if (std::strcmp(table, "msg_counter") != 0) return;
  static_cast<CounterCache*>(arg)->Forget(rowid);
}

void CounterCache::Validate(Shard& shard) {
  // A connection seen for the first time gets the hook that forgets this process's own
  // changes; the watch catches everyone else's.
  if (watch_.Validate(shard)) shard.AddRowListener(&CounterCache::OnUpdate, this);
}

const CachedCounter* CounterCache::Find(int shard, int64_t msg_id) {
  if (ClockTable<Slot>::Item* item = table_.Find(msg_id)) {
    Slot& s = item->value;
    if (s.shard == shard && s.generation == watch_.generation(shard)) {
      item->referenced = true;
      ++hits_;
      return &s.counter;
    }
    table_.Erase(item);
  }
  ++misses_;
  return nullptr;
}

void CounterCache::Put(Shard& shard, const CounterRow& row, std::string_view text) {
  if (table_.capacity() == 0) return;
  const int s = shard.index();
  if (!watch_.Watches(shard)) return;               // its changes would go unnoticed
  if (!sqlite3_get_autocommit(shard.db())) return;  // a write transaction's own view
  table_.Erase(row.msg_id);
  Slot& e = table_.Insert(row.msg_id).value;
  e.counter.row = row;
  e.counter.text_size_ = 0;
  // Else written each time it is served. (memcpy wants a pointer even for no bytes, and an
  // empty view's may be null.)
  if (!text.empty() && text.size() <= CachedCounter::kTextMax) {
    std::memcpy(e.counter.text_, text.data(), text.size());
    e.counter.text_size_ = static_cast<uint8_t>(text.size());
  }
  e.generation = watch_.generation(s);
  e.shard = s;
}

void CounterCache::Forget(int64_t msg_id) { table_.Erase(msg_id); }

}  // namespace weibo
