// tables/message_cache.cc: the page rows a server keeps — its bound, the row changes that
// forget entries (msg_info, msg_counter, a user's name, entities), other connections' commits,
// and, end to end, a server's timelines and lists against a process without the cache;
// and the pulled authors' newest posts it keeps, the same ways.
#include "tables/message_cache.h"

#include <functional>
#include <map>
#include <optional>
#include <utility>
#include <vector>

#include "storage/shard.h"
#include "tables/active_fan.h"
#include "tables/author_feed.h"
#include "tables/msg_index.h"
#include "tables/msg_page.h"
#include "tables/notification.h"
#include "tables/outbox.h"
#include "tables/user_info.h"
#include "tables/user_relation.h"
#include "test_support.h"

namespace weibo {
namespace {

using test::FreshShard;
using test::RawDb;
using test::TempDir;

PageRow Row(int64_t msg_id, int64_t author, const std::string& content) {
  PageRow r;
  r.msg.id = msg_id;
  r.msg.user_id = author;
  r.msg.content = content;
  r.attrs_known = true;
  return r;
}

// A server over dir with a message cache of capacity rows, and the options of a process
// without one (a command's) over the same cluster.
std::unique_ptr<Executor> CachingServer(const std::string& dir, int64_t capacity) {
  EmbeddedOptions eo = test::ServerOptions(dir);
  eo.message_cache = capacity;
  return OpenEmbedded(eo);
}

EmbeddedOptions Plain(const std::string& dir) {
  EmbeddedOptions plain;
  plain.data_dir = dir;
  plain.now_ms = test::kNow;
  return plain;
}

TEST_CASE("message cache: holds at most its capacity, a used entry outlives an unused one") {
  TempDir dir;
  auto shard = FreshShard(dir);
  MessageCache cache(3);
  REQUIRE(cache.Usable(*shard));
  for (int64_t id = 1; id <= 3; ++id) cache.Put(*shard, Row(id, 7, "m" + std::to_string(id)));
  REQUIRE(cache.size() == 3);
  REQUIRE(cache.Find(0, 1)->msg.content == "m1");  // used: CLOCK passes it over once
  cache.Put(*shard, Row(4, 7, "m4"));
  REQUIRE(cache.size() == 3);
  REQUIRE(cache.Find(0, 2) == nullptr);  // the oldest unused one went
  REQUIRE(cache.Find(0, 1) != nullptr);
  cache.Put(*shard, Row(3, 7, "m3 again"));  // a second Put replaces
  REQUIRE(cache.size() == 3);
  REQUIRE(cache.Find(0, 3)->msg.content == "m3 again");
  REQUIRE(cache.Find(1, 3) == nullptr);  // asked on another shard: a miss
  PageRow unknown = Row(9, 7, "attrs not read");
  unknown.attrs_known = false;
  cache.Put(*shard, unknown);
  REQUIRE(cache.Find(0, 9) == nullptr);
  MessageCache none(0);
  REQUIRE(none.Usable(*shard));
  none.Put(*shard, Row(1, 7, "x"));
  REQUIRE(none.size() == 0);
}

TEST_CASE("message cache: prefetching rows and posts changes nothing and counts nothing") {
  TempDir dir;
  auto shard = FreshShard(dir);
  MessageCache cache(3);
  cache.Prefetch({1, 2, 3});  // an empty cache: nothing to ask for
  cache.PrefetchPosts({7, 8});
  REQUIRE(cache.Usable(*shard));
  for (int64_t id = 1; id <= 3; ++id) cache.Put(*shard, Row(id, 7, "m" + std::to_string(id)));
  cache.PutPosts(*shard, 7, MessageCache::AuthorPosts{{3, 2, 1}, true});
  cache.Prefetch({1, 2, 3, 4, 5});  // hits and misses alike
  cache.PrefetchPosts({7, 8});
  CHECK(cache.hits() == 0);
  CHECK(cache.misses() == 0);
  // Nothing was marked used: CLOCK still evicts the oldest, as if never prefetched.
  cache.Put(*shard, Row(4, 7, "m4"));
  CHECK(cache.size() == 3);
  CHECK(cache.Find(0, 1) == nullptr);
  CHECK(cache.Find(0, 2)->msg.content == "m2");
  CHECK(cache.FindPosts(0, 7)->ids == std::vector<int64_t>{3, 2, 1});
}

TEST_CASE("message cache: random puts, finds and forgets never return a forgotten row") {
  TempDir dir;
  auto shard = FreshShard(dir);
  MessageCache cache(32);
  REQUIRE(cache.Usable(*shard));
  std::map<int64_t, std::string> live;  // id -> content of its last Put, while not forgotten
  test::XorShift next;
  for (int step = 0; step < 20000; ++step) {
    const int64_t id = static_cast<int64_t>(next() % 100);
    const uint64_t op = next() % 3;
    if (op == 0) {
      const std::string content = "c" + std::to_string(next() % 1000);
      cache.Put(*shard, Row(id, 7, content));
      live[id] = content;
      REQUIRE(cache.Find(0, id)->msg.content == content);
    } else if (op == 1) {
      cache.Forget(id);
      live.erase(id);
      REQUIRE(cache.Find(0, id) == nullptr);
    } else if (MessageCache::Row hit = cache.Find(0, id)) {
      REQUIRE(live.count(id) == 1);
      REQUIRE(hit->msg.content == live[id]);
    }
    REQUIRE(cache.size() <= 32);
  }
}

TEST_CASE("message cache: this connection's row changes forget what they make stale") {
  TempDir dir;
  auto shard = FreshShard(dir);
  MessageCache cache(100);
  REQUIRE(cache.Usable(*shard));
  auto fill = [&] {
    cache.Put(*shard, Row(1, 7, "by 7"));
    cache.Put(*shard, Row(2, 7, "by 7 too"));
    cache.Put(*shard, Row(3, 8, "by 8"));
  };
  fill();
  shard->Exec("INSERT INTO msg_counter(msg_id) VALUES (1)");  // the message's counters
  REQUIRE(cache.Find(0, 1) == nullptr);
  REQUIRE(cache.Find(0, 2) != nullptr);
  shard->Exec(
      "INSERT INTO msg_info(msg_id, user_id, content, type, time) VALUES (2, 7, 'x', 0, 1)");
  REQUIRE(cache.Find(0, 2) == nullptr);  // the message's row
  fill();
  UserRow seven;
  seven.id = 7;
  seven.name = "seven";
  InsertUser(*shard, seven);
  REQUIRE(cache.Find(0, 1) == nullptr);  // the author's name: all of its messages
  REQUIRE(cache.Find(0, 2) == nullptr);
  REQUIRE(cache.Find(0, 3) != nullptr);  // another author's stay
  fill();
  REQUIRE(cache.Find(0, 1) != nullptr);  // stored again after the change: good again
  // The rest of the author's row is not on a page: a post's count, a read's activity.
  AddUserCounts(*shard, 7, 1, 0, 0);
  TouchUser(*shard, 7, 5);
  SetListsTouched(*shard, 7, 5);
  REQUIRE(cache.Find(0, 1) != nullptr);
  REQUIRE(cache.Find(0, 2) != nullptr);
  shard->Exec("INSERT INTO entities(id, updated, body) VALUES (x'01', 1, x'02')");
  REQUIRE(cache.Find(0, 1) == nullptr);  // an entity: every entry
  REQUIRE(cache.Find(0, 3) == nullptr);
  fill();
  {
    // Nothing is stored from inside a write transaction, and a change inside one forgets
    // at once (a rollback then only costs a miss).
    WriteTxn txn(*shard);
    REQUIRE_FALSE(cache.Usable(*shard));
    cache.Put(*shard, Row(4, 8, "uncommitted"));
    REQUIRE(cache.Find(0, 4) == nullptr);
    shard->Exec("UPDATE msg_counter SET like_count = 1 WHERE msg_id = 1");
    REQUIRE(cache.Find(0, 1) == nullptr);
  }
  REQUIRE(cache.Find(0, 3) != nullptr);
}

TEST_CASE("message cache: another connection's commit drops the shard's entries") {
  TempDir dir;
  auto shard = FreshShard(dir);
  MessageCache cache(10);
  REQUIRE(cache.Usable(*shard));
  cache.Put(*shard, Row(1, 7, "before"));
  REQUIRE(cache.Usable(*shard));  // nobody else wrote: still there
  REQUIRE(cache.Find(0, 1) != nullptr);
  RawDb raw(shard->path());  // another process, as far as SQLite can tell
  raw.Exec("INSERT INTO msg_counter(msg_id) VALUES (1)");
  REQUIRE(cache.Usable(*shard));
  REQUIRE(cache.Find(0, 1) == nullptr);
  // Inside a read transaction a shard is not validated: rows are kept only when Hold
  // validated it just before the transaction opened.
  cache.Put(*shard, Row(1, 7, "again"));
  {
    ReadTxn txn(*shard);
    shard->Query("SELECT count(*) FROM msg_info").IntOr(0);  // the snapshot starts
    raw.Exec("UPDATE msg_counter SET like_count = 2 WHERE msg_id = 1");
    REQUIRE_FALSE(cache.Usable(*shard));
  }
  REQUIRE(cache.Usable(*shard));
  REQUIRE(cache.Find(0, 1) == nullptr);
  cache.Hold(*shard);
  {
    ReadTxn txn(*shard);
    REQUIRE(cache.Usable(*shard));
    cache.Put(*shard, Row(1, 7, "held"));
  }
  cache.Release(0);
  REQUIRE(cache.Usable(*shard));
  REQUIRE(cache.Find(0, 1)->msg.content == "held");
  // A commit by another connection between a page's read and its Put: the row is stamped
  // with the generation validated before the read, so the next validation drops it
  // (validating again in Put would stamp the newer one on the older row).
  REQUIRE(cache.Usable(*shard));
  const PageRow read_before = Row(2, 7, "read before the commit");
  raw.Exec("UPDATE msg_counter SET like_count = 3 WHERE msg_id = 1");
  cache.Put(*shard, read_before);
  REQUIRE(cache.Usable(*shard));
  REQUIRE(cache.Find(0, 2) == nullptr);
}

// Another connection of this process (a server's background applier, jobs.h) commits
// through the same Shard code, which records each commit in the file's log
// (storage/commit_log.h): the entries stay unless the commit changed a row they are made of.
TEST_CASE("message cache: this process's other connections drop entries only for their rows") {
  TempDir dir;
  auto shard = FreshShard(dir);
  Shard other(0, shard->path(), false, nullptr);
  MessageCache cache(10);
  auto kept = [&] {
    REQUIRE(cache.Usable(*shard));
    return cache.Find(0, 1) != nullptr;
  };
  auto put = [&] {
    REQUIRE(cache.Usable(*shard));
    cache.Put(*shard, Row(1, 7, "row"));
    REQUIRE(kept());
  };
  auto commit = [](Shard& s, const std::string& sql) {
    WriteTxn txn(s);
    s.Exec(sql.c_str());
    txn.Commit();
  };
  put();
  commit(other, "INSERT INTO job_applied(job_id, applied) VALUES (1, 1)");
  REQUIRE(kept());  // a table no entry is made of
  {
    WriteTxn txn(other);
    InsertJob(other, 0, "fanout", "{}", 1);  // a new job: not a counter delta
    txn.Commit();
  }
  REQUIRE(kept());
  commit(other, "INSERT INTO job_applied(job_id, applied) VALUES (2, 1)");
  commit(other, "INSERT INTO job_applied(job_id, applied) VALUES (3, 1)");
  commit(*shard, "INSERT INTO job_applied(job_id, applied) VALUES (4, 1)");  // its own
  REQUIRE(kept());  // a chain of three commits, each one adopted
  const int64_t adopted = cache.watch().adopted();
  REQUIRE(adopted >= 3);
  {
    WriteTxn txn(other);
    InsertJob(other, 0, kCounterDeltaKind, R"({"msg_id":1,"likes":1,"views":0})", 2);
    txn.Commit();
  }
  REQUIRE_FALSE(kept());  // a pending delta moves the row's counters
  put();
  {
    WriteTxn txn(other);
    MarkJobDone(other, 1);  // a fan-out job done: nothing a page shows
    txn.Commit();
  }
  REQUIRE(kept());
  {
    WriteTxn txn(other);  // the delta merged into its counter row, as a drain does
    other.Exec("INSERT INTO msg_counter(msg_id, like_count) VALUES (1, 1)");
    MarkJobDone(other, 2);
    txn.Commit();
  }
  REQUIRE_FALSE(kept());
  put();
  commit(other, "INSERT INTO msg_counter(msg_id) VALUES (5)");  // another message's row
  REQUIRE_FALSE(kept());  // the table is named: the whole shard goes
  put();
  {
    WriteTxn txn(other);  // a user made there: a name
    UserRow nine;
    nine.id = 9;
    nine.name = "nine";
    InsertUser(other, nine);
    txn.Commit();
  }
  REQUIRE_FALSE(kept());
  put();
  {
    WriteTxn txn(other);  // a read's activity recorded there (the applier's read marks)
    TouchUser(other, 9, 5);
    SetListsTouched(other, 9, 5);
    txn.Commit();
  }
  REQUIRE(kept());
  put();
  {
    WriteTxn txn(other);
    other.Exec(
        "INSERT INTO msg_info(msg_id, user_id, content, type, time) VALUES (8, 7, 'x', 0, 1)");
    // rolled back: nothing committed, nothing recorded
  }
  REQUIRE(kept());
  // Another process's commit is never in the log, even after commits that are.
  commit(other, "INSERT INTO job_applied(job_id, applied) VALUES (5, 1)");
  RawDb raw(shard->path());
  raw.Exec("INSERT INTO job_applied(job_id, applied) VALUES (6, 1)");
  commit(other, "INSERT INTO job_applied(job_id, applied) VALUES (7, 1)");
  REQUIRE_FALSE(kept());
  // After a drop the pragma's value is older than the commits adopted since; a later
  // commit by another process must still drop.
  put();
  commit(other, "INSERT INTO job_applied(job_id, applied) VALUES (8, 1)");
  REQUIRE(kept());
  raw.Exec("INSERT INTO job_applied(job_id, applied) VALUES (9, 1)");
  REQUIRE_FALSE(kept());
  put();
  commit(*shard, "INSERT INTO job_applied(job_id, applied) VALUES (10, 1)");
  raw.Exec("INSERT INTO job_applied(job_id, applied) VALUES (11, 1)");
  REQUIRE_FALSE(kept());
}

// Readers' lists: this connection's follows and active_on changes forget the reader's entry
// (the row listener); this process's other connections' (the background applier's) commits
// are adopted with the readers they name (the commit log's keys), and forget those readers
// only; page rows are not dropped by them; another process's commit drops every list.
TEST_CASE("message cache: readers' lists go by reader, for this process's connections") {
  TempDir dir;
  auto shard = FreshShard(dir);
  Shard other(0, shard->path(), false, nullptr);
  MessageCache cache(16);
  auto lists = [&](int64_t reader) {
    REQUIRE(cache.Usable(*shard));
    return cache.FindLists(*shard, reader) != nullptr;
  };
  auto put = [&](int64_t reader) {
    REQUIRE(cache.Usable(*shard));
    cache.PutLists(*shard, reader, MessageCache::ReaderLists{{2, 3}, {3}});
    REQUIRE(lists(reader));
  };
  auto in = [](Shard& s, const std::function<void()>& write) {
    WriteTxn txn(s);
    write();
    txn.Commit();
  };
  REQUIRE(cache.Usable(*shard));
  cache.Put(*shard, Row(1, 7, "row"));
  for (int64_t reader : {4, 8, 12}) put(reader);
  in(other, [&] { SetActiveOn(other, 4, 3, 1); });  // the applier's join
  CHECK_FALSE(lists(4));
  CHECK(lists(8));
  CHECK(lists(12));
  CHECK(cache.Find(0, 1) != nullptr);  // page rows stay
  put(4);
  in(other, [&] {
    DropActiveOn(other, 8, 3, 0);
    InsertRelation(other, 12, 5, kFollowing, 1);
    InsertRelation(other, 4, 5, kFan, 1);  // 4's fans: not its lists
  });
  CHECK(lists(4));
  CHECK_FALSE(lists(8));
  CHECK_FALSE(lists(12));
  put(8);
  put(12);
  in(*shard, [&] { DeleteRelation(*shard, 8, 2, kFollowing); });  // this connection's own
  CHECK_FALSE(lists(8));
  CHECK(lists(12));
  // The inbox floor is kept with the lists: a trim's raise forgets its reader's only.
  put(8);
  in(other, [&] { RaiseInboxFloor(other, 12, 50); });
  CHECK_FALSE(lists(12));
  CHECK(lists(8));
  put(12);
  in(*shard, [&] { RaiseInboxFloor(*shard, 8, 50); });
  CHECK_FALSE(lists(8));
  CHECK(lists(12));
  CHECK(cache.Find(0, 1) != nullptr);  // page rows stay
  in(other, [&] {                      // more keys than a commit names: every list goes
    for (int64_t author = 100; author < 100 + 4100; ++author) SetActiveOn(other, 40, author, 1);
  });
  CHECK_FALSE(lists(4));
  CHECK_FALSE(lists(12));
  put(4);
  {
    // A commit between the validation and the snapshot of a page's read transaction: the
    // snapshot has 4's new active_on, the entry does not; not used.
    cache.Hold(*shard);
    ReadTxn txn(*shard);
    in(other, [&] { DropActiveOn(other, 4, 3, 0); });
    shard->Query("SELECT count(*) FROM active_on").IntOr(0);  // the snapshot, taken now
    CHECK(cache.FindLists(*shard, 4) == nullptr);
    cache.Release(0);
  }
  put(4);
  RawDb(shard->path()).Exec("INSERT INTO job_applied(job_id, applied) VALUES (1, 1)");
  CHECK_FALSE(lists(4));  // another process: the shard's lists all go
}

// Readers' inboxes: forgotten by every named write of msg_index (this connection's, and
// this process's other connections' by reader), kept through deliveries made in a
// PatchedDeliveries scope, and patched by Delivered only where the reader's kept lists say
// it follows the author.
TEST_CASE("message cache: readers' inboxes go by reader, and take the deliveries patched in") {
  TempDir dir;
  auto shard = FreshShard(dir);
  Shard other(0, shard->path(), false, nullptr);
  MessageCache cache(64);
  using Rows = std::vector<std::pair<int64_t, int64_t>>;
  // The kept rows of reader, inside a held read transaction as a page reads them; nullopt
  // when none are kept.
  auto inbox = [&](int64_t reader) -> std::optional<Rows> {
    cache.Hold(*shard);
    ReadTxn txn(*shard);
    const MessageCache::ReaderInbox* kept = cache.FindInbox(*shard, reader);
    std::optional<Rows> rows;
    if (kept != nullptr) rows = kept->rows;
    cache.Release(0);
    return rows;
  };
  auto put = [&](int64_t reader, Rows rows, bool complete) {
    REQUIRE(cache.Usable(*shard));
    cache.PutInbox(*shard, reader, MessageCache::ReaderInbox{std::move(rows), complete});
    REQUIRE(inbox(reader));
  };
  auto lists = [&](int64_t reader, std::vector<int64_t> followees) {
    REQUIRE(cache.Usable(*shard));
    cache.PutLists(*shard, reader, MessageCache::ReaderLists{std::move(followees), {}});
  };
  auto in = [](Shard& s, const std::function<void()>& write) {
    WriteTxn txn(s);
    write();
    txn.Commit();
  };
  put(4, {{30, 2}, {20, 3}}, true);
  put(8, {{30, 2}}, true);
  // Named writes: another of this process's connections forgets the readers it named.
  in(other, [&] { InsertInbox(other, {4, 40, 4, 0}); });
  CHECK_FALSE(inbox(4));
  CHECK(inbox(8));
  put(4, {{30, 2}, {20, 3}}, true);
  in(*shard, [&] { DeleteInbox(*shard, 8, 30); });  // this connection's own
  CHECK_FALSE(inbox(8));
  CHECK(inbox(4));
  // A delivery in a PatchedDeliveries scope names no one: every inbox stays (stale until
  // patched, which the server does once it is committed).
  InsertRelation(other, 4, 2, kFollowing, 0);
  InsertRelation(other, 8, 2, kFollowing, 0);
  put(8, {{30, 2}}, true);
  in(other, [&] {
    PatchedDeliveries quiet;
    DeliverInboxMany(other, {4, 8}, "[4,8]", 50, 2, 0);
  });
  CHECK(inbox(4) == Rows{{30, 2}, {20, 3}});
  CHECK(inbox(8) == Rows{{30, 2}});
  // Patched: 4's lists say it follows 2, so 50 goes in front; 8 has no lists kept, so its
  // inbox is forgotten; a failed delivery forgets too.
  lists(4, {2, 3});
  cache.Delivered(0, 4, 50, 2, true);
  CHECK(inbox(4) == Rows{{50, 2}, {30, 2}, {20, 3}});
  cache.Delivered(0, 4, 50, 2, true);  // read after its commit already: once
  CHECK(inbox(4) == Rows{{50, 2}, {30, 2}, {20, 3}});
  cache.Delivered(0, 8, 50, 2, true);
  CHECK_FALSE(inbox(8));
  cache.Delivered(0, 4, 60, 9, true);  // 4 does not follow 9: the insert added nothing
  CHECK(inbox(4) == Rows{{50, 2}, {30, 2}, {20, 3}});
  cache.Delivered(0, 4, 25, 3, true);  // complete: in its place
  CHECK(inbox(4) == Rows{{50, 2}, {30, 2}, {25, 3}, {20, 3}});
  cache.Delivered(0, 4, 70, 2, false);
  CHECK_FALSE(inbox(4));
  // An incomplete inbox takes nothing below its last row, and keeps kInboxKept rows.
  Rows full;
  for (int64_t id = 1000; static_cast<int64_t>(full.size()) < MessageCache::kInboxKept; id -= 10)
    full.emplace_back(id, 2);
  put(4, full, false);
  lists(4, {2});
  cache.Delivered(0, 4, 5, 2, true);
  CHECK(inbox(4) == full);
  cache.Delivered(0, 4, 2000, 2, true);
  Rows moved = full;
  moved.insert(moved.begin(), {2000, 2});
  moved.pop_back();
  CHECK(inbox(4) == moved);
  // A trim names its reader, in the scope too; another process drops every inbox.
  put(8, {{30, 2}}, true);
  in(other, [&] {
    PatchedDeliveries quiet;
    for (int64_t id = 100; id < 100 + 4 * kTrimEvery; ++id) {
      DeliverInboxMany(other, {8}, "[8]", id, 2, 0);
      MaybeTrimInbox(other, 8, id, 1);
    }
  });
  REQUIRE(InboxFloor(*shard, 8) > 0);  // trimmed
  CHECK_FALSE(inbox(8));
  put(8, {{30, 2}}, true);
  RawDb(shard->path()).Exec("INSERT INTO job_applied(job_id, applied) VALUES (1, 1)");
  CHECK_FALSE(inbox(4));
  CHECK_FALSE(inbox(8));
}

// Readers' states: forgotten by every named write of last_active, lists_touched and the home
// timeline's mark (this connection's, and this process's other connections' by reader, an
// expiry's for all), kept through writes in a QuietReaderChanges scope, raised in place, and
// brought back by Posted after the author's own post touched last_active.
TEST_CASE("message cache: readers' states go by reader, quiet writes keep them") {
  TempDir dir;
  auto shard = FreshShard(dir);
  Shard other(0, shard->path(), false, nullptr);
  MessageCache cache(64);
  using State = MessageCache::ReaderState;
  auto state = [&](int64_t reader) -> std::optional<std::vector<int64_t>> {
    REQUIRE(cache.Usable(*shard));
    const State* kept = cache.FindReader(*shard, reader);
    if (kept == nullptr) return std::nullopt;
    return std::vector<int64_t>{kept->last_active, kept->lists_touched, kept->seen};
  };
  auto put = [&](int64_t reader, State s) {
    REQUIRE(cache.Usable(*shard));
    cache.PutReader(*shard, reader, s);
    REQUIRE(state(reader));
  };
  auto in = [](Shard& s, const std::function<void()>& write) {
    WriteTxn txn(s);
    write();
    txn.Commit();
  };
  for (int64_t user : {4, 8}) InsertUser(*shard, UserRow{user, "u" + std::to_string(user)});
  put(4, {100, 50, 7});
  put(8, {100, 50, 7});
  // Another of this process's connections forgets the readers it named.
  in(other, [&] { TouchUser(other, 4, 200); });
  CHECK_FALSE(state(4));
  CHECK(state(8));
  put(4, {200, 50, 7});
  in(other, [&] { SetSeen(other, 8, kSeenTimeline, 9, 200); });
  CHECK_FALSE(state(8));
  CHECK(state(4));
  put(8, {100, 50, 9});
  in(other, [&] { SetSeen(other, 8, kSeenNotify, 11, 200); });  // not the home timeline's
  CHECK(state(8));
  // This connection's own write forgets (sets aside) the reader's.
  in(*shard, [&] { SetListsTouched(*shard, 8, 300); });
  CHECK_FALSE(state(8));
  CHECK(state(4));
  // Quiet writes (a server paying the reads it held) name no one; what they write is
  // raised in, the larger of each value.
  put(8, {100, 300, 9});
  in(other, [&] {
    QuietReaderChanges quiet;
    TouchUser(other, 4, 400);
    SetListsTouched(other, 4, 400);
    SetSeen(other, 4, kSeenTimeline, 12, 400);
  });
  CHECK(state(4) == std::vector<int64_t>{200, 50, 7});  // stale until raised, as a hold does
  cache.RaiseReader(4, {400, 400, 12});
  CHECK(state(4) == std::vector<int64_t>{400, 400, 12});
  cache.RaiseReader(4, {0, 0, 10});
  CHECK(state(4) == std::vector<int64_t>{400, 400, 12});
  CHECK(state(8) == std::vector<int64_t>{100, 300, 9});
  // The author's own post on this connection touches last_active: set aside, and Posted
  // brings it back with the post's time. Two changes before Posted: forgotten.
  MsgRow post;
  post.id = 500;
  post.user_id = 4;
  post.time = 450;
  in(*shard, [&] { TouchUser(*shard, 4, 450); });
  CHECK_FALSE(state(4));
  REQUIRE(cache.Usable(*shard));
  cache.Posted(*shard, post);
  CHECK(state(4) == std::vector<int64_t>{450, 400, 12});
  in(*shard, [&] {
    TouchUser(*shard, 4, 460);
    SetSeen(*shard, 4, kSeenTimeline, 13, 460);
  });
  post.time = 460;
  REQUIRE(cache.Usable(*shard));
  cache.Posted(*shard, post);
  CHECK_FALSE(state(4));
  // An expiry of home timeline marks names every reader; another process drops them all.
  put(4, {460, 400, 13});
  in(other, [&] { ExpireSeen(other, kSeenTimeline, 1LL << 40); });
  CHECK_FALSE(state(4));
  CHECK_FALSE(state(8));
  put(4, {460, 400, 13});
  RawDb(shard->path()).Exec("INSERT INTO job_applied(job_id, applied) VALUES (1, 1)");
  CHECK_FALSE(state(4));
}

// The authors' newest posts: forgotten by this connection's author_feed writes (which the
// update hook does not see: tables/author_feed.cc tells the listeners), by an archive's
// move (every author), and dropped by another connection's commit to author_feed, but
// kept through this process's other connections' commits that leave it alone.
TEST_CASE("message cache: an author's cached posts go with any change of the author's outbox") {
  TempDir dir;
  auto shard = FreshShard(dir);
  Shard other(0, shard->path(), false, nullptr);
  MessageCache cache(1000);
  auto put = [&](int64_t author) {
    REQUIRE(cache.Usable(*shard));
    cache.PutPosts(*shard, author, MessageCache::AuthorPosts{{30 + author, 20 + author}, true});
  };
  auto kept = [&](int64_t author) {
    REQUIRE(cache.Usable(*shard));
    const MessageCache::Posts hit = cache.FindPosts(0, author);
    if (hit != nullptr) REQUIRE(hit->ids == std::vector<int64_t>{30 + author, 20 + author});
    return hit != nullptr;
  };
  put(7);
  put(8);
  REQUIRE(kept(7));
  REQUIRE(cache.FindPosts(1, 7) == nullptr);  // asked on another shard: a miss
  REQUIRE(kept(8));
  InsertAuthorFeed(*shard, 7, 99, 0);
  REQUIRE_FALSE(kept(7));
  REQUIRE(kept(8));  // another author's stay
  put(7);
  DeleteAuthorFeed(*shard, 8, 28);
  REQUIRE_FALSE(kept(8));
  REQUIRE(kept(7));
  put(8);
  NoteAuthorFeedMoved(*shard, 0);
  REQUIRE_FALSE(kept(7));
  REQUIRE_FALSE(kept(8));
  put(7);
  {
    WriteTxn txn(*shard);  // nothing is stored inside a write transaction
    cache.PutPosts(*shard, 8, MessageCache::AuthorPosts{{1}, true});
  }
  REQUIRE_FALSE(kept(8));
  {
    WriteTxn txn(other);
    other.Exec("INSERT INTO job_applied(job_id, applied) VALUES (1, 1)");
    txn.Commit();
  }
  REQUIRE(kept(7));  // the applier's commit of another table: adopted
  {
    WriteTxn txn(other);
    InsertAuthorFeed(other, 9, 77, 0);  // another author, on another connection
    txn.Commit();
  }
  REQUIRE_FALSE(kept(7));  // author_feed is named: the whole shard goes
  put(7);
  RawDb raw(shard->path());  // another process
  raw.Exec("INSERT INTO job_applied(job_id, applied) VALUES (2, 1)");
  REQUIRE_FALSE(kept(7));
  // Bounded: capacity / 4 + 1 authors, then CLOCK evicts one for each new one: every bit is
  // set after the finds, so the hand clears them all and takes the first.
  MessageCache small(16);
  REQUIRE(small.Usable(*shard));
  for (int64_t author = 1; author <= 5; ++author)
    small.PutPosts(*shard, author, MessageCache::AuthorPosts{{author + 4}, true});
  for (int64_t author = 1; author <= 5; ++author) REQUIRE(small.FindPosts(0, author) != nullptr);
  small.PutPosts(*shard, 6, MessageCache::AuthorPosts{{10}, true});
  REQUIRE(small.FindPosts(0, 1) == nullptr);
  for (int64_t author = 2; author <= 6; ++author) REQUIRE(small.FindPosts(0, author) != nullptr);
  small.PutPosts(*shard, 7, MessageCache::AuthorPosts{{11}, true});  // 2's bit was set again
  REQUIRE(small.FindPosts(0, 7) != nullptr);
  int kept_of_five = 0;
  for (int64_t author = 2; author <= 6; ++author)
    kept_of_five += small.FindPosts(0, author) ? 1 : 0;
  REQUIRE(kept_of_five == 4);
}

// End to end: a server with a small message cache (evicting) against a process without
// one, over random writes through both. After each step every user's home timeline and
// own posts, and a message's comment and repost lists, must be the same through both.
TEST_CASE("message cache: a server's timelines and lists match a process without the cache") {
  for (const char* feed : {"hybrid", "push", "pull"}) {
    DYNAMIC_SECTION(feed) {
      test::Cluster c(test::ClusterOptions{4, feed, 3});
      const int users = 6;
      for (int u = 1; u <= users; ++u) c.AddUser("u" + std::to_string(u));
      for (int u = 1; u <= users; ++u)
        for (int v = 1; v <= users; ++v)
          if (u != v && (u + v) % 3 != 0) c.Follow(u, v);
      auto server = CachingServer(c.dir(), 24);
      const EmbeddedOptions plain = Plain(c.dir());
      auto check = [&] {
        server->Idle();  // held deliveries and joins applied: the other process sees them
        for (int u = 1; u <= users; ++u)
          for (bool posts : {false, true}) {
            const Request page{"timeline", {{"user", u}, {"count", 30}, {"posts", posts}}};
            auto hot = server->Execute(page);
            REQUIRE(hot.ok());
            server->Idle();
            auto cold = OpenEmbedded(plain)->Execute(page);
            REQUIRE(cold.ok());
            INFO("user " << u << (posts ? " posts" : " home"));
            REQUIRE(hot.value().dump() == cold.value().dump());
          }
      };
      std::vector<int64_t> msgs;
      test::XorShift next;
      auto run = [&](bool on_server, const std::string& op, Json args) {
        auto r = on_server ? server->Execute(Request{op, args})
                           : OpenEmbedded(plain)->Execute(Request{op, args});
        return r.ok() ? r.value() : Json();
      };
      for (int step = 0; step < 120; ++step) {
        const bool on_server = next() % 3 != 0;  // a third through another process
        const int64_t user = static_cast<int64_t>(next() % users) + 1;
        const std::string any = msgs.empty() ? "0" : std::to_string(msgs[next() % msgs.size()]);
        const std::string text = "text " + std::to_string(step);
        switch (msgs.size() < 6 ? 0 : next() % 9) {
          case 0: {
            Json args{{"user", user}, {"content", text}};
            if (next() % 4 == 0) args["attrs"] = Json::array({"topic=t" + std::to_string(step)});
            Json m = run(on_server, "post", args);
            if (!m.is_null()) msgs.push_back(test::IdOf(m));
            break;
          }
          case 1: {
            Json m = run(on_server, "repost", {{"user", user}, {"msg", any}});
            if (!m.is_null()) msgs.push_back(test::IdOf(m));
            break;
          }
          case 2:
            run(on_server, "comment", {{"user", user}, {"msg", any}, {"content", text}});
            break;
          case 3:
            run(on_server, "like", {{"user", user}, {"msg", any}});
            break;
          case 4:
            run(on_server, "unlike", {{"user", user}, {"msg", any}});
            break;
          case 5:  // its author's only, else refused and nothing changes
            run(on_server, "edit", {{"user", user}, {"msg", any}, {"content", text + " edited"}});
            break;
          case 6:
            run(on_server, "delete", {{"user", user}, {"msg", any}});
            break;
          case 7:
            run(on_server, "show", {{"msg", any}});  // a view: a pending delta
            break;
          default:
            run(on_server, next() % 2 ? "follow" : "unfollow",
                {{"user", user}, {"target", static_cast<int64_t>(next() % users) + 1}});
        }
        if (step % 6 == 5) check();
        if (step % 20 == 19 && !msgs.empty()) {
          const Request lists[] = {
              {"comments", {{"msg", any}}},
              {"reposts", {{"msg", any}}},
          };
          for (const Request& list : lists) {
            auto hot = server->Execute(list);
            auto cold = OpenEmbedded(plain)->Execute(list);
            REQUIRE(hot.ok() == cold.ok());
            if (hot.ok()) REQUIRE(hot.value().dump() == cold.value().dump());
          }
        }
      }
      check();
    }
  }
}

// The followees' newest posts (AuthorPosts): more posts than the cache keeps of one pulled
// author, read a page at a time down through them (by max_id and by page number), with
// posts and deletes through the server (its row listener) and through another process (the
// shard's generation) in between: every page is the one a process without the cache reads.
TEST_CASE("message cache: pulled authors' cached posts give the pages of a process without") {
  test::Cluster c(test::ClusterOptions{4, "hybrid", 3});
  c.EditConfig([](Json& j) { j["celebrity_threshold"] = 2; });
  for (int u = 1; u <= 5; ++u) c.AddUser("u" + std::to_string(u));
  for (int fan = 2; fan <= 5; ++fan) c.Follow(fan, 1);  // 1: a celebrity, pulled
  c.Follow(2, 3);
  c.Follow(4, 3);  // 3: two fans, a celebrity too
  c.Follow(2, 5);  // 5: pushed (1 fan)
  auto server = CachingServer(c.dir(), 1000);
  const EmbeddedOptions plain = Plain(c.dir());
  std::vector<int64_t> msgs;  // user 1's, not deleted
  test::XorShift next;
  auto run = [&](bool on_server, const std::string& op, Json args) {
    auto r = on_server ? server->Execute(Request{op, args})
                       : OpenEmbedded(plain)->Execute(Request{op, args});
    INFO(op << " " << args.dump());
    REQUIRE(r.ok());
    return r.value();
  };
  auto post = [&](bool on_server, int64_t user, int step) {
    const int64_t id = test::IdOf(
        run(on_server, "post", {{"user", user}, {"content", "p" + std::to_string(step)}}));
    if (user == 1) msgs.push_back(id);
  };
  for (int step = 0; step < 3 * MessageCache::kPostsKept; ++step)
    post(true, step % 5 == 0 ? 3 : 1, step);
  auto same = [&](const Json& args) {
    auto hot = server->Execute(Request{"timeline", args});
    REQUIRE(hot.ok());
    server->Idle();
    auto cold = OpenEmbedded(plain)->Execute(Request{"timeline", args});
    REQUIRE(cold.ok());
    INFO(args.dump());
    REQUIRE(hot.value().dump() == cold.value().dump());
    return hot.value();
  };
  auto walk = [&](int64_t reader, int64_t count) {
    int64_t max_id = 0, seen = 0;
    for (;;) {
      Json args{{"user", reader}, {"count", count}};
      if (max_id != 0) args["max_id"] = std::to_string(max_id);
      Json page = same(args);
      if (page.empty()) break;
      seen += static_cast<int64_t>(page.size());
      max_id = test::IdOf(page.back());
    }
    for (int64_t p = 0; p * count < seen + count; ++p)
      same(Json{{"user", reader}, {"count", count}, {"page", p}});
    return seen;
  };
  for (int round = 0; round < 6; ++round) {
    const bool on_server = round % 2 == 0;
    for (int k = 0; k < 5; ++k) post(on_server, k % 2 ? 1 : 3, 1000 + round * 10 + k);
    const size_t gone = next() % msgs.size();
    run(on_server, "delete", {{"user", 1}, {"msg", std::to_string(msgs[gone])}});
    msgs.erase(msgs.begin() + static_cast<std::ptrdiff_t>(gone));
    for (int64_t reader : {2, 4, 5}) {
      REQUIRE(walk(reader, 7) > MessageCache::kPostsKept);
      same(Json{{"user", reader}, {"count", 50}});
    }
  }
}

}  // namespace
}  // namespace weibo

namespace weibo {
namespace {

// A message a server has just made is in its cache with the row a read would find: its
// poster's own posts then read no page row (GetPageRows' json_each), and are the page a
// process without the cache reads. A message with attrs is not kept (its body is read as
// stored), and is read.
TEST_CASE("message cache: a server keeps the row of a message it has just made") {
  test::Cluster c(test::ClusterOptions{4, "hybrid", 3});
  for (int u = 1; u <= 3; ++u) c.AddUser("u" + std::to_string(u));
  EmbeddedOptions eo = test::ServerOptions(c.dir());
  eo.message_cache = 64;
  eo.explain = true;
  auto server = OpenEmbedded(eo);
  auto page_rows = [&](int64_t user) {
    const Request page{"timeline", {{"user", user}, {"posts", true}}};
    server->Explain();  // what came before
    auto hot = server->Execute(page);
    REQUIRE(hot.ok());
    int64_t statements = 0;
    for (const std::string& line : server->Explain())
      if (line.find("json_each") != std::string::npos) ++statements;
    auto cold = OpenEmbedded(Plain(c.dir()))->Execute(page);
    REQUIRE(cold.ok());
    CHECK(hot.value().dump() == cold.value().dump());
    return statements;
  };
  auto made = server->Execute(Request{"post", {{"user", 1}, {"content", "first"}}});
  REQUIRE(made.ok());
  CHECK(page_rows(1) == 0);
  auto repost =
      server->Execute(Request{"repost", {{"user", 2}, {"msg", test::IdOf(made.value())}}});
  REQUIRE(repost.ok());
  // The repost's row is kept; its root's was forgotten, as the repost counts on it (a
  // pending delta): one statement, on the root's shard.
  CHECK(page_rows(2) == 1);
  REQUIRE(server
              ->Execute(Request{
                  "post",
                  {{"user", 3}, {"content", "with attrs"}, {"attrs", Json::array({"topic=t"})}}})
              .ok());
  CHECK(page_rows(3) == 1);
}

// A followee's post through the server keeps the followee's cached posts, with the post in
// front: the next read of a reader who pulls it reads no outbox (no author_part statement:
// in hybrid the reader's own posts are in its inbox), and equals a process without the cache. So
// does a comment (not one of the posts). A post through another process is read again.
TEST_CASE("message cache: a server's post keeps its author's cached posts, new one first") {
  test::Cluster c(test::ClusterOptions{4, "hybrid", 3});
  c.EditConfig([](Json& j) { j["celebrity_threshold"] = 1; });
  for (int u = 1; u <= 3; ++u) c.AddUser("u" + std::to_string(u));
  c.Follow(2, 1);  // 1: a celebrity, pulled by 2
  c.Follow(3, 1);
  EmbeddedOptions eo = test::ServerOptions(c.dir());
  eo.message_cache = 64;
  eo.explain = true;
  auto server = OpenEmbedded(eo);
  auto make = [&](Executor& by, const std::string& op, Json args) {
    auto r = by.Execute(Request{op, args});
    REQUIRE(r.ok());
    return r.value();
  };
  const Json first = make(*server, "post", {{"user", 1}, {"content", "one"}});
  // Outbox statements of one read of 2's home, and the page against a process without the
  // cache.
  auto outbox_reads = [&] {
    server->Explain();
    auto hot = server->Execute(Request{"timeline", {{"user", 2}}});
    REQUIRE(hot.ok());
    int64_t statements = 0;
    for (const std::string& line : server->Explain())
      if (line.find("FROM author_part") != std::string::npos) ++statements;
    server->Idle();
    auto cold = OpenEmbedded(Plain(c.dir()))->Execute(Request{"timeline", {{"user", 2}}});
    REQUIRE(cold.ok());
    CHECK(hot.value().dump() == cold.value().dump());
    return std::make_pair(statements, hot.value());
  };
  CHECK(outbox_reads().first == 1);  // 1's, read and kept
  CHECK(outbox_reads().first == 0);  // from the cache
  const Json second = make(*server, "post", {{"user", 1}, {"content", "two"}});
  auto [statements, page] = outbox_reads();
  CHECK(statements == 0);
  REQUIRE(page.size() == 2);
  CHECK(test::IdOf(page[0]) == test::IdOf(second));
  make(*server, "comment", {{"user", 1}, {"msg", test::IdOf(first)}, {"content", "c"}});
  CHECK(outbox_reads().first == 0);
  auto other = OpenEmbedded(Plain(c.dir()));
  const Json third = make(*other, "post", {{"user", 1}, {"content", "three"}});
  std::tie(statements, page) = outbox_reads();
  CHECK(statements == 1);  // another process's commit: read again
  REQUIRE(page.size() == 3);
  CHECK(test::IdOf(page[0]) == test::IdOf(third));
}

// A reader's cached lists (followees, active_on) go when they change: a follow and an
// eviction from an author's active list, made through the server itself, through another
// process, or by a server's background applier. Evicted, the reader must pull the author:
// a read from stale lists would look for the author's next post in the inbox, where it
// never arrives.
TEST_CASE("message cache: a reader's cached lists go when its followees or active lists change") {
  for (const char* by : {"server", "other process", "background applier"}) {
    DYNAMIC_SECTION(by) {
      const std::string how = by;
      test::Cluster c(test::ClusterOptions{4, "hybrid", 3});
      c.EditConfig([](Json& j) { j["active_list"] = 1; });
      const int64_t star = c.AddUser("star"), a = c.AddUser("a"), b = c.AddUser("b"),
                    d = c.AddUser("d");
      for (int64_t reader : {a, b}) c.TimelineIds(reader);  // readers: a follow lists them
      c.Follow(a, star);                                    // a on star's list (length 1)
      EmbeddedOptions eo = test::ServerOptions(c.dir());
      eo.message_cache = 64;
      eo.background_applies = how == "background applier";
      auto server = OpenEmbedded(eo);
      auto other = OpenEmbedded(Plain(c.dir()));
      Executor& writer = how == "other process" ? *other : *server;
      auto same = [&](int64_t reader) {
        auto hot = server->Execute(Request{"timeline", {{"user", reader}}});
        REQUIRE(hot.ok());
        server->Idle();
        auto cold = OpenEmbedded(Plain(c.dir()))->Execute(Request{"timeline", {{"user", reader}}});
        REQUIRE(cold.ok());
        REQUIRE(hot.value().dump() == cold.value().dump());
        return hot.value();
      };
      REQUIRE(writer.Execute(Request{"post", {{"user", star}, {"content", "one"}}}).ok());
      server->Idle();
      REQUIRE(same(a).size() == 1);  // a's lists kept: star followed and active
      REQUIRE(writer.Execute(Request{"follow", {{"user", a}, {"target", d}}}).ok());
      REQUIRE(writer.Execute(Request{"post", {{"user", d}, {"content", "d's"}}}).ok());
      server->Idle();
      REQUIRE(same(a).size() == 2);  // the new followee's post
      // b follows star and takes the list's one place: a is evicted (active_on dropped).
      REQUIRE(writer.Execute(Request{"follow", {{"user", b}, {"target", star}}}).ok());
      server->Idle();
      REQUIRE(test::RawDb(c.ShardPath(static_cast<int>(a % 4)))
                  .Int("SELECT count(*) FROM active_on WHERE user_id = " + std::to_string(a) +
                       " AND author_id = " + std::to_string(star)) == 0);
      REQUIRE(writer.Execute(Request{"post", {{"user", star}, {"content", "two"}}}).ok());
      server->Idle();
      const Json page = same(a);
      REQUIRE(page.size() == 3);
      CHECK(page[0].at("content") == "two");  // pulled
    }
  }
}

}  // namespace
}  // namespace weibo
