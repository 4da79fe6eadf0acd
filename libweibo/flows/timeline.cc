// timeline: a user's home timeline, or with posts=true the user's own posts (SPEC §4.7-8).
//
// A home timeline is, by definition, the reader's own messages plus the originals and
// reposts of everyone the reader follows, newest first, minus deleted messages. The feed
// mode only changes where the ids come from:
//   push    the reader's inbox (msg_index), one index range on the reader's shard, and
//           below the inbox's floor (where the cap trimmed it) a merge as in pull;
//   pull    a k-way merge of the reader's own messages and each followee's posts, each
//           from its author's time-partitioned outbox (tables/author_feed.h) — or, on a
//           shard where the reader follows many of the authors, from one scan of that
//           shard's outboxes newest first that keeps the followees' rows (below);
//   hybrid  the inbox plus a merge over the followees that are pulled: celebrities, and
//           every author whose active list does not hold the reader (tables/active_fan.h).
// Every source is read with the same cursor window (since_id < id < max_id, both
// exclusive), merged by id (ids sort by time; a k-way merge of the sources' heads),
// de-duplicated and resolved; rows whose message is gone are skipped and the window moves
// on, so a page is always full when there is enough to fill it, and max_id = the last id
// shown gives the next page with no duplicates and no gaps, whatever is posted meanwhile.
// --page P (0-based) skips P pages of count items. Below the archive's boundary (seed 000's
// archive, flows/archive.h) a page is pulled from the author outboxes in the shards and in
// their archives (ArchiveSources).
//
// Partitions: when any source is an author outbox, the merge runs window by window. A
// window is one partition (a week of ids): the one holding the newest id any source may
// still hold below the cursor (author_part says which weeks an author has, the inbox its
// newest row); every source is read only inside the window, and the merge moves to an older
// window only when the page is not full yet. So a read starts in the newest partition and
// touches an older one only when the page reaches back that far, and an author's older
// weeks are never read for a page they cannot reach.
//
// Followees' outboxes, shard by shard: a source per author costs two index seeks a window
// (its partition list, its rows), however few of its rows make the page. Where the reader
// follows many of a shard's authors, one ScanSource reads that shard's rows of every author
// newest first (index author_feed_by_id) and keeps the followees' originals and reposts; it
// stops at the window's bottom or when it has enough. ScanPays picks, per shard and
// request, by a cost estimate in index rows (the scan steps over about want * users /
// followees rows; the per-author sources cost followees * 2 seeks), so a reader following
// 50 of 100 000 users never scans a partition. The windows stay those of the per-author
// sources: the scan's newest() is the first followee row below the cursor, or, when its
// bounded probe sees only other authors' rows, the followees' newest week from author_part.
// The reader's own outbox (every type) is always a source of its own. In hybrid the
// followees whose active list holds the reader (active_on, on the reader's shard) are read
// from the inbox and every other followee is pulled; no followee's row is read (an author
// who becomes a celebrity leaves its readers' active_on: flows/active.cc).
//
// The page is built inside one read transaction per shard it reads (PageTxns), so SQLite
// takes its WAL locks once per shard rather than once per statement, and only on the
// shards the page reads. The messages of a merged batch are resolved by one statement per
// shard (MessageView::Prefetch, tables/msg_page.h): row, counters and author name together.
// A server's message cache (tables/message_cache.h) keeps the rows of messages shown
// recently, and each pulled followee's newest posts (CachedPosts): a window those cover is
// merged from memory, with no statement on the author's shard. It also keeps each reader's
// followees and active_on (HomeSources), so a read whose lists have not changed reads
// neither, and each reader's newest inbox rows (InboxSource), to which the deliveries the
// server held are added once it has applied them: most first pages read no inbox row. And
// it keeps what the read judges its debts by (the reader's row's activity and the mark:
// DeferredHome), so a read that finds all of these opens nothing on the reader's shard.
//
// What a home read owes is read inside the reader's shard's read transaction (Owed): the
// red dot's mark when the first page shows something newer than it, and activity at most
// once per kActivityGrainMs per user (flows/active.cc: user_info.last_active for the push
// tiers, and in hybrid, at a reader's first read and then once per kActiveWindowMs, the
// rejoin of the followees' active lists, after the page was built — by pull where needed).
// The mark is owed often: on the retwis trace two reads in three show something newer
// than the last one. A command writes what it owes in one write transaction without an
// fsync after the read transactions are closed (Pay). A server (weibod, the bench: a group
// commit with defer_merged) writes nothing on a read: it holds what each read owes in
// memory (GroupCommit::held_reads), merged by reader, and its reads see the held marks;
// once kHeldReadsPerShard readers of a shard are held, or a read rejoins, the read that
// made it so writes them all in one transaction (PayHeldReads), as do an op that does not
// keep deliveries held (before it runs) and Idle(). On the retwis trace (10 000 users,
// hybrid), 66 079 of 99 681 reads wrote with Pay; held, one write transaction carries 32
// readers' marks. With a background applier (jobs.h) the read hands every shard's held
// reads to it instead, and writes nothing (Hold): the reads that paid were a sixth of the
// reads and two fifths of their time on that trace (a rejoin enqueues a join per followee
// shard), some waiting for the applier's own transaction on their shard.
#include <algorithm>
#include <atomic>
#include <functional>
#include <limits>
#include <memory>
#include <optional>
#include <type_traits>

#include "flows/feed_policy.h"
#include "flows/flows.h"
#include "flows/message.h"
#include "jobs/jobs.h"
#include "storage/failure.h"
#include "storage/json_text.h"
#include "tables/active_fan.h"
#include "tables/author_feed.h"
#include "tables/message_cache.h"
#include "tables/msg_index.h"
#include "tables/notification.h"
#include "tables/user_relation.h"

namespace weibo {
namespace {

constexpr int64_t kNoUpper = std::numeric_limits<int64_t>::max();

// One source of a home timeline. Bounds are exclusive; upper 0 is unbounded.
struct Source {
  // Appends to *out (empty: the merge reuses its lists, Page::Merge) the ids with
  // lower < id < upper, newest first, at most n.
  std::function<void(int64_t upper, int64_t lower, int64_t n, std::vector<int64_t>* out)> read;
  // An upper bound of the newest id the source holds below upper; 0 when it holds none.
  std::function<int64_t(int64_t upper)> newest;
  bool partitioned = false;
  // What read and newest work on, when they share it: they hold its address only, so
  // each is a pointer that std::function keeps in place. A closure that held a
  // shared_ptr was allocated, and an author's source was five allocations.
  std::shared_ptr<void> state;
};

int64_t Clamp(int64_t upper, int64_t ceiling) {
  if (ceiling > 0) upper = upper > 0 ? std::min(upper, ceiling) : ceiling;
  return upper;
}

// The file of an author's outbox rows: the shard, or its archive (nullptr: none yet).
Shard* AuthorShard(ShardSet& shards, int64_t author, bool archive) {
  const int index = static_cast<int>(author % shards.count());
  return archive ? shards.ArchiveAt(index) : &shards.At(index);
}

// Read transactions held while one page is built: one BEGIN per shard the page reads, so
// SQLite takes its WAL read lock once per shard instead of once per statement. Released
// (a read-only COMMIT) before anything writes: NoteActivity's BEGIN IMMEDIATE and the jobs
// it drains never run inside one.
// A server's message cache validates each shard right before its transaction opens, and
// may then keep the rows read inside it (tables/message_cache.h, Hold). A pulled author's
// shard is held only when a statement is about to read it (PartList::File): on the retwis
// trace most pulled authors' posts are in a server's cache, and a BEGIN, its WAL read lock
// and the COMMIT cost more than reading them there.
class PageTxns {
 public:
  explicit PageTxns(Context& ctx) : cache_(ctx.message_cache()), held_(ctx.shards().count()) {}
  ~PageTxns() { Release(); }
  PageTxns(const PageTxns&) = delete;
  PageTxns& operator=(const PageTxns&) = delete;
  Shard& Hold(Shard& shard) {
    const auto index = static_cast<size_t>(shard.index());
    if (index >= held_.size()) held_.resize(index + 1);
    auto& txn = held_[index];
    if (!txn) {
      if (cache_ != nullptr) {
        if (shard.index() == deferred_)
          cache_->HoldValidated(shard);
        else
          cache_->Hold(shard);
      }
      txn = std::make_unique<ReadTxn>(shard);
    }
    return shard;
  }
  // A server's read that found the reader's state kept (TimelineOf): the reader's shard
  // `own`, validated by the caller right after it read the shard's WAL-index header, is
  // held only once a statement reads it, and then without validating it again. The page
  // is the state validated only if no commit reached the shard meanwhile: Unmoved says.
  void Defer(Shard& own, const WalHeader& header) {
    deferred_ = own.index();
    header_ = header;
  }
  bool deferred(const Shard& shard) const { return shard.index() == deferred_; }
  // Whether the deferred shard's header is the one given to Defer: no commit since.
  bool Unmoved(Shard& own) const {
    WalHeader now;
    return own.WalIndexHeader(&now) && now == header_;
  }
  void Release() {
    for (size_t i = 0; i < held_.size(); ++i)
      if (held_[i] && cache_ != nullptr) cache_->Release(static_cast<int>(i));
    held_.clear();
  }

 private:
  MessageCache* cache_;
  std::vector<std::unique_ptr<ReadTxn>> held_;
  int deferred_ = -1;  // the shard Defer named; -1: none
  WalHeader header_;
};

// An author's partitions (author_part), newest first, fetched a few at a time and kept for
// the whole request: the merge asks for them once per window and source.
// txns: the page's read transactions, when the author's shard is held only once a
// statement reads it (AddAuthors: a followee whose posts a server has cached is merged
// from memory, and its shard is then never opened); nullptr when the caller holds it.
class PartList {
 public:
  PartList(ShardSet& shards, int64_t author, bool archive = false, PageTxns* txns = nullptr)
      : shards_(shards), author_(author), archive_(archive), txns_(archive ? nullptr : txns) {}
  // The file of the author's rows (AuthorShard), held first when the list was given txns.
  Shard* File() {
    Shard* shard = AuthorShard(shards_, author_, archive_);
    if (txns_ != nullptr && shard != nullptr) txns_->Hold(*shard);
    return shard;
  }
  // The i-th partition at or below the first top asked for; -1 when there is none.
  int64_t At(size_t i, int64_t top) {
    if (parts_.empty() && !complete_) top_ = top;
    if (i < parts_.size() || complete_) return i < parts_.size() ? parts_[i] : -1;
    Shard* shard = File();
    while (i >= parts_.size() && !complete_ && shard != nullptr) {
      int64_t below = parts_.empty() ? top_ : parts_.back() - 1;
      auto more = AuthorParts(*shard, author_, below, kFetch);
      complete_ = static_cast<int64_t>(more.size()) < kFetch;
      parts_.insert(parts_.end(), more.begin(), more.end());
    }
    return i < parts_.size() ? parts_[i] : -1;
  }

 private:
  static constexpr int64_t kFetch = 8;
  ShardSet& shards_;
  int64_t author_;
  bool archive_;
  PageTxns* txns_;
  int64_t top_ = 0;
  std::vector<int64_t> parts_;
  bool complete_ = false;
};

// Ids of an author's outbox (all types when own, else originals and reposts; the
// archive's rows when parts is the archive's) within lower < id < upper (upper 0:
// unbounded), newest first, at most n (appended to ids, empty): partition by partition,
// from the author's list.
void ReadOutbox(ShardSet& shards, int64_t author, bool own, PartList& parts, int64_t upper,
                int64_t lower, int64_t n, std::vector<int64_t>& ids) {
  Shard* file = parts.File();
  if (file == nullptr) return;
  Shard& shard = *file;
  int64_t top = PartOf((upper > 0 ? upper : kNoUpper) - 1);
  for (size_t i = 0;; ++i) {
    int64_t part = parts.At(i, top);
    if (part < 0) break;
    if (part > top) continue;           // above the cursor
    if (PartEnd(part) <= lower) break;  // the whole week is below the window
    for (int64_t id : ReadAuthorPart(shard, author, part, !own, upper, lower,
                                     n - static_cast<int64_t>(ids.size()))) {
      shards.KnowAuthor(id, author);  // uid-mapping: found by its author, no lookup
      ids.push_back(id);
    }
    if (static_cast<int64_t>(ids.size()) >= n) break;
  }
}

// A followee's newest posts from a server's cache (tables/message_cache.h), read (through
// the author's partition list, which the request keeps) and kept there on a miss: the
// newest kPostsKept originals and reposts. nullopt without a cache, or when the author's
// shard may not use it now. A miss holds the shard before it reads (PartList::File), so
// what is read and kept is the page's snapshot; a hit opens nothing.
MessageCache::Posts CachedPosts(ShardSet& shards, MessageCache* cache, int64_t author,
                                PartList& parts) {
  if (cache == nullptr) return nullptr;
  Shard& shard = *AuthorShard(shards, author, false);
  if (!cache->Usable(shard)) return nullptr;
  if (MessageCache::Posts hit = cache->FindPosts(shard.index(), author)) return hit;
  MessageCache::AuthorPosts posts;
  ReadOutbox(shards, author, false, parts, 0, 0, MessageCache::kPostsKept, posts.ids);
  posts.complete = static_cast<int64_t>(posts.ids.size()) < MessageCache::kPostsKept;
  auto shared = std::make_shared<const MessageCache::AuthorPosts>(std::move(posts));
  cache->PutPosts(shard, author, shared);
  return shared;
}

// A window of rows a server keeps newest first (an author's posts, a reader's inbox): all
// there are when complete, else every one at or above the last. Appends to ids (empty) the
// ids within lower < id < upper (upper 0: unbounded), newest first, at most n, calling
// took(row) for each; false, and ids left empty, when the rows may not hold them all (the
// window reaches below what they cover). id_of: a row's id.
template <class Rows, class IdOf, class Took>
bool KeptWindow(const Rows& rows, bool complete, IdOf id_of, int64_t upper, int64_t lower,
                int64_t n, std::vector<int64_t>& ids, Took took) {
  for (const auto& row : rows) {
    const int64_t id = id_of(row);
    if (upper > 0 && id >= upper) continue;
    if (id <= lower || static_cast<int64_t>(ids.size()) >= n) break;
    took(row);
    ids.push_back(id);
  }
  if (static_cast<int64_t>(ids.size()) >= n || complete ||
      (!rows.empty() && lower >= id_of(rows.back()) - 1))
    return true;
  ids.clear();
  return false;
}

// An author's outbox (all types for the reader's own, originals and reposts for a
// followee), only below ceiling when ceiling is not 0; read partition by partition.
// archive: the author's archived rows (flows/archive.h) instead of the shard's.
// cache: a server's (a followee's live outbox only): its newest posts are then read from
// memory wherever they cover the window (CachedPosts, looked up once a request).
Source AuthorSource(ShardSet& shards, int64_t author, bool own, int64_t ceiling,
                    bool archive = false, MessageCache* cache = nullptr, PageTxns* txns = nullptr) {
  struct State {
    ShardSet& shards;
    int64_t author;
    bool own;
    int64_t ceiling;
    MessageCache* cache;
    PartList parts;
    bool looked = false;  // posts: looked up in the cache once a request
    MessageCache::Posts posts;
    const MessageCache::AuthorPosts* Cached() {
      if (!looked) {
        looked = true;
        posts = CachedPosts(shards, cache, author, parts);
      }
      return posts.get();
    }
  };
  auto state =
      std::make_shared<State>(State{shards, author, own, ceiling, own || archive ? nullptr : cache,
                                    PartList(shards, author, archive, txns), false, nullptr});
  State* st = state.get();
  Source s;
  s.partitioned = true;
  s.state = std::move(state);
  s.read = [st](int64_t upper, int64_t lower, int64_t n, std::vector<int64_t>* out) {
    upper = Clamp(upper, st->ceiling);
    if (const MessageCache::AuthorPosts* posts = st->Cached()) {
      auto id = [](int64_t post) { return post; };
      auto know = [st](int64_t post) { st->shards.KnowAuthor(post, st->author); };
      if (KeptWindow(posts->ids, posts->complete, id, upper, lower, n, *out, know)) return;
    }
    ReadOutbox(st->shards, st->author, st->own, st->parts, upper, lower, n, *out);
  };
  s.newest = [st](int64_t upper) -> int64_t {
    upper = Clamp(upper, st->ceiling);
    if (const MessageCache::AuthorPosts* posts = st->Cached()) {
      // The newest post below upper itself: an upper bound as good as its partition's end.
      for (int64_t id : posts->ids)
        if (upper == 0 || id < upper) return id;
      if (posts->complete) return 0;
    }
    int64_t below = (upper > 0 ? upper : kNoUpper) - 1;
    for (size_t i = 0;; ++i) {
      int64_t part = st->parts.At(i, PartOf(below));
      if (part < 0) return 0;
      if (part <= PartOf(below)) return std::min(below, PartEnd(part));
    }
  };
  return s;
}

// Originals and reposts of the given authors of one shard, by one scan of the shard's
// outboxes newest first (index author_feed_by_id) that keeps those authors' rows; only
// below ceiling when ceiling is not 0. Cheaper than a source per author when the authors
// are many of the shard's (ScanPays). A read scans only inside its window. newest() looks
// at the next kProbeRows rows below upper; when none of them is by one of the authors
// (they post less than the others), it asks the authors' partition lists (author_part, as
// an AuthorSource does) for the newest week any of them has below the rows it saw. So the
// merge's windows are the same as with a source per author: no week in which none of
// these authors posted is ever scanned, and no read runs through a whole history.
Source ScanSource(ShardSet& shards, Shard& shard, std::vector<int64_t> authors, int64_t ceiling) {
  constexpr int64_t kProbeRows = 64;
  struct State {
    std::vector<int64_t> authors;  // sorted
    std::vector<Source> each;      // an AuthorSource per author, made when a probe fails
    bool Keeps(int64_t author) const {
      return std::binary_search(authors.begin(), authors.end(), author);
    }
  };
  std::sort(authors.begin(), authors.end());
  auto state = std::make_shared<State>();
  state->authors = std::move(authors);
  Source s;
  s.partitioned = true;
  s.read = [&shards, &shard, state, ceiling](int64_t upper, int64_t lower, int64_t n,
                                             std::vector<int64_t>* ids) {
    if (n <= 0) return;
    ScanAuthorPosts(shard, Clamp(upper, ceiling), lower, [&](int64_t id, int64_t author) {
      if (!state->Keeps(author)) return true;
      shards.KnowAuthor(id, author);
      ids->push_back(id);
      return static_cast<int64_t>(ids->size()) < n;
    });
  };
  s.newest = [&shards, &shard, state, ceiling](int64_t upper) -> int64_t {
    int64_t found = 0, last = 0, seen = 0;
    ScanAuthorPosts(shard, Clamp(upper, ceiling), 0, [&](int64_t id, int64_t author) {
      last = id;
      if (state->Keeps(author)) found = id;
      return found == 0 && ++seen < kProbeRows;
    });
    if (found != 0) return found;
    if (seen < kProbeRows) return 0;  // the shard has nothing more below upper
    // Every row from last up is someone else's: the authors' newest week below last.
    if (state->each.empty())
      for (int64_t author : state->authors)
        state->each.push_back(AuthorSource(shards, author, false, ceiling));
    int64_t top = 0;
    for (auto& each : state->each) top = std::max(top, each.newest(last));
    return top;
  };
  return s;
}

// Whether one scan of a shard's outboxes (ScanSource) costs less than a source per author
// for `followees` authors out of at most `users` on that shard, for a page of `want` ids.
// Counted in index rows stepped, a seek costing about kSeekRows: a source per author costs
// two seeks a window (its partition list, its rows), followees * 2 * kSeekRows in all; the
// scan costs two seeks (newest, read) plus the rows it steps over before it has `want` of
// its authors' rows: want * users / followees when the shard's users post alike.
// kSeekRows = 8 puts the break-even where it was measured (weibo-bench replay, 2001 users on
// 16 shards, 20 000 posts, one reader, p50 of a page of 20): following 200 (12 a shard),
// 1.0 ms both ways; following 400, 0.9 ms by scan and 2.9 ms by author. So a reader who
// follows 50 of 100 000 users never scans a partition (3 a shard of 6 250), one who follows
// 2000 of 100 000 does (125 a shard: 1000 rows against 2000).
bool ScanPays(int64_t followees, int64_t users, int64_t want) {
  constexpr int64_t kSeekRows = 8;
  users = std::max(users, followees);
  return want * users / followees + 2 * kSeekRows < followees * 2 * kSeekRows;
}

// The reader's inbox from its floor up. newest() reads the `want` newest rows below upper
// at once and keeps them, and a read() from the same upper takes them from there when they
// cover its window: a window costs one inbox statement, not one for newest() and another
// for read().
// cache: a server's, usable on the reader's shard (tables/message_cache.h, "Readers'
// inboxes"): the reader's newest rows are then read from memory wherever they cover the
// window, looked up once a request (and copied: the cache may change while the page is
// built). On a miss, a first page (no cursor) reads them, kInboxKept rows, and keeps them.
Source InboxSource(ShardSet& shards, PageTxns& txns, int64_t reader, int64_t floor, int64_t want,
                   MessageCache* cache) {
  struct State {
    State(ShardSet& s, PageTxns& t, int64_t r, int64_t f, MessageCache* c)
        : shards(s), txns(t), reader(r), floor(f), cache(c) {}
    ShardSet& shards;
    PageTxns& txns;  // the reader's shard is held before a statement reads it
    int64_t reader, floor;
    MessageCache* cache;
    bool looked = false;  // in the cache; kept: found or read there
    bool kept = false;
    MessageCache::ReaderInbox inbox;
    // newest()'s memo
    int64_t upper = -1;        // the newest() call it is from; -1: none yet
    std::vector<int64_t> ids;  // the newest `want` ids below upper
    bool complete = false;     // every id below upper, down to the floor

    // The kept rows, when the cache has them or this first page reads them.
    const MessageCache::ReaderInbox* Kept(int64_t first_upper) {
      if (!looked) {
        looked = true;
        Shard& own = shards.ForUser(reader);
        if (cache == nullptr) {
        } else if (const MessageCache::ReaderInbox* hit = cache->FindInbox(own, reader)) {
          inbox = *hit;
          kept = true;
        } else if (first_upper == 0) {
          inbox.rows.reserve(MessageCache::kInboxKept);
          ReadInbox(txns.Hold(own), reader, 0, 0, MessageCache::kInboxKept,
                    [this](int64_t msg_id, int64_t author_id) {
                      inbox.rows.emplace_back(msg_id, author_id);
                    });
          inbox.complete = static_cast<int64_t>(inbox.rows.size()) < MessageCache::kInboxKept;
          cache->PutInbox(own, reader, inbox);
          kept = true;
        }
      }
      return kept ? &inbox : nullptr;
    }
    // Appends to ids (empty) the rows with lower < id < upper, newest first, at most n.
    void Fetch(int64_t upper, int64_t lower, int64_t n, std::vector<int64_t>& out) {
      lower = std::max(lower, floor - 1);
      if (const MessageCache::ReaderInbox* kept = Kept(upper)) {
        auto id = [](const std::pair<int64_t, int64_t>& row) { return row.first; };
        auto know = [this](const std::pair<int64_t, int64_t>& row) {
          shards.KnowAuthor(row.first, row.second);  // the inbox row names the author
        };
        if (KeptWindow(kept->rows, kept->complete, id, upper, lower, n, out, know)) return;
      }
      ReadInbox(txns.Hold(shards.ForUser(reader)), reader, upper, lower, n,
                [this, &out](int64_t msg_id, int64_t author_id) {
                  shards.KnowAuthor(msg_id, author_id);  // the inbox row names the author
                  out.push_back(msg_id);
                });
    }
  };
  auto state = std::make_shared<State>(shards, txns, reader, floor, cache);
  State* st = state.get();
  Source s;
  s.state = std::move(state);
  s.read = [st](int64_t upper, int64_t lower, int64_t n, std::vector<int64_t>* ids) {
    if (st->upper == upper) {
      for (int64_t id : st->ids) {
        if (id <= lower || static_cast<int64_t>(ids->size()) >= n) break;
        ids->push_back(id);
      }
      if (static_cast<int64_t>(ids->size()) >= n || st->complete ||
          (!st->ids.empty() && st->ids.back() <= lower))
        return;
      ids->clear();
    }
    st->Fetch(upper, lower, n, *ids);
  };
  s.newest = [st, want = std::max<int64_t>(want, 1)](int64_t upper) -> int64_t {
    if (st->upper != upper) {
      st->ids.clear();
      st->Fetch(upper, 0, want, st->ids);
      st->complete = static_cast<int64_t>(st->ids.size()) < want;
      st->upper = upper;
    }
    return st->ids.empty() ? 0 : st->ids[0];
  };
  return s;
}

// Ids in memory, newest first: the deliveries a server holds for the reader (HeldInboxIds).
Source ListSource(std::vector<int64_t> ids) {
  auto list = std::make_shared<const std::vector<int64_t>>(std::move(ids));
  auto below = [list](int64_t upper) {  // the first id below upper (0: unbounded)
    return upper == 0 ? list->begin()
                      : std::upper_bound(list->begin(), list->end(), upper,
                                         [](int64_t u, int64_t id) { return id < u; });
  };
  Source s;
  s.read = [list, below](int64_t upper, int64_t lower, int64_t n, std::vector<int64_t>* out) {
    for (auto it = below(upper); it != list->end() && *it > lower && n > 0; ++it, --n)
      out->push_back(*it);
  };
  s.newest = [list, below](int64_t upper) -> int64_t {
    auto it = below(upper);
    return it == list->end() ? 0 : *it;
  };
  return s;
}

// The outboxes of authors (originals and reposts), only below ceiling when it is not 0:
// per shard, one ScanSource when ScanPays, else an AuthorSource per author.
void AddAuthors(Context& ctx, PageTxns& txns, std::vector<Source>& sources,
                const std::vector<int64_t>& authors, int64_t ceiling, int64_t want) {
  ShardSet& shards = ctx.shards();
  std::vector<std::vector<int64_t>> by_shard(shards.count());
  for (int64_t author : authors) by_shard[author % shards.count()].push_back(author);
  for (int i = 0; i < shards.count(); ++i) {
    auto& group = by_shard[i];
    if (group.empty()) continue;
    auto followees = static_cast<int64_t>(group.size());
    // The users bound only matters when even a shard of only followees would be scanned,
    // and its statement only when the group's own ids (the shard holds those users) do
    // not already make the bound too high: ScanPays only falls as users grow.
    const int64_t known = *std::max_element(group.begin(), group.end()) / shards.count() + 1;
    if (ScanPays(followees, followees, want) && ScanPays(followees, known, want) &&
        ScanPays(followees, UsersBound(txns.Hold(shards.At(i)), shards.count()), want)) {
      sources.push_back(ScanSource(shards, shards.At(i), std::move(group), ceiling));
      continue;
    }
    // Held only once a statement reads it (PartList): not at all when every author's
    // posts are in a server's cache and cover the page.
    for (int64_t author : group)
      sources.push_back(
          AuthorSource(shards, author, false, ceiling, false, ctx.message_cache(), &txns));
  }
}

// A home timeline's sources, in two groups. `above` are complete over the whole id range
// they cover: the inbox (from its floor up) and the authors the reader pulls (all of them
// in pull; celebrities and authors whose active list lacks the reader in hybrid). `below`
// are needed only under the inbox's floor, where the cap trimmed it: the reader's own and
// every pushed followee's outbox, read below the floor. Only a page that reaches below
// the floor needs them, so in push they are not even listed (want_below false) until then:
// a capped reader following thousands pays for them only on deep pages. want: the ids the
// page needs (skip + count), for ScanPays.
struct Home {
  std::vector<Source> above, below;
  int64_t floor = 0;
  int64_t pulled = 0;  // followees merged from their own posts above the floor
};

// HomeReadTally (flows.h): relaxed counters, as a daemon reads on one thread and the
// bench only reads them between its own ops.
std::atomic<int64_t> home_reads{0}, pulled_authors{0};

Home HomeSources(Context& ctx, PageTxns& txns, int64_t reader, bool want_below, int64_t want) {
  ShardSet& shards = ctx.shards();
  // Held from here, unless the read deferred it (PageTxns::Defer): then only before a
  // statement reads it.
  Shard& own = shards.ForUser(reader);
  const bool deferred = txns.deferred(own);
  if (!deferred) txns.Hold(own);
  FeedPolicy feed(ctx);
  Home home;
  // A server keeps the reader's followees, active_on and inbox floor
  // (tables/message_cache.h): read here only on a miss, and kept then. A deferred shard
  // was validated by the read: it is not validated again.
  MessageCache* cache = ctx.message_cache();
  const bool cacheable = cache != nullptr && (deferred || cache->Usable(own));
  const MessageCache::Lists kept = cacheable ? cache->FindLists(own, reader) : nullptr;
  MessageCache::ReaderLists fresh;  // read on a miss
  if (kept == nullptr) txns.Hold(own);
  // The inbox is complete from its floor up (tables/msg_index.h); below it, pull.
  if (feed.HasInbox()) home.floor = kept ? kept->floor : (fresh.floor = InboxFloor(own, reader));
  want_below = want_below && home.floor > 0;
  // Followees matter only below the floor in push.
  const bool need_followees = !feed.FolloweesOnlyBelowFloor() || want_below;
  const bool cached = need_followees && cacheable;
  if (kept == nullptr && need_followees) fresh.followees = Related(own, reader, kFollowing);
  const std::vector<int64_t>& followees = kept ? kept->followees : fresh.followees;  // ascending
  if (feed.HasInbox()) {
    home.above.push_back(
        InboxSource(shards, txns, reader, home.floor, want, cacheable ? cache : nullptr));
    // What the inbox will hold once the deliveries this server holds back are applied
    // (jobs/context.h, GroupCommit::held_deliveries): read from memory, so that a read
    // through the server that took a post sees it without applying anything.
    if (!need_followees) txns.Hold(own);  // the follows are looked up there
    std::vector<int64_t> held =
        HeldInboxIds(ctx, own, reader, need_followees ? &followees : nullptr);
    if (!held.empty()) home.above.push_back(ListSource(std::move(held)));
  }
  bool pull_all = feed.PullsEveryFollowee();
  if (pull_all || want_below) txns.Hold(own);  // the reader's own outbox is read there
  if (pull_all)
    home.above.push_back(AuthorSource(shards, reader, true, 0));
  else if (want_below)
    home.below.push_back(AuthorSource(shards, reader, true, home.floor));
  if (!need_followees) return home;
  std::vector<int64_t> pulled, pushed;
  if (feed.UsesActiveLists()) {
    // Only the authors whose active list holds the reader push to the reader; every other
    // followee is pulled. active_on never names a pulled author (an author is taken off its
    // readers' active_on when it reaches the celebrity threshold: flows/active.cc,
    // BecomePulled), so no author's row is read here. Both lists ascend: one merge.
    if (kept == nullptr) fresh.active = ActiveAuthors(own, reader);
    const std::vector<int64_t>& active = kept ? kept->active : fresh.active;
    auto listed = active.begin();
    for (int64_t author : followees) {
      while (listed != active.end() && *listed < author) ++listed;
      (listed != active.end() && *listed == author ? pushed : pulled).push_back(author);
    }
  } else {
    (pull_all ? pulled : pushed) = followees;
  }
  if (cached && kept == nullptr) cache->PutLists(own, reader, std::move(fresh));
  home.pulled = static_cast<int64_t>(pulled.size());
  if (cache != nullptr && pulled.size() > 1) cache->PrefetchPosts(pulled);  // merged next
  home.above.reserve(home.above.size() + pulled.size());  // a source each, at most
  AddAuthors(ctx, txns, home.above, pulled, 0, want);
  if (want_below) AddAuthors(ctx, txns, home.below, pushed, home.floor, want);
  return home;
}

// The newest `want` distinct ids of lists that are each newest first: a k-way merge over
// the lists' heads.
// The buffers of a merge, kept by the thread from read to read: a page's source lists and
// its merged batch were a dozen small allocations a read, 2.3% of a home read's time
// (perf, r10k trace, session 48). A buffer grown past kKeptIds (a deep --page) is given
// back after the page.
struct MergeBuffers {
  static constexpr size_t kKeptIds = 4096;
  using Head = std::pair<int64_t, size_t>;  // id, list; the position is kept in pos
  std::vector<std::vector<int64_t>> lists;
  std::vector<size_t> pos;
  std::vector<Head> heads;
  std::vector<int64_t> batch;
  void Trim() {
    auto trim = [](auto& v) {
      if (v.capacity() > kKeptIds) std::decay_t<decltype(v)>().swap(v);
    };
    for (auto& list : lists) trim(list);
    trim(batch);
  }
};

// The newest `want` distinct ids of the first n lists, each newest first (a k-way merge
// over the lists' heads), into b.batch.
void MergeNewest(MergeBuffers& b, size_t n, int64_t want) {
  const auto& lists = b.lists;
  b.pos.assign(n, 0);
  b.heads.clear();
  b.batch.clear();
  for (size_t i = 0; i < n; ++i)
    if (!lists[i].empty()) b.heads.emplace_back(lists[i][0], i);
  std::make_heap(b.heads.begin(), b.heads.end());
  while (!b.heads.empty() && static_cast<int64_t>(b.batch.size()) < want) {
    std::pop_heap(b.heads.begin(), b.heads.end());
    auto [id, i] = b.heads.back();
    b.heads.pop_back();
    if (b.batch.empty() || b.batch.back() != id) b.batch.push_back(id);
    if (++b.pos[i] < lists[i].size()) {
      b.heads.emplace_back(lists[i][b.pos[i]], i);
      std::push_heap(b.heads.begin(), b.heads.end());
    }
  }
}

// A page being filled: the messages taken so far, the ids still to skip (earlier pages),
// and the cursor — reads start below it (0: at the newest). The messages are built as a
// Json array (TakeJson), or with text written as JSON text (TakeText): the same bytes as
// the array's dump, without the objects (a page is what a server's read replies with).
class Page {
 public:
  Page(Context& ctx, int64_t count, int64_t skip, int64_t cursor, bool text)
      : view_(ctx), count_(count), skip_(skip), cursor_(cursor), text_(text) {
    if (text_) {
      text_out_.reserve(static_cast<size_t>(std::min<int64_t>(count, 200)) * 512);  // no regrowth
      text_out_ = "[";
    }
  }

  bool full() const { return size() >= count_; }
  int64_t count() const { return count_; }
  int64_t skip() const { return skip_; }
  // The page's messages so far, newest first.
  const std::vector<int64_t>& ids() const { return ids_; }
  // The followees a home page merged from their own posts (HomeSources' pulled).
  int64_t pulled() const { return pulled_; }
  void set_pulled(int64_t pulled) { pulled_ = pulled; }
  // Moves the cursor down to ceiling, unless it is already below it.
  void LowerCursorTo(int64_t ceiling) {
    if (cursor_ == 0 || cursor_ > ceiling) cursor_ = ceiling;
  }
  // Merges sources over the ids between the cursor and bottom (exclusive) into the page,
  // until it is full or every source is exhausted down to bottom.
  void Merge(std::vector<Source>& sources, int64_t bottom);
  Json TakeJson() { return std::move(json_out_); }
  std::string TakeText() {
    text_out_.push_back(']');
    return std::move(text_out_);
  }

 private:
  int64_t size() const { return static_cast<int64_t>(ids_.size()); }
  // The lower end (exclusive) of the next read when some source is time-partitioned: the
  // newest partition any source still holds, so a read stays within one window; nullopt
  // when every source is exhausted down to bottom.
  std::optional<int64_t> WindowBottom(std::vector<Source>& sources, int64_t bottom) const;
  // Renders a merged batch into the page: deleted messages (their inbox rows are being
  // purged) and the ids still to skip are passed over.
  void Add(const std::vector<int64_t>& batch);

  MessageView view_;
  int64_t count_, skip_, cursor_;
  bool text_;
  std::vector<int64_t> ids_;
  int64_t pulled_ = 0;
  Json json_out_ = Json::array();
  std::string text_out_;
};

std::optional<int64_t> Page::WindowBottom(std::vector<Source>& sources, int64_t bottom) const {
  int64_t top = 0;
  for (auto& source : sources) top = std::max(top, source.newest(cursor_));
  if (top <= bottom) return std::nullopt;
  return std::max(bottom, PartStart(PartOf(top)) - 1);
}

void Page::Add(const std::vector<int64_t>& batch) {
  view_.Prefetch(batch);  // one statement per shard for the batch's rows, counters, authors
  for (int64_t id : batch) {
    const size_t start = text_out_.size();
    Json m;
    if (text_) {
      if (!ids_.empty()) text_out_.push_back(',');
      if (!view_.RenderText(id, &text_out_)) {
        text_out_.resize(start);
        continue;
      }
    } else {
      m = view_.Render(id);
      if (m.is_null()) continue;
    }
    if (skip_ > 0) {
      --skip_;
      text_out_.resize(start);
      continue;
    }
    ids_.push_back(id);
    if (!text_) json_out_.push_back(std::move(m));
    if (full()) break;
  }
}

void Page::Merge(std::vector<Source>& sources, int64_t bottom) {
  bool windowed = false;
  for (const auto& s : sources) windowed = windowed || s.partitioned;
  // Merge is never entered again before it returns (a source reads its shard, never a page).
  thread_local MergeBuffers buffers;
  struct TrimAfter {
    MergeBuffers& b;
    ~TrimAfter() { b.Trim(); }
  } trim_after{buffers};
  if (buffers.lists.size() < sources.size()) buffers.lists.resize(sources.size());
  const std::vector<int64_t>& batch = buffers.batch;
  while (!full()) {
    int64_t want = skip_ + count_ - size();
    int64_t lower = bottom;
    if (windowed) {
      std::optional<int64_t> window = WindowBottom(sources, bottom);
      if (!window) break;  // every source is exhausted
      lower = *window;
    }
    for (size_t i = 0; i < sources.size(); ++i) {
      buffers.lists[i].clear();
      sources[i].read(cursor_, lower, want, &buffers.lists[i]);
    }
    MergeNewest(buffers, sources.size(), want);
    Add(batch);
    if (static_cast<int64_t>(batch.size()) < want) {
      if (lower <= bottom) break;  // every source is exhausted
      cursor_ = lower + 1;         // the window is exhausted: the next one is older
      continue;
    }
    cursor_ = batch.back();
  }
}

// Below the archive's boundary (ShardSet::ArchivedBelow, flows/archive.h) a message may be
// live or archived, as far as an archive run has got, and the readers' inbox rows there
// are archived: a page that reaches below it is built by pull, whatever the feed mode, from
// what a timeline is by definition — the author outboxes of the reader (all types at home,
// else originals and reposts) and of every followee (home only), each in its shard and in
// its archive. The shard's sources come first in the list, so each window reads a shard
// before its archive: a message moved in between is found in one or both, and the merge
// keeps one. ceiling: the boundary (the sources hold nothing at or above it).
std::vector<Source> ArchiveSources(Context& ctx, PageTxns& txns, int64_t reader, bool home,
                                   int64_t ceiling, int64_t want) {
  ShardSet& shards = ctx.shards();
  std::vector<Source> sources;
  Shard& own = txns.Hold(shards.ForUser(reader));
  std::vector<int64_t> followees;
  if (home) followees = Related(own, reader, kFollowing);
  sources.push_back(AuthorSource(shards, reader, home, ceiling));
  AddAuthors(ctx, txns, sources, followees, ceiling, want);
  sources.push_back(AuthorSource(shards, reader, home, ceiling, true));
  for (int64_t author : followees)
    sources.push_back(AuthorSource(shards, author, false, ceiling, true));
  return sources;
}

// Fills page (made with the page's count, skip and max_id) with the timeline's messages
// newer than since_id, inside txns.
// tally: whether the read counts in HomeReadTally now (a server's deferred read counts once
// it is known to stand: TimelineOf).
void FillPage(Context& ctx, PageTxns& txns, Page& page, int64_t reader, int64_t since_id, bool home,
              bool tally = true) {
  const int64_t count = page.count();
  // At and above the archive's boundary every message is live: the feed mode's page.
  const int64_t archived = ctx.shards().ArchivedBelow();
  const int64_t live_since = archived > 0 ? std::max(since_id, archived - 1) : since_id;
  if (home) {
    // Above the floor the inbox is complete: merge it with the pulled authors down to the
    // floor; only if the page is not full yet, go on below it with every source.
    Home h = HomeSources(ctx, txns, reader, false, page.skip() + count);
    page.set_pulled(h.pulled);
    if (tally) {
      home_reads.fetch_add(1, std::memory_order_relaxed);
      pulled_authors.fetch_add(h.pulled, std::memory_order_relaxed);
    }
    bool below = h.floor > 0 && live_since < h.floor - 1;
    page.Merge(h.above, below ? h.floor - 1 : live_since);
    if (below && !page.full()) {
      Home all = HomeSources(ctx, txns, reader, true, page.skip() + count);
      std::vector<Source> sources = std::move(all.above);
      for (auto& s : all.below) sources.push_back(std::move(s));
      page.LowerCursorTo(h.floor);
      page.Merge(sources, live_since);
    }
  } else {
    std::vector<Source> sources;
    txns.Hold(ctx.shards().ForUser(reader));
    sources.push_back(AuthorSource(ctx.shards(), reader, false, 0));
    page.Merge(sources, live_since);
  }
  if (live_since > since_id && !page.full()) {
    std::vector<Source> sources =
        ArchiveSources(ctx, txns, reader, home, archived, page.skip() + count);
    page.LowerCursorTo(archived);
    page.Merge(sources, since_id);
  }
}

// One page of the timeline as a Json array, after its arguments, inside txns.
Json ReadPage(Context& ctx, PageTxns& txns, int64_t reader, int64_t count, int64_t max_id,
              int64_t since_id, int64_t skip, bool home) {
  Page page(ctx, count, skip, max_id, false);
  FillPage(ctx, txns, page, reader, since_id, home);
  return page.TakeJson();
}

// What a server holds of reader's reads (GroupCommit::held_reads, and a batch of them its
// background applier is writing): f(held) for each, the batch's first.
template <class F>
void ForEachHeld(Context& ctx, int64_t reader, F f) {
  GroupCommit& group = ctx.group_commit();
  const int index = ctx.shards().ForUser(reader).index();
  auto in = [&](const GroupCommit::HeldReads& held) {
    auto shard = held.find(index);
    if (shard == held.end()) return;
    auto it = shard->second.find(reader);
    if (it != shard->second.end()) f(it->second);
  };
  if (group.in_flight && group.in_flight->reads) in(*group.in_flight->reads);
  if (!group.held_reads.empty()) in(group.held_reads);
}

// The red dot's mark a server holds for reader, or 0.
int64_t HeldMark(Context& ctx, int64_t reader) {
  int64_t mark = 0;
  ForEachHeld(ctx, reader, [&](const GroupCommit::HeldRead& h) { mark = std::max(mark, h.mark); });
  return mark;
}

// The reader's state as its rows will hold it once what a server holds of its reads is
// written: user and seen as the rows are now, then PayHeldReads' judgement of each held
// read in the order they are written (the batch in flight first). One already written
// changes nothing again.
MessageCache::ReaderState AfterHeld(Context& ctx, const UserRow& user, int64_t seen) {
  UserRow row;  // what ReadsHome looks at
  row.last_active = user.last_active;
  row.lists_touched = user.lists_touched;
  ForEachHeld(ctx, user.id, [&](const GroupCommit::HeldRead& h) {
    seen = std::max(seen, h.mark);
    const bool touch = h.touch && row.last_active < h.now;
    const bool rejoin = h.rejoin && !ReadsHome(row, h.now);
    if (touch || rejoin) row.last_active = std::max(row.last_active, h.now);  // TouchUser
    if (rejoin) row.lists_touched = h.now;
  });
  return {row.last_active, row.lists_touched, seen};
}

// The red dot (seed 004): how many home timeline items by others are newer than the mark,
// counted up to kUnreadCap + 1 ("99+" above the cap); 0 without a mark (a new user, or one
// whose mark expired after 30 days inactive, flows/notify.cc), as for notifications.
constexpr int64_t kUnreadCap = 99;

Json Unread(Context& ctx, int64_t reader) {
  auto seen = GetSeen(ctx.shards().ForUser(reader), reader, kSeenTimeline);
  int64_t unread = 0;
  const int64_t held = HeldMark(ctx, reader);
  if (seen || held != 0) {
    const int64_t mark = std::max(seen ? seen->last_id : int64_t{0}, held);
    const std::string self = std::to_string(reader);
    PageTxns txns(ctx);
    for (const Json& m : ReadPage(ctx, txns, reader, kUnreadCap + 1, 0, mark, 0, true))
      if (m.at("user_id").get<std::string>() != self) ++unread;
  }
  return Json{
      {"user_id", std::to_string(reader)},
      {"unread", unread},
      {"badge", unread > kUnreadCap ? std::to_string(kUnreadCap) + "+" : std::to_string(unread)}};
}

// What a home read owes after its page was built: the red dot's mark (moved to the first
// page's newest item) and activity (flows/active.cc). Both are read inside the page's
// read transaction on the reader's shard, which is held already; most reads owe nothing
// and so write nothing.
struct ReadOwes {
  int64_t mark = 0;  // the mark's new value; 0: it stays
  ActivityDue activity;
  bool any() const { return mark != 0 || activity.any(); }
};

// seen: the stored mark when the caller has it (0: none), else it is read here.
ReadOwes Owed(Context& ctx, const UserRow& reader, std::optional<int64_t> seen,
              const std::vector<int64_t>& page, bool first_page, int64_t count) {
  ReadOwes owes;
  Shard& shard = ctx.shards().ForUser(reader.id);
  // The mark a server holds is looked at first: when it is at the page's newest already,
  // the stored one need not be read.
  if (first_page && !page.empty()) {
    const int64_t newest = page.front();
    if (HeldMark(ctx, reader.id) < newest) {
      if (!seen) {
        auto row = GetSeen(shard, reader.id, kSeenTimeline);
        seen = row ? row->last_id : 0;
      }
      if (*seen < newest) owes.mark = newest;
    }
  }
  owes.activity = ActivityOf(ctx, reader);
  if (owes.activity.rejoin && first_page && static_cast<int64_t>(page.size()) == count)
    owes.activity.shown = page.back();
  return owes;
}

// Pays what a home read owes, in one write transaction on the reader's shard committed
// without an fsync (Sync::kNormal): a power cut may lose the mark (the dot then shows
// again what was seen) or the activity (refreshed by the next read), nothing a reply or
// another shard relies on. The jobs a rejoin enqueues are in the same transaction, so
// they are lost only together with it.
void Pay(Context& ctx, int64_t reader, const ReadOwes& owes) {
  Shard& shard = ctx.shards().ForUser(reader);
  WriteTxn txn(shard, Sync::kNormal);
  if (owes.mark != 0) SetSeen(shard, reader, kSeenTimeline, owes.mark, ctx.now());
  RecordActivity(ctx, shard, reader, owes.activity, ctx.now());
  txn.Commit();
  ctx.Settle();
}

// A server's read: what it owes is held (GroupCommit::held_reads), merged with what the reader's
// earlier reads held, and written with the shard's other held reads once kHeldReadsPerShard readers
// are held there. Without a background applier, also at once when the read rejoins the active
// lists: that decides whom the reader's authors push to, and a first read joins before the next
// posts, as with Pay (weibo-sim, which runs so, sweeps list lengths on exactly that). With one, the
// read hands every shard's held reads to the applier as one batch (HandOffHeldReads) and writes
// nothing; a rejoin waits for that batch (or a server's idle steps, or its Tick once the oldest is
// kHeldMaxAgeMs old), and meanwhile the reader pulls the authors whose lists it is not on, which
// costs the reads little now that a server caches the pulled authors' posts: on the retwis trace at
// 3 000 users, pulled authors a read went from 8.0 to 8.7 (the 90th percentile from 14 to 26),
// reads/s from 8 820 to 11 661, and their p99 from 0.55 to 0.28 ms. While the applier is busy the
// reads stay held, up to kMaxHeldReadsPerShard readers of a shard, past which the read pays its
// shard's itself. That write's failure costs the read nothing: its page is built and the marks are
// hints (PayHeldReads); the reply carries a warning.
constexpr size_t kMaxHeldReadsPerShard = 4 * kHeldReadsPerShard;

void Hold(Context& ctx, int64_t reader, const ReadOwes& owes) {
  const int shard = ctx.shards().ForUser(reader).index();
  GroupCommit& group = ctx.group_commit();
  MessageCache* cache = ctx.message_cache();
  if (group.held_reads.empty()) group.held_reads_since_ms = SteadyMs();
  auto& readers = group.held_reads[shard];
  GroupCommit::HeldRead& h = readers[reader];
  h.mark = std::max(h.mark, owes.mark);
  h.touch = h.touch || owes.activity.touch;
  h.rejoin = h.rejoin || owes.activity.rejoin;
  if (owes.activity.shown != 0) h.shown = owes.activity.shown;
  h.now = std::max(h.now, ctx.now());
  // What is held is written quietly (PayHeldReads): a kept state takes now what that will
  // write. It was kept as the rows will be once the reads held then are written
  // (AfterHeld, TimelineOf) and has taken every hold since, so PayHeldReads judges the
  // rows as the reads judged the state: the mark, the larger; with activity,
  // last_active = h.now; with a rejoin, lists_touched = h.now.
  if (cache != nullptr) {
    const bool active = h.touch || h.rejoin;
    cache->RaiseReader(reader, {active ? h.now : 0, h.rejoin ? h.now : 0, h.mark});
  }
  const bool due = readers.size() >= kHeldReadsPerShard;
  try {
    if (group.background) {
      if (!due || HandOffHeldReads(ctx) || readers.size() < kMaxHeldReadsPerShard) return;
    } else if (!due && !owes.activity.rejoin) {
      return;
    }
    PayHeldReads(ctx, shard);
  } catch (const std::exception& e) {
    if (cache != nullptr) cache->ForgetReader(0);  // the marks it took are not stored
    ctx.Warn(std::string("the read marks and activity held for shard ") + std::to_string(shard) +
             " could not be written (a later read records them again): " + e.what());
  }
}

}  // namespace

int64_t PayHeldReads(Context& ctx, int only) {
  auto& held = ctx.group_commit().held_reads;
  int64_t paid = 0;
  // A server's kept reader states took what these write when the reads were held (Hold,
  // RaiseReader): the writes name no reader. A failure forgets every kept state.
  QuietReaderChanges quiet;
  for (auto it = held.begin(); it != held.end();) {
    if (only >= 0 && it->first != only) {
      ++it;
      continue;
    }
    const int index = it->first;
    const std::unordered_map<int64_t, GroupCommit::HeldRead> readers = std::move(it->second);
    it = held.erase(it);
    Shard& shard = ctx.shards().At(index);
    struct ForgetOnThrow {
      MessageCache* cache;
      bool done = false;
      ~ForgetOnThrow() {
        if (!done && cache != nullptr) cache->ForgetReader(0);
      }
    } forget{ctx.message_cache()};
    WriteTxn txn(shard, Sync::kNormal);
    for (const auto& [reader, h] : readers) {
      // Judged again on the rows as they are now: the reader may have been deleted, or
      // another process may have recorded a later read, since.
      const std::optional<UserRow> user = GetUser(shard, reader);
      if (!user) continue;
      ++paid;
      if (h.mark != 0) {
        auto seen = GetSeen(shard, reader, kSeenTimeline);
        if (!seen || seen->last_id < h.mark) SetSeen(shard, reader, kSeenTimeline, h.mark, h.now);
      }
      ActivityDue due;
      due.touch = h.touch && user->last_active < h.now;
      due.rejoin = h.rejoin && !ReadsHome(*user, h.now);
      due.shown = h.shown;
      RecordActivity(ctx, shard, reader, due, h.now);
    }
    txn.Commit();
    forget.done = true;
  }
  if (paid > 0) ctx.Settle();
  return paid;
}

bool HandOffHeldReads(Context& ctx, bool old_only) {
  GroupCommit& group = ctx.group_commit();
  if (!group.background || group.held_reads.empty()) return false;
  if (old_only && SteadyMs() - group.held_reads_since_ms < kHeldMaxAgeMs) return false;
  FinishBackgroundApply(group, false);  // an ended batch is collected (a failure: thrown)
  if (group.in_flight) return false;
  auto reads = std::make_shared<const GroupCommit::HeldReads>(std::move(group.held_reads));
  group.held_reads.clear();
  HandOffReads(ctx, reads, [reads](Context& applier) {
    applier.group_commit().held_reads = *reads;
    PayHeldReads(applier);
  });
  return true;
}

void HomeReadTally(int64_t* reads, int64_t* pulled) {
  *reads = home_reads.load(std::memory_order_relaxed);
  *pulled = pulled_authors.load(std::memory_order_relaxed);
}

namespace {

// The timeline op's arguments.
struct TimelineArgs {
  int64_t count, max_id, since_id, page;
  bool home, unread;
  bool first_page() const { return max_id == 0 && since_id == 0 && page == 0; }
};

// The page (as text when text is not null, else as the returned array) and what the read
// owes, inside txns; user: the reader's row, seen: its stored mark when the caller has it.
Json BuildHome(Context& ctx, PageTxns& txns, const TimelineArgs& a, const UserRow& user,
               std::optional<int64_t> seen, std::string* text, bool tally, ReadOwes* owes,
               int64_t* pulled) {
  Page page(ctx, a.count, a.page * a.count, a.max_id, text != nullptr);
  FillPage(ctx, txns, page, user.id, a.since_id, a.home, tally);
  *pulled = page.pulled();
  if (a.home) *owes = Owed(ctx, user, seen, page.ids(), a.first_page(), a.count);
  if (text == nullptr) return page.TakeJson();
  *text = page.TakeText();
  return Json();
}

// A server's home read whose reader's state is kept (tables/message_cache.h, "Readers'
// states"): the reader's shard is not held up front (PageTxns::Defer), so a read whose
// lists and inbox rows are kept too opens nothing there: the reader's row, the mark and
// the read transaction's BEGIN and COMMIT were a fifth of a read (perf, r10k trace). What
// is read from memory is the shard as it was validated, and a statement on it runs in a
// read transaction opened later: the page stands only when no commit has reached the
// shard in between (its WAL-index header is unchanged), else it is built again as a
// command builds it. nullopt: not served so.
std::optional<Json> DeferredHome(Context& ctx, const TimelineArgs& a, int64_t reader,
                                 std::string* text, ReadOwes* owes) {
  MessageCache* cache = ctx.message_cache();
  if (cache == nullptr || !a.home || a.unread) return std::nullopt;
  Shard& own = ctx.shards().ForUser(reader);
  WalHeader header;  // read before the shard is validated: a commit after it moves it
  if (!own.WalIndexHeader(&header) || !cache->Usable(own)) return std::nullopt;
  const MessageCache::ReaderState* kept = cache->FindReader(own, reader);
  if (kept == nullptr) return std::nullopt;
  UserRow user;  // what Owed looks at
  user.id = reader;
  user.last_active = kept->last_active;
  user.lists_touched = kept->lists_touched;
  const int64_t seen = kept->seen;
  PageTxns txns(ctx);
  txns.Defer(own, header);
  int64_t pulled = 0;
  std::string page_text;
  Json result = BuildHome(ctx, txns, a, user, seen, text != nullptr ? &page_text : nullptr, false,
                          owes, &pulled);
  if (!txns.Unmoved(own)) return std::nullopt;
  home_reads.fetch_add(1, std::memory_order_relaxed);
  pulled_authors.fetch_add(pulled, std::memory_order_relaxed);
  if (text != nullptr) *text = std::move(page_text);
  return result;
}

// The timeline op; with text, its page is written as JSON text (TimelineText).
Json TimelineOf(Context& ctx, const Json& args, std::string* text) {
  const int64_t reader = ctx.UserIdOf(args.at("user"));
  TimelineArgs a;
  a.count = args.value("count", 20);
  a.max_id = args.value("max_id", int64_t{0});
  a.since_id = args.value("since_id", int64_t{0});
  a.page = args.value("page", int64_t{0});
  a.home = !args.value("posts", false);
  a.unread = args.value("unread", false);
  ReadOwes owes;
  std::optional<Json> result = DeferredHome(ctx, a, reader, text, &owes);
  if (!result) {
    // The reader's shard is held from the first statement: the reader's row (checked here,
    // and judged for activity by Owed), the inbox and the mark are one snapshot, read under
    // one WAL read lock instead of a lock for the row and another for the page.
    PageTxns txns(ctx);
    Shard& own = txns.Hold(ctx.shards().ForUser(reader));
    const UserRow user = ctx.RequireUser(reader);
    if (a.unread) {
      if (!a.home || !a.first_page())
        Fail(Code::kInvalidArgument,
             "--unread counts the whole home timeline: no --posts, --max-id, --since-id or "
             "--page");
      txns.Release();
      return Unread(ctx, reader);
    }
    // A server keeps what the next read judges its debts by (DeferredHome): the rows as
    // they will be once what it holds of the reader's reads is written (Hold).
    std::optional<int64_t> seen;
    MessageCache* cache = ctx.message_cache();
    if (a.home && cache != nullptr) {
      auto row = GetSeen(own, reader, kSeenTimeline);
      seen = row ? row->last_id : 0;
      cache->PutReader(own, reader, AfterHeld(ctx, user, *seen));
    }
    int64_t pulled = 0;
    result = BuildHome(ctx, txns, a, user, seen, text, true, &owes, &pulled);
  }  // the read transactions end here, before any write: no BEGIN IMMEDIATE inside one
  if (!a.home || !owes.any()) return *result;
  if (ctx.group_commit().defer_merged)
    Hold(ctx, reader, owes);
  else
    Pay(ctx, reader, owes);
  return *result;
}

}  // namespace

Json Timeline(Context& ctx, const Json& args) { return TimelineOf(ctx, args, nullptr); }

// A server's page is its reply's text: serializing twenty messages' objects took 17 µs of
// the 130 weibod's loop spent on a read (p50, r3k trace; README, session 46), besides
// building them.
std::string TimelineText(Context& ctx, const Json& args) {
  std::string text;
  Json result = TimelineOf(ctx, args, &text);
  if (text.empty()) AppendJson(result, &text);  // --unread's badge
  return text;
}

}  // namespace weibo
