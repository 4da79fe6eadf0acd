#include "tables/message_cache.h"

#include <sqlite3.h>

#include <algorithm>
#include <cstdint>
#include <cstring>

#include "storage/shard.h"
#include "tables/active_fan.h"
#include "tables/msg_index.h"
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
const CommitInterest kListsInterest{{kFollowingChange, kActiveOnChange, kInboxFloorChange},
                                    {kFollowingChange, kActiveOnChange, kInboxFloorChange}};

// What a reader's inbox is read from: msg_index, whose writers name the reader (0: all).
const CommitInterest kInboxInterest{{kInboxChange}, {kInboxChange}};

// What a reader's state is read from: user_info and last_seen, whose writers of the
// state's columns name the reader (0: all).
const CommitInterest kReaderInterest{{kReaderChange}, {kReaderChange}};

// Where the reference counts of an object made by std::make_shared are, for a prefetch
// hint: libstdc++ keeps them just before the object, in the same allocation. An address
// only, computed as an integer (never dereferenced here), so a hint never forms a
// pointer outside the object.
const void* CountsOf(const void* object) {
  return reinterpret_cast<const void*>(reinterpret_cast<uintptr_t>(object) - 16);
}

}  // namespace

MessageCache::MessageCache(size_t capacity)
    : capacity_(capacity),
      entries_(capacity),
      watch_(&kInterest),
      posts_(bound()),
      lists_watch_(&kListsInterest),
      lists_(bound()),
      inbox_watch_(&kInboxInterest),
      inboxes_(bound()),
      reader_watch_(&kReaderInterest),
      readers_(bound()) {}

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
    cache->entries_.Clear();
    cache->authors_.clear();
  } else if (std::strcmp(table, kFollowingChange) == 0 ||
             std::strcmp(table, kActiveOnChange) == 0 ||
             std::strcmp(table, kInboxFloorChange) == 0) {
    cache->lists_.table.Erase(rowid);  // keyed by the reader
  } else if (std::strcmp(table, kInboxChange) == 0) {
    // Keyed by the reader. An insert (the reader's own message, for Posted) sets the
    // reader's inbox aside; anything else forgets it.
    if (rowid == 0 || op != SQLITE_INSERT)
      cache->ForgetInbox(rowid);
    else
      SetAside(cache->inboxes_, cache->inbox_aside_, rowid);
  } else if (std::strcmp(table, kReaderChange) == 0) {
    // Keyed by the reader (0: all). Any change sets the reader's state aside, for Posted
    // to bring back when the change was its post's touch of last_active.
    if (rowid == 0)
      cache->ForgetReader(0);
    else
      SetAside(cache->readers_, cache->reader_aside_, rowid);
  } else if (std::strcmp(table, "author_feed") == 0) {
    // Keyed by the author (tables/author_feed.cc), 0 for every author of the shard. An
    // insert sets the author's entry aside for Posted; anything else forgets it.
    if (rowid == 0) {
      cache->posts_.table.Clear();
      cache->set_aside_.clear();
    } else if (op == SQLITE_INSERT) {
      SetAside(cache->posts_, cache->set_aside_, rowid);
    } else {
      cache->posts_.table.Erase(rowid);
      cache->set_aside_.erase(rowid);
    }
  }
}

template <class T>
void MessageCache::SetAside(ByKey<T>& by_key, AsideMap<T>& aside, int64_t key) {
  auto* item = by_key.table.Find(key);
  auto it = aside.find(key);
  if (it != aside.end()) {
    ++it->second.changes;
  } else if (item != nullptr) {
    if (aside.size() >= kSetAside) aside.clear();
    aside[key] = Aside<T>{std::move(item->value), 1};
  }
  if (item != nullptr) by_key.table.Erase(item);
}

void MessageCache::Validate(Shard& shard) {
  // A connection seen for the first time gets the listener that catches this process's
  // own changes; the watch catches everyone else's.
  if (watch_.Validate(shard)) shard.AddRowListener(&MessageCache::OnChange, this);
  std::vector<int64_t> stale;  // readers whose lists another connection of ours changed
  lists_watch_.Validate(shard, &stale);
  for (int64_t reader : stale) lists_.table.Erase(reader);
  stale.clear();
  inbox_watch_.Validate(shard, &stale);
  for (int64_t reader : stale) ForgetInbox(reader);
  stale.clear();
  reader_watch_.Validate(shard, &stale);
  for (int64_t reader : stale) ForgetReader(reader);
}

void MessageCache::ForgetReader(int64_t reader) {
  if (reader == 0) {
    readers_.table.Clear();
    reader_aside_.clear();
  } else {
    readers_.table.Erase(reader);
    reader_aside_.erase(reader);
  }
}

const MessageCache::ReaderState* MessageCache::FindReader(Shard& shard, int64_t reader) {
  if (readers_.table.size() == 0 || !reader_watch_.Current(shard)) return nullptr;
  return readers_.Find(reader, shard.index(), reader_watch_.generation(shard.index()));
}

void MessageCache::PutReader(Shard& shard, int64_t reader, const ReaderState& state) {
  if (capacity_ == 0 || !reader_watch_.Watches(shard) || !InValidatedView(shard)) return;
  reader_aside_.erase(reader);  // an older state: Posted must not bring it back
  readers_.Put(reader, {state, reader_watch_.generation(shard.index()), shard.index()});
}

void MessageCache::RaiseReader(int64_t reader, const ReaderState& written) {
  auto* item = readers_.table.Find(reader);
  if (item == nullptr) return;
  ReaderState& kept = item->value.value;
  kept.last_active = std::max(kept.last_active, written.last_active);
  kept.lists_touched = std::max(kept.lists_touched, written.lists_touched);
  kept.seen = std::max(kept.seen, written.seen);
}

void MessageCache::ForgetInbox(int64_t reader) {
  if (reader == 0) {  // every reader of a shard (tables/msg_index.h)
    inboxes_.table.Clear();
    inbox_aside_.clear();
  } else {
    inboxes_.table.Erase(reader);
    inbox_aside_.erase(reader);
  }
}

void MessageCache::Hold(Shard& shard) {
  Validate(shard);
  HoldValidated(shard);
}

void MessageCache::HoldValidated(Shard& shard) {
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

void MessageCache::AuthorChanged(int64_t user) {
  if (authors_.find(user) == authors_.end()) return;
  std::vector<ClockTable<Entry>::Item*> stale;
  entries_.ForEach([&](ClockTable<Entry>::Item& item) {
    if (item.value.author == user) stale.push_back(&item);
  });
  for (auto* item : stale) Drop(item);  // Erase moves index entries, never slots
}

void MessageCache::Uncount(int64_t author) {
  auto it = authors_.find(author);
  if (it != authors_.end() && --it->second == 0) authors_.erase(it);
}

void MessageCache::Drop(ClockTable<Entry>::Item* item) {
  Uncount(item->value.author);
  entries_.Erase(item);
}

MessageCache::Row MessageCache::Find(int shard, int64_t msg_id) {
  if (ClockTable<Entry>::Item* item = entries_.Find(msg_id)) {
    Entry& e = item->value;
    if (e.shard == shard && e.generation == watch_.generation(shard)) {
      item->referenced = true;
      ++hits_;
      return e.row;
    }
    Drop(item);
  }
  ++misses_;
  return nullptr;
}

void MessageCache::Prefetch(const std::vector<int64_t>& ids) const {
  if (entries_.size() == 0) return;
  for (int64_t id : ids) entries_.PrefetchIndex(id);
  for (int64_t id : ids) entries_.PrefetchItem(id);
  for (int64_t id : ids) {
    const ClockTable<Entry>::Item* item = entries_.Peek(id);
    if (item == nullptr || item->value.row == nullptr) continue;
    const PageRow* row = item->value.row.get();
    // A row made by make_shared has its counts just before it, maybe on the line before;
    // the head's std::string is a few lines in (its address needs no load).
    __builtin_prefetch(CountsOf(row));
    __builtin_prefetch(row);
    __builtin_prefetch(&row->head);
  }
}

void MessageCache::Put(Shard& shard, Row row) {
  if (capacity_ == 0 || row == nullptr || !row->attrs_known) return;
  if (!watch_.Watches(shard)) return;  // its changes would go unnoticed
  // Not validated again here: the row was read after the caller's Usable, and a commit
  // since would move the generation past the row's snapshot.
  if (!InValidatedView(shard)) return;
  const int64_t id = row->msg.id;
  Forget(id);
  Entry& e =
      entries_
          .Insert(id, [this](ClockTable<Entry>::Item& evicted) { Uncount(evicted.value.author); })
          .value;
  e.author = row->msg.user_id;
  e.row = std::move(row);
  e.generation = watch_.generation(shard.index());
  e.shard = shard.index();
  ++authors_[e.author];
}

MessageCache::Posts MessageCache::FindPosts(int shard, int64_t author) {
  const Posts* hit = posts_.Find(author, shard, watch_.generation(shard));
  return hit != nullptr ? *hit : nullptr;
}

void MessageCache::PrefetchPosts(const std::vector<int64_t>& authors) const {
  const ClockTable<ByKey<Posts>::Entry>& table = posts_.table;
  if (table.size() == 0) return;
  for (int64_t author : authors) table.PrefetchIndex(author);
  for (int64_t author : authors) table.PrefetchItem(author);
  for (int64_t author : authors) {
    const auto* item = table.Peek(author);
    if (item == nullptr || item->value.value == nullptr) continue;
    const AuthorPosts* posts = item->value.value.get();
    __builtin_prefetch(CountsOf(posts));
    __builtin_prefetch(posts);
  }
}

void MessageCache::PutPosts(Shard& shard, int64_t author, Posts posts) {
  if (capacity_ == 0 || !watch_.Watches(shard) || !InValidatedView(shard)) return;
  posts_.Put(author, {std::move(posts), watch_.generation(shard.index()), shard.index()});
}

void MessageCache::Posted(Shard& shard, const MsgRow& row) {
  auto state = reader_aside_.find(row.user_id);
  if (state != reader_aside_.end()) {
    Aside<ReaderState> aside = std::move(state->second);
    reader_aside_.erase(state);
    ByKey<ReaderState>::Entry& e = aside.entry;
    if (aside.changes == 1 && InValidatedView(shard) && e.shard == shard.index() &&
        e.generation == reader_watch_.generation(shard.index())) {
      e.value.last_active = std::max(e.value.last_active, row.time);  // the post's TouchUser
      readers_.Put(row.user_id, std::move(e));
    }
  }
  auto inbox = inbox_aside_.find(row.user_id);
  if (inbox != inbox_aside_.end()) {
    Aside<ReaderInbox> aside = std::move(inbox->second);
    inbox_aside_.erase(inbox);
    ByKey<ReaderInbox>::Entry& e = aside.entry;
    auto& rows = e.value.rows;
    if (aside.changes == 1 && InValidatedView(shard) && e.shard == shard.index() &&
        e.generation == inbox_watch_.generation(shard.index()) &&
        (rows.empty() || row.id > rows.front().first)) {
      AddInboxRow(e.value, rows.begin(), row.id, row.user_id);
      inboxes_.Put(row.user_id, std::move(e));
    }
  }
  auto it = set_aside_.find(row.user_id);
  if (it == set_aside_.end()) return;
  Aside<Posts> aside = std::move(it->second);
  set_aside_.erase(it);
  ByKey<Posts>::Entry& e = aside.entry;
  if (aside.changes != 1 || !InValidatedView(shard) || e.shard != shard.index() ||
      e.generation != watch_.generation(shard.index()))
    return;
  if (row.type != kComment) {
    // A page may still hold the old list: the new one is a copy.
    AuthorPosts posts = *e.value;
    std::vector<int64_t>& ids = posts.ids;
    if (!ids.empty() && row.id <= ids.front()) return;  // not the newest: read it again
    ids.insert(ids.begin(), row.id);
    if (static_cast<int64_t>(ids.size()) > kPostsKept) {
      ids.pop_back();
      posts.complete = false;
    }
    e.value = std::make_shared<const AuthorPosts>(std::move(posts));
  }
  posts_.Put(row.user_id, std::move(e));
}

MessageCache::Lists MessageCache::FindLists(Shard& shard, int64_t reader) {
  if (lists_.table.size() == 0 || !lists_watch_.Current(shard)) return nullptr;
  const Lists* hit = lists_.Find(reader, shard.index(), lists_watch_.generation(shard.index()));
  return hit != nullptr ? *hit : nullptr;
}

void MessageCache::PutLists(Shard& shard, int64_t reader, ReaderLists lists) {
  if (capacity_ == 0 || !lists_watch_.Watches(shard) || !InValidatedView(shard)) return;
  lists_.Put(reader, {std::make_shared<const ReaderLists>(std::move(lists)),
                      lists_watch_.generation(shard.index()), shard.index()});
}

void MessageCache::Forget(int64_t msg_id) {
  if (ClockTable<Entry>::Item* item = entries_.Find(msg_id)) Drop(item);
}

const MessageCache::ReaderInbox* MessageCache::FindInbox(Shard& shard, int64_t reader) {
  if (inboxes_.table.size() == 0 || !inbox_watch_.Current(shard)) return nullptr;
  return inboxes_.Find(reader, shard.index(), inbox_watch_.generation(shard.index()));
}

void MessageCache::PutInbox(Shard& shard, int64_t reader, ReaderInbox inbox) {
  if (capacity_ == 0 || !inbox_watch_.Watches(shard) || !InValidatedView(shard)) return;
  inboxes_.Put(reader, {std::move(inbox), inbox_watch_.generation(shard.index()), shard.index()});
}

void MessageCache::Delivered(int shard, int64_t reader, int64_t msg_id, int64_t author,
                             bool applied) {
  auto* item = inboxes_.table.Find(reader);
  if (item == nullptr) return;
  auto& kept = item->value;
  const auto* lists = lists_.table.Find(reader);
  bool follows = false, known = false;
  if (applied && kept.shard == shard && kept.generation == inbox_watch_.generation(shard) &&
      lists != nullptr && lists->value.shard == shard &&
      lists->value.generation == lists_watch_.generation(shard) && lists->value.value) {
    const std::vector<int64_t>& followees = lists->value.value->followees;
    known = true;
    follows = std::binary_search(followees.begin(), followees.end(), author);
  }
  if (!known) {
    inboxes_.table.Erase(item);
    return;
  }
  if (!follows) return;  // the insert added nothing
  ReaderInbox& inbox = kept.value;
  auto& rows = inbox.rows;
  // Newest first; a message below the last kept row of an incomplete inbox is below what
  // the entry covers, and changes nothing in it.
  auto at = std::lower_bound(
      rows.begin(), rows.end(), msg_id,
      [](const std::pair<int64_t, int64_t>& row, int64_t id) { return row.first > id; });
  if (at != rows.end() && at->first == msg_id) return;  // read after its commit already
  if (at == rows.end() && !inbox.complete) return;
  AddInboxRow(inbox, at, msg_id, author);
}

void MessageCache::AddInboxRow(ReaderInbox& inbox,
                               std::vector<std::pair<int64_t, int64_t>>::iterator at,
                               int64_t msg_id, int64_t author) {
  inbox.rows.insert(at, {msg_id, author});
  if (static_cast<int64_t>(inbox.rows.size()) > kInboxKept) {
    inbox.rows.pop_back();
    inbox.complete = false;
  }
}

}  // namespace weibo
