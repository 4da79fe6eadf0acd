// MessageCache: the page rows a server's timelines showed last (seed 000's message cache).
//
// A page of a home timeline is twenty messages, each read with its counters, its author's
// name and its attrs (tables/msg_page.h): one statement per shard the page's messages are
// on, about ten at 16 shards, and a third of a steady home read's time (perf, retwis
// trace at 10 000 users). The same messages are shown again and again: a post reaches
// some 25 inboxes and each of them shows it on several pages. A process that serves many
// requests (weibod, the bench) keeps the rows of the messages it read most recently,
// at most `capacity` of them; a page then reads from its shards only the ones it lacks.
//
// It is never staler than a read of the shard would be, by these rules:
//
//   * this process's own writes: every change of a row on a watched connection reaches
//     the cache (Shard::AddRowListener, inside the statement that makes it), and
//       - msg_info or msg_counter (rowid: the msg_id): that message is forgotten (an edit,
//         a delete, an archive's move, a comment or repost that counts on it);
//       - a user's name written (kUserNameChange, which tables/user_info.cc tells the
//         listeners itself, keyed by the user_id): every message of that author is
//         forgotten, as the row carries the author's name (below). No other change
//         of user_info is watched: a post's count, a follow's, a read's activity leave
//         every page row as it was;
//       - entities (rowid: not the message's id): every entry is forgotten (a message's
//         attrs change only with --attr, which is rare);
//     a counter delta this process enqueues (flows/like.cc, EnqueueCounterDelta) forgets
//     its message (Forget), as a page adds the pending deltas to the counters. An entry is
//     only ever stored from a read outside a write transaction (Put checks), so nothing
//     uncommitted is cached; a change that is rolled back only costs a miss.
//   * other connections' commits: Usable, called before a shard's entries are used in each
//     request, drops all of them when another connection has committed to the shard since
//     (storage/shard_watch.h, as the counter cache does), unless that connection is one
//     of this process's own (the background applier, jobs.h) and its commits changed none
//     of the tables above, no name and no pending counter delta (storage/commit_log.h). It
//     validates only between transactions: a snapshot older than the generation must not be stamped
//     with it. A timeline holds a read transaction per shard for its whole page; it validates each
//     shard right before opening it (Hold), and rows read inside are kept then.
//
// An author's name: the cache counts its entries by author, and a name write of an author
// that has some drops them, by a scan of the slots. A name is written once, when the user
// is made, so the scan is for the rare row cached before that, with no name, which is then
// read again. Counting every change of user_info instead, which moves at each post, follow and
// recorded read of its user, made an author's cached messages miss after each of the
// author's own reads; checking a count by author at every hit, as this cache did until
// session 45, cost one more hash lookup a row.
//
// Only live rows are kept: a message that is gone, archived rows, and rows whose attrs the
// page's statement did not read (PageRow::attrs_known false) are read each time. The rows
// are kept as the counter cache keeps its counters (storage/clock_table.h): one array of
// slots, an open-addressing index by msg_id, CLOCK eviction. A page looks up 20 to 40
// rows; in std::unordered_map's node chains those lookups were a tenth of a home read.
// A crash loses nothing: the entries are copies of committed rows.
//
// Followees' newest posts. A hybrid home read merges the authors the reader pulls
// (celebrities, and those whose active list lacks the reader: flows/timeline.cc), about
// eight a read on the retwis trace, each from its time-partitioned outbox: a statement for
// its partition list and one a window for its rows, some 40% of a hybrid read's time
// against push's. The same few authors are pulled by most readers, and they post rarely
// compared with how often they are read, so the cache also keeps, for each author it was
// asked for, the newest kPostsKept ids of originals and reposts in author_feed (AuthorPosts),
// under the same rules: the shard's generation (author_feed is in the commit interest) and
// this process's own writes, which tables/author_feed.cc tells the row listeners itself, as
// author_feed is WITHOUT ROWID and the update hook never sees it (a write forgets that
// author's entry; an archive run's move forgets every author of the shard). A post made by
// this process keeps its author's entry (Posted): its insert sets the entry aside, and once
// the post has committed the entry comes back with the new id in front, so that a followee's
// own posts do not make each of its readers read its outbox again. At most
// capacity / 4 authors are kept (25 000 at weibod's default, a few MB), evicted by CLOCK
// as the rows are (until session 45 a Put into a full map cleared it). At capacity / 16,
// on the retwis trace at 10 000 users (where most users are some reader's pulled author),
// the map was cleared 23 times and 28% of the lookups missed; at capacity / 4, never, and
// 16% missed (an author's own post forgets its entry).
//
// Readers' lists. A hybrid home read starts from the reader's followees (user_relation) and
// the authors whose active lists hold the reader (active_on), some 50 and 10 rows on the
// retwis trace and a fifth of a read's time. Both change far less often than the reader
// reads, so the cache keeps them by reader (ReaderLists), under a watch of their own
// (lists_watch_): the background applier writes active_on at every join and eviction, and
// that must not drop the shard's page rows. Both tables are WITHOUT ROWID, and their writers
// (InsertRelation and DeleteRelation for followees, SetActiveOn and DropActiveOn) name the
// reader with Shard::NoteRowChange, as RaiseInboxFloor does for the reader's inbox floor,
// kept with the lists (one statement less a read; a delivery's trim raises it): this
// connection's changes forget that reader's entry (the row listener), and a commit of
// another of this process's connections is adopted with the readers it named
// (CommitInterest::keyed, storage/commit_log.h), whose entries only are forgotten. Another
// process's commit drops every list of the shard. At most capacity / 4 readers are kept,
// evicted by CLOCK. On the retwis trace at 3 000 users, 70% of the lookups hit; with the
// whole shard dropped at each of the applier's joins instead of the readers it named, 50%.
//
// Readers' inboxes. A home read's inbox statement (msg_index, on the reader's shard) was
// 14% of an embedded hybrid read (perf, r10k trace, session 48). The cache keeps each
// reader's newest kInboxKept rows (ReaderInbox), under a third watch (inbox_watch_) whose
// one table is keyed: every writer of msg_index names the reader (kInboxChange,
// tables/msg_index.h), so this connection's writes forget that reader's inbox (the row
// listener) and another of this process's connections' commits forget the readers they
// named; another process's commit drops the shard's. What changes an inbox most is the
// deliveries, some twenty-five between two reads of a reader on that trace: forgetting
// the inbox at each would leave nothing to hit. A server applies the deliveries it held
// (jobs.cc) inside a PatchedDeliveries scope, where they name no reader, and once they
// are committed (a background batch when it is collected, between requests) it hands
// each one to Delivered, which adds it to the kept inbox, or forgets the inbox when the
// batch failed or when it cannot tell whether the insert added the row. Until then a read
// finds the delivery among the held ones (flows/fanout.cc, HeldInboxIds), and a delivery
// read both ways is shown once (the merge drops duplicates). An inbox kept is changed in
// place: a read copies its ids out.
//
// Readers' states. What a home read owes (flows/timeline.cc, Owed) is judged by three
// values on the reader's shard: user_info's last_active and lists_touched, and the home
// timeline's mark (last_seen). Reading them opened a read transaction on the reader's
// shard for every read, a fifth of an embedded hybrid read with the row and the mark
// (perf, r10k trace, session 48), although the lists and the inbox came from here. The
// cache keeps them by reader (ReaderState), under a fourth watch (reader_watch_) whose
// one table is keyed: their writers name the reader (kReaderChange, tables/user_info.h).
// A read that finds them, and the lists and inbox rows, opens nothing on the reader's
// shard. What changes them most is the reads themselves: a server holds what a read owes
// and writes it later (GroupCommit::held_reads), inside a QuietReaderChanges scope where
// the writes name no one: the read raises the kept state to what the payment will write
// when it holds it (RaiseReader), and a state is kept only from a read of a reader with
// nothing held, so that the kept state is what the rows will be. A failed payment forgets
// every state. A post by this process sets its author's state aside as it touches
// last_active, and Posted brings it back with the post's time.
#ifndef WEIBO_TABLES_MESSAGE_CACHE_H_
#define WEIBO_TABLES_MESSAGE_CACHE_H_

#include <cstdint>
#include <memory>
#include <unordered_map>
#include <utility>
#include <vector>

#include "storage/clock_table.h"
#include "storage/shard_watch.h"
#include "tables/msg_page.h"

namespace weibo {

class Shard;

class MessageCache {
 public:
  explicit MessageCache(size_t capacity);
  ~MessageCache();  // takes its row listeners off the connections
  MessageCache(const MessageCache&) = delete;
  MessageCache& operator=(const MessageCache&) = delete;

  // Whether the shard's entries may be used now (Find, Put), validating them first when the
  // connection is between transactions: the shard's connection is then watched (once per
  // connection) and its entries dropped when another connection committed to it since.
  // Inside a read transaction only when Hold opened it; inside a write transaction never.
  // Call it before Find on a shard in each request.
  bool Usable(Shard& shard);
  // Validates the shard just before the caller opens a read transaction on it and holds
  // it for a whole page (flows/timeline.cc, PageTxns): rows read inside it may be kept,
  // with the generation from before its snapshot (a commit in between only costs a miss
  // at the next validation). Release when the transaction ends.
  void Hold(Shard& shard);
  // Hold without validating: for a shard validated earlier in the request whose caller
  // checks, once the page is built, that no commit reached it since (flows/timeline.cc,
  // PageTxns::Defer).
  void HoldValidated(Shard& shard);
  void Release(int shard);
  // Rows are shared, never changed once stored: a hit hands the page its row without
  // copying the content, the name and the attrs (a page shows 20 to 40 of them).
  using Row = std::shared_ptr<const PageRow>;
  // The cached row of msg_id, read from shard `shard`, or nullptr (counted as a miss); a hit
  // marks it used.
  Row Find(int shard, int64_t msg_id);
  // Keeps row, read from shard just now, after Usable in the same request (whose generation
  // it is stamped with: Put does not validate again); ignored inside a write transaction on
  // it, when the shard is not watched, and for a row whose attrs are not known.
  void Put(Shard& shard, Row row);
  void Put(Shard& shard, const PageRow& row) { Put(shard, std::make_shared<const PageRow>(row)); }
  // Asks the processor for the memory the rows of ids will be read from (ClockTable's
  // hints, then each cached row's first line, its counts and its head's string), before a
  // page Finds them one by one: a page's 20 to 40 lookups were three cache misses each,
  // one after the other, and 11% of a home read's time (perf, r3k trace, session 47).
  // Changes nothing, marks nothing used, and counts no hit or miss.
  void Prefetch(const std::vector<int64_t>& ids) const;
  void Forget(int64_t msg_id);

  // An author's newest posts (originals and reposts), newest first: all of them when
  // complete, else every one at or above ids.back().
  struct AuthorPosts {
    std::vector<int64_t> ids;
    bool complete = false;
  };
  static constexpr int64_t kPostsKept = 32;
  // The cached posts of author (on shard `shard`), or nullptr; after Usable, as Find.
  // Shared, as rows are: a hit hands the page the ids without copying them (a read pulls
  // some eight authors).
  using Posts = std::shared_ptr<const AuthorPosts>;
  Posts FindPosts(int shard, int64_t author);
  // Prefetch's hints for the posts of authors, which a home read looks up next (about
  // eight pulled authors a read; FindPosts was 4.4% of it).
  void PrefetchPosts(const std::vector<int64_t>& authors) const;
  // Keeps posts, read from shard just now, under the rules of Put.
  void PutPosts(Shard& shard, int64_t author, Posts posts);
  void PutPosts(Shard& shard, int64_t author, AuthorPosts posts) {
    PutPosts(shard, author, std::make_shared<const AuthorPosts>(std::move(posts)));
  }
  // A message this process has just committed to shard (CreateMessage), after Usable: the
  // author's entry, which the message's author_feed insert set aside, is kept again with
  // the new id in front (a comment's: as it was). Only when that insert was the author's
  // one outbox write since the entry was set aside, and the shard's generation has not
  // moved since: anything else (another write, a rollback, another connection's commit)
  // leaves it forgotten, as before. The author's own inbox, which the message's inbox row
  // set aside the same way, comes back with it in front under the same rules.
  void Posted(Shard& shard, const MsgRow& row);

  // A reader's followees and the authors whose active lists hold it (active_on), both
  // ascending, and its inbox's floor (tables/msg_index.h), as a home read reads them on the
  // reader's shard (flows/timeline.cc).
  struct ReaderLists {
    std::vector<int64_t> followees, active;
    int64_t floor = 0;
  };
  // The reader's cached lists (the reader on shard), or nullptr; after Usable. Inside the
  // page's read transaction on shard, and only when no commit has reached the shard since
  // it was validated (ShardWatch::Current): a list older than the transaction's snapshot
  // could name an author as pushed whose active_on row is gone in it, and the page would
  // miss that author's newest posts.
  using Lists = std::shared_ptr<const ReaderLists>;  // shared, as rows are
  Lists FindLists(Shard& shard, int64_t reader);
  // Keeps lists, read from shard just now, under the rules of Put.
  void PutLists(Shard& shard, int64_t reader, ReaderLists lists);

  // A reader's newest inbox rows (msg_index), newest first: all of them when complete,
  // else every one at or above the last (see "Readers' inboxes" above).
  struct ReaderInbox {
    std::vector<std::pair<int64_t, int64_t>> rows;  // (msg_id, author_id)
    bool complete = false;
  };
  static constexpr int64_t kInboxKept = 32;
  // The reader's cached inbox (the reader on shard), or nullptr; as FindLists: after
  // Usable, inside the page's read transaction, and only while no commit has reached the
  // shard since it was validated. Good until the next call into the cache.
  const ReaderInbox* FindInbox(Shard& shard, int64_t reader);
  // Keeps inbox, read from shard just now, under the rules of Put.
  void PutInbox(Shard& shard, int64_t reader, ReaderInbox inbox);
  // A delivery of msg_id by author to reader, on shard `shard`, that this process has
  // committed with no reader named (PatchedDeliveries, tables/msg_index.h), when it was
  // made (applied = true) or failed (false). Between requests only. It is added to the
  // reader's kept inbox when the reader's kept lists, of the same shard generation, say
  // that the reader follows the author (the insert checked the follow; a message deleted
  // meanwhile is skipped by the page as the held delivery was); when it is not followed,
  // the inbox stays as it is (the insert added nothing); in every other case, and on a
  // failure, the reader's inbox is forgotten.
  void Delivered(int shard, int64_t reader, int64_t msg_id, int64_t author, bool applied);

  // The values a home read judges what it owes by (see "Readers' states" above): the
  // reader's user_info.last_active and lists_touched, and its home timeline's mark
  // (last_seen; 0: none).
  struct ReaderState {
    int64_t last_active = 0, lists_touched = 0, seen = 0;
  };
  // The reader's kept state (the reader on shard), or nullptr; as FindLists.
  const ReaderState* FindReader(Shard& shard, int64_t reader);
  // Keeps state, read from shard just now, under the rules of Put.
  void PutReader(Shard& shard, int64_t reader, const ReaderState& state);
  // What a server holds of the reader's read is to be written with no reader named: the
  // kept state takes it now, each value the larger of the kept one and the given one.
  void RaiseReader(int64_t reader, const ReaderState& written);
  void ForgetReader(int64_t reader);  // 0: every reader's

  size_t size() const { return entries_.size(); }
  size_t capacity() const { return capacity_; }
  const ShardWatch& watch() const { return watch_; }  // its drops and adoptions
  int64_t hits() const { return hits_; }
  int64_t misses() const { return misses_; }

 private:
  struct Entry {
    Row row;
    uint64_t generation = 0;  // the shard's, when stored
    int64_t author = 0;       // row->msg.user_id
    int32_t shard = 0;
  };
  // The row listener: forgets what a changed row makes stale (the rules above).
  static void OnChange(void* cache, int op, const char* table, int64_t rowid);
  void AuthorChanged(int64_t user);
  void ForgetInbox(int64_t reader);  // 0: every reader's
  // Inserts (msg_id, author) into inbox at `at`, keeping at most kInboxKept rows.
  static void AddInboxRow(ReaderInbox& inbox, std::vector<std::pair<int64_t, int64_t>>::iterator at,
                          int64_t msg_id, int64_t author);
  // Removes an entry, and it from its author's count.
  void Drop(ClockTable<Entry>::Item* item);
  void Uncount(int64_t author);
  void Validate(Shard& shard);
  // Usable's answer without validating: between transactions, or in a held read one.
  bool InValidatedView(Shard& shard) const;

  size_t capacity_;
  ClockTable<Entry> entries_;                      // by msg_id
  std::unordered_map<int64_t, uint32_t> authors_;  // entries by author
  ShardWatch watch_;
  std::vector<bool> held_;  // by shard: a read transaction opened right after Hold
  int64_t hits_ = 0, misses_ = 0;
  // Values by key (an author's posts, a reader's lists), each stamped with its shard and
  // the generation its watch gave that shard when it was stored, at most bound() of them,
  // kept as the rows are (storage/clock_table.h): a Put into a full table evicts by CLOCK.
  template <class T>
  struct ByKey {
    struct Entry {
      T value;
      uint64_t generation = 0;
      int32_t shard = 0;
    };
    explicit ByKey(size_t capacity) : table(capacity) {}
    ClockTable<Entry> table;
    // The key's value when it is from shard at generation; a stale one is forgotten.
    const T* Find(int64_t key, int shard, uint64_t generation) {
      auto* item = table.Find(key);
      if (item == nullptr) return nullptr;
      if (item->value.shard == shard && item->value.generation == generation) {
        item->referenced = true;
        return &item->value.value;
      }
      table.Erase(item);
      return nullptr;
    }
    void Put(int64_t key, Entry entry) {
      if (table.capacity() == 0) return;
      table.Erase(key);
      table.Insert(key).value = std::move(entry);
    }
  };
  // Entries a named write on this connection set aside, until Posted brings them back, by
  // key, with the writes seen since (changes); at most kSetAside of them.
  template <class T>
  struct Aside {
    typename ByKey<T>::Entry entry;
    int changes = 0;
  };
  template <class T>
  using AsideMap = std::unordered_map<int64_t, Aside<T>>;
  static constexpr size_t kSetAside = 1024;
  // A named write of key's rows: its entry is set aside (the first write) or counted.
  template <class T>
  static void SetAside(ByKey<T>& by_key, AsideMap<T>& aside, int64_t key);
  ByKey<Posts> posts_;         // by author, under watch_
  AsideMap<Posts> set_aside_;  // by author: an author_feed insert
  // Readers' lists, by reader, under a watch of their own: the background applier's
  // commits change active_on often (joins), which must not drop the shard's page rows.
  ShardWatch lists_watch_;
  ByKey<Lists> lists_;  // by reader, under lists_watch_
  // Readers' inboxes, by reader, under a watch of their own (the applier's joins name
  // readers too, and must not cost their inboxes).
  ShardWatch inbox_watch_;
  ByKey<ReaderInbox> inboxes_;  // by reader, under inbox_watch_; changed in place (Delivered)
  AsideMap<ReaderInbox> inbox_aside_;  // by reader: a msg_index insert
  // Readers' states, by reader, under a watch of their own (the applier's payments of held
  // reads write user_info and last_seen quietly, and must not cost anything else).
  ShardWatch reader_watch_;
  ByKey<ReaderState> readers_;  // by reader, under reader_watch_; raised in place (RaiseReader)
  AsideMap<ReaderState> reader_aside_;  // by reader: any change of its state
  // of posts_, lists_, inboxes_ and readers_
  size_t bound() const { return capacity_ / 4 + 1; }
};

}  // namespace weibo

#endif  // WEIBO_TABLES_MESSAGE_CACHE_H_
