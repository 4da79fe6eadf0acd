#include "tables/message_cache.h"

#include <sqlite3.h>

#include <cstring>

#include "storage/shard.h"
#include "tables/active_fan.h"
#include "tables/outbox.h"
#include "tables/user_info.h"
#include "tables/user_relation.h"

namespace weibo {

namespace {

// The rows an entry is made of (OnChange) and the pending deltas added to its counters,
// and the outboxes of the authors' posts: a commit of another of the process's
// connections that changed none of them (the background applier's inbox rows and jobs)
// leaves every entry good (storage/commit_log.h).
const CommitInterest kInterest{
    {"msg_info", "msg_counter", kUserNameChange, "entities", kCounterDeltaKind, "author_feed"}, {}};

// What a reader's lists are read from. Both tables are keyed (their writers name the
// reader): the background applier's joins and evictions forget only those readers' lists.
const CommitInterest kListsInterest{{kFollowingChange, kActiveOnChange},
                                    {kFollowingChange, kActiveOnChange}};

}  // namespace

MessageCache::MessageCache(size_t capacity)
    : capacity_(capacity), watch_(&kInterest), lists_watch_(&kListsInterest) {}

MessageCache::~MessageCache() {
  for (Shard* shard : watch_.shards())
    if (shard != nullptr) shard->RemoveRowListener(this);
}

void MessageCache::OnChange(void* arg, int op, const char* table, int64_t rowid) {
  auto* cache = static_cast<MessageCache*>(arg);
  if (std::strcmp(table, "msg_info") == 0 || std::strcmp(table, "msg_counter") == 0) {
    cache->Forget(rowid);
  } else if (std::strcmp(table, kUserNameChange) == 0) {
    cache->AuthorChanged(rowid);
  } else if (std::strcmp(table, "entities") == 0) {
    // The rowid is the entity's own (added_id), not its message's: every entry is stale.
    // Only an entity write reaches here, and those are rare (--attr).
    ++cache->epoch_;
  } else if (std::strcmp(table, kFollowingChange) == 0 ||
             std::strcmp(table, kActiveOnChange) == 0) {
    cache->lists_.map.erase(rowid);  // keyed by the reader
  } else if (std::strcmp(table, "author_feed") == 0) {
    // Keyed by the author (tables/author_feed.cc), 0 for every author of the shard. An
    // insert sets the author's entry aside for Posted; anything else forgets it.
    if (rowid == 0) {
      cache->posts_.map.clear();
      cache->set_aside_.clear();
    } else if (op == SQLITE_INSERT) {
      auto it = cache->posts_.map.find(rowid);
      auto aside = cache->set_aside_.find(rowid);
      if (aside != cache->set_aside_.end()) {
        ++aside->second.inserts;
      } else if (it != cache->posts_.map.end()) {
        if (cache->set_aside_.size() >= kSetAside) cache->set_aside_.clear();
        cache->set_aside_[rowid] = SetAside{std::move(it->second), 1};
      }
      if (it != cache->posts_.map.end()) cache->posts_.map.erase(it);
    } else {
      cache->posts_.map.erase(rowid);
      cache->set_aside_.erase(rowid);
    }
  }
}

void MessageCache::Validate(Shard& shard) {
  // A connection seen for the first time gets the listener that catches this process's
  // own changes; the watch catches everyone else's.
  if (watch_.Validate(shard)) shard.AddRowListener(&MessageCache::OnChange, this);
  std::vector<int64_t> stale;  // readers whose lists another connection of ours changed
  lists_watch_.Validate(shard, &stale);
  for (int64_t reader : stale) lists_.map.erase(reader);
}

void MessageCache::Hold(Shard& shard) {
  Validate(shard);
  const size_t i = static_cast<size_t>(shard.index());
  if (i >= held_.size()) held_.resize(i + 1, false);
  held_[i] = true;
}

void MessageCache::Release(int shard) {
  if (static_cast<size_t>(shard) < held_.size()) held_[static_cast<size_t>(shard)] = false;
}

bool MessageCache::Usable(Shard& shard) {
  // Inside a transaction the shard's snapshot may be older than a commit the watch would
  // see now, and the generation it moved to would be stamped on rows of that older
  // snapshot: a shard is validated between transactions only. A read transaction is used
  // when it was opened right after one (Hold); a write transaction never is.
  if (sqlite3_txn_state(shard.db(), nullptr) == SQLITE_TXN_NONE) Validate(shard);
  return InValidatedView(shard);
}

bool MessageCache::InValidatedView(Shard& shard) const {
  switch (sqlite3_txn_state(shard.db(), nullptr)) {
    case SQLITE_TXN_NONE:
      return true;
    case SQLITE_TXN_READ:
      return static_cast<size_t>(shard.index()) < held_.size() &&
             held_[static_cast<size_t>(shard.index())];
    default:
      return false;
  }
}

uint32_t MessageCache::AuthorCount(int64_t user) const {
  auto it = authors_.find(user);
  return it == authors_.end() ? 0 : it->second;
}

void MessageCache::AuthorChanged(int64_t user) {
  if (entries_.empty()) return;
  if (authors_.size() >= 4 * capacity_ + 1024) {
    // Bounded: the counts start again from 0, so every entry stored with one is stale.
    authors_.clear();
    ++epoch_;
  }
  ++authors_[user];
}

MessageCache::Row MessageCache::Find(int shard, int64_t msg_id) {
  auto it = entries_.find(msg_id);
  if (it != entries_.end()) {
    Entry& e = it->second;
    if (e.shard == shard && e.generation == watch_.generation(shard) && e.epoch == epoch_ &&
        e.author == AuthorCount(e.row->msg.user_id)) {
      e.referenced = true;
      ++hits_;
      return e.row;
    }
    entries_.erase(it);
  }
  ++misses_;
  return nullptr;
}

void MessageCache::Evict() {
  if (ring_.empty()) {  // every entry has an item in the ring: not reached
    entries_.clear();
    return;
  }
  while (!ring_.empty()) {
    auto [msg_id, ticket] = ring_.front();
    ring_.pop_front();
    auto it = entries_.find(msg_id);
    if (it == entries_.end() || it->second.ticket != ticket) continue;  // forgotten since
    if (it->second.referenced) {
      it->second.referenced = false;
      ring_.emplace_back(msg_id, ticket);
      continue;
    }
    entries_.erase(it);
    return;
  }
}

void MessageCache::Put(Shard& shard, Row row) {
  if (capacity_ == 0 || row == nullptr || !row->attrs_known) return;
  if (!watch_.Watches(shard)) return;  // its changes would go unnoticed
  // Not validated again here: the row was read after the caller's Usable, and a commit
  // since would move the generation past the row's snapshot.
  if (!InValidatedView(shard)) return;
  const int64_t id = row->msg.id;
  entries_.erase(id);
  while (entries_.size() >= capacity_) Evict();
  // Forgotten entries leave their items in the ring: dropped here when they are most of it.
  if (ring_.size() > 2 * capacity_ + 1024) {
    ring_.clear();
    for (const auto& [key, e] : entries_) ring_.emplace_back(key, e.ticket);
  }
  const uint64_t ticket = next_ticket_++;
  Entry& e = entries_[id];
  e.author = AuthorCount(row->msg.user_id);
  e.row = std::move(row);
  e.generation = watch_.generation(shard.index());
  e.epoch = epoch_;
  e.ticket = ticket;
  e.shard = shard.index();
  e.referenced = false;
  ring_.emplace_back(id, ticket);
}

const MessageCache::AuthorPosts* MessageCache::FindPosts(int shard, int64_t author) {
  return posts_.Find(author, shard, watch_.generation(shard));
}

void MessageCache::PutPosts(Shard& shard, int64_t author, AuthorPosts posts) {
  if (capacity_ == 0 || !watch_.Watches(shard) || !InValidatedView(shard)) return;
  posts_.Put(author, {std::move(posts), watch_.generation(shard.index()), shard.index()}, bound());
}

void MessageCache::Posted(Shard& shard, const MsgRow& row) {
  auto it = set_aside_.find(row.user_id);
  if (it == set_aside_.end()) return;
  SetAside aside = std::move(it->second);
  set_aside_.erase(it);
  ByKey<AuthorPosts>::Entry& e = aside.entry;
  if (aside.inserts != 1 || !InValidatedView(shard) || e.shard != shard.index() ||
      e.generation != watch_.generation(shard.index()))
    return;
  if (row.type != kComment) {
    std::vector<int64_t>& ids = e.value.ids;
    if (!ids.empty() && row.id <= ids.front()) return;  // not the newest: read it again
    ids.insert(ids.begin(), row.id);
    if (static_cast<int64_t>(ids.size()) > kPostsKept) {
      ids.pop_back();
      e.value.complete = false;
    }
  }
  posts_.Put(row.user_id, std::move(e), bound());
}

const MessageCache::ReaderLists* MessageCache::FindLists(Shard& shard, int64_t reader) {
  if (lists_.map.empty() || !lists_watch_.Current(shard)) return nullptr;
  return lists_.Find(reader, shard.index(), lists_watch_.generation(shard.index()));
}

void MessageCache::PutLists(Shard& shard, int64_t reader, ReaderLists lists) {
  if (capacity_ == 0 || !lists_watch_.Watches(shard) || !InValidatedView(shard)) return;
  lists_.Put(reader, {std::move(lists), lists_watch_.generation(shard.index()), shard.index()},
             bound());
}

void MessageCache::Forget(int64_t msg_id) {
  if (!entries_.empty()) entries_.erase(msg_id);
}

}  // namespace weibo
