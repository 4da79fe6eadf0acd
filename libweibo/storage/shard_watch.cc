#include "storage/shard_watch.h"

#include "storage/shard.h"

namespace weibo {

bool ShardWatch::Validate(Shard& shard, std::vector<int64_t>* stale) {
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
  WalHeader header;
  const bool have_header = shard.WalIndexHeader(&header);
  if (have_header && w.header_known) {
    if (header == w.wal_header) return fresh;  // nothing committed since
    if (shard.commit_log() != nullptr &&
        shard.commit_log()->Covers(w.wal_header, header, shard.db(), interest_, stale)) {
      w.wal_header = header;  // only this process's commits, none that stales a copy
      ++adopted_;
      return fresh;
    }
  }
  if (stale != nullptr) stale->clear();
  w.header_known = have_header;
  if (have_header) w.wal_header = header;
  int64_t version = shard.Query("PRAGMA data_version").IntOr(-1);
  if (version != w.data_version) {
    ++w.generation;  // another connection committed: the shard's copies are stale
    ++dropped_;
    w.data_version = version;
  }
  return fresh;
}

bool ShardWatch::Current(Shard& shard) const {
  const size_t i = static_cast<size_t>(shard.index());
  if (i >= watched_.size() || watched_[i].shard != &shard || !watched_[i].header_known)
    return false;
  WalHeader now;
  return shard.WalIndexHeader(&now) && now == watched_[i].wal_header;
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
