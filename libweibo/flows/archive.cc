// archive (seed 000's layered archive, weibo-archive(1)): moves the rows of messages older
// than --before out of each shard into the shard's archive file, archive-NN.db, which has
// the shard's schema. "Weibo has a time axis: records before a given time can be archived
// in layers, and the newest tables in front carry far less" (seed 000).
//
// Shards: each shard the process owns (all of them embedded; a cluster node its own, the
// broker sends the op to every node), and its archive. Rows moved, all keyed by an id
// below before_id (ids sort by time): msg_info, msg_counter, msg_like, msg_history, the
// author outboxes (author_feed, author_part), the msg_msg_relation rows of those messages
// (the comments and reposts *of* a message live beside it and go with it, so a message's
// counters and its pages stay in one file), then the readers' inboxes (msg_index) of the
// shard's users. user_info, the follows, the outbox and everything else stay.
//
// The move of one batch, in this order (weibo(7), ARCHIVE, says why):
//   1. BEGIN IMMEDIATE on the shard: its writers wait until the batch is done;
//   2. in the archive, one transaction: drop what an interrupted batch left there (rows at
//      or above the shard's archived_to mark), copy the batch's rows from the shard
//      (INSERT ... SELECT through an ATTACH of the shard, read only), fold the like and
//      view deltas still pending in the shard's outbox into the copied counters; COMMIT,
//      and sync the archive's WAL whatever the durability: the copy is on disk before
//      the shard lets go of the rows;
//   3. in the shard's transaction: delete the batch's rows, set archived_to; COMMIT.
// A kill before 3's COMMIT leaves the rows live (and a stale copy the next run replaces);
// after it they are archived. Readers look at the shard first and the archive second
// (flows/archive.h), so they see each message once at every point.
//
// Only one run moves a shard at a time: a run takes an flock on DATA/archive-NN.db.lock of
// every shard it moves, without waiting, before it starts (archive_running when another
// holds one). A killed run's locks go with its process; the next run resumes, since what
// was moved is no longer there to move.
#include "flows/archive.h"

#include <fcntl.h>
#include <sqlite3.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>

#include "flows/flows.h"
#include "jobs/jobs.h"
#include "storage/failure.h"
#include "storage/files.h"
#include "storage/gene_id.h"
#include "tables/author_feed.h"
#include "tables/msg_index.h"
#include "tables/msg_msg_relation.h"

namespace weibo {
namespace {

constexpr int64_t kDefaultBatch = 500;

std::string MetaOf(Shard& shard, const char* key) {
  Stmt& s = shard.Query("SELECT value FROM meta WHERE key = ?");
  s.Bind(1, std::string(key));
  std::string value = s.Step() ? s.Text(0) : std::string();
  s.Reset();
  return value;
}

// The archive's connection reads the shard through an ATTACH named live while a run moves
// it: the copy is one INSERT ... SELECT a table. Only read through it: the archive and the
// shard are still two files with two commits (SQLite commits a transaction over attached
// WAL files atomically in each file, not across them). Detached when the run is done, so
// that no other transaction of the archive's connection involves the shard.
class LiveAttached {
 public:
  LiveAttached(Shard& archive, Shard& live) : archive_(archive) {
    archive_.Query("ATTACH DATABASE ? AS live").Bind(1, live.path()).Run();
  }
  ~LiveAttached() {
    try {
      archive_.Exec("DETACH DATABASE live");
    } catch (...) {  // the connection is going anyway; a destructor does not throw
    }
  }
  LiveAttached(const LiveAttached&) = delete;
  LiveAttached& operator=(const LiveAttached&) = delete;

 private:
  Shard& archive_;
};

// The archive's side of a batch: a deferred BEGIN, not WriteTxn's BEGIN IMMEDIATE, which
// takes a write lock on every attached database — the shard's too, held by this batch's
// own shard transaction on the other connection. The first statement, a write, takes the
// archive's write lock (no other connection writes the archive without the shard's lock).
class CopyTxn {
 public:
  explicit CopyTxn(Shard& archive) : archive_(archive) { archive_.Exec("BEGIN"); }
  ~CopyTxn() {
    if (!open_) return;
    try {
      archive_.Exec("ROLLBACK");
    } catch (...) {  // an exception is on its way already
    }
  }
  CopyTxn(const CopyTxn&) = delete;
  CopyTxn& operator=(const CopyTxn&) = delete;
  // Commits, then syncs the archive's WAL whatever the durability: the copy is on disk
  // before the shard deletes anything.
  void Commit() {
    archive_.Exec("COMMIT");
    open_ = false;
    archive_.SyncWal();
  }

 private:
  Shard& archive_;
  bool open_ = true;
};

// The tables keyed by the message id, with that key's column: moved for ids below the
// batch's top.
struct Keyed {
  const char* table;
  const char* key;
};
const Keyed kMsgTables[] = {{"msg_info", "msg_id"},
                            {"msg_counter", "msg_id"},
                            {"msg_like", "msg_id"},
                            {"msg_history", "msg_id"},
                            {"msg_msg_relation", "referenced_msg_id"},
                            {"author_feed", "msg_id"}};

// Step 2 for the message tables: every row keyed below top. A query per table, built from
// the constant names above (no value is ever put in the SQL text).
int64_t CopyMessages(Shard& archive, int64_t stale_from, int64_t top) {
  int64_t relations = 0;
  for (const Keyed& t : kMsgTables) {
    const std::string where = std::string(" WHERE ") + t.key;
    archive.Query(("DELETE FROM main." + std::string(t.table) + where + " >= ?").c_str())
        .Bind(1, stale_from)
        .Run();
    int n = archive
                .Query(("INSERT OR REPLACE INTO main." + std::string(t.table) +
                        " SELECT * FROM live." + t.table + where + " < ?")
                           .c_str())
                .Bind(1, top)
                .Run();
    if (std::string(t.table) == "msg_msg_relation") relations = n;
  }
  archive
      .Query(
          "INSERT OR IGNORE INTO main.author_part(user_id, part) "
          "SELECT DISTINCT user_id, part FROM live.author_feed WHERE msg_id < ?")
      .Bind(1, top)
      .Run();
  // Likes and views still pending as counter_delta jobs of the shard (flows/like.cc): in
  // the archived counter now; the job, applied later, finds no live row and adds nothing.
  archive
      .Query(
          "WITH d AS (SELECT json_extract(payload, '$.msg_id') AS msg_id, "
          "sum(json_extract(payload, '$.likes')) AS likes, "
          "sum(json_extract(payload, '$.views')) AS views FROM live.outbox "
          "WHERE state = 0 AND kind = ?1 AND target_shard = ?2 GROUP BY 1) "
          "UPDATE main.msg_counter SET like_count = like_count + d.likes, "
          "view_count = view_count + d.views FROM d "
          "WHERE main.msg_counter.msg_id = d.msg_id "
          "AND d.msg_id IN (SELECT msg_id FROM live.msg_counter WHERE msg_id < ?3)")
      .BindAll(std::string(CounterDeltaJob::kKind), int64_t{archive.index()}, top)
      .Run();
  return relations;
}

// Step 3 for the message tables; the number of messages deleted. archived_to = mark:
// everything of this shard keyed below it that the archive holds is archived, and what
// the archive holds at or above it a batch left there uncommitted (step 2 drops it).
int64_t DeleteMessages(Shard& live, int64_t mark, int64_t top, bool last) {
  int64_t messages = 0;
  NoteAuthorFeedMoved(live, 0);  // every author's rows, for a server's caches
  for (const Keyed& t : kMsgTables) {
    int n = live.Query(("DELETE FROM " + std::string(t.table) + " WHERE " + t.key + " < ?").c_str())
                .Bind(1, top)
                .Run();
    if (std::string(t.table) == "msg_info") messages = n;
  }
  // Partitions with no message left (a scan of author_part: once, in the last batch).
  if (last)
    live.Query(
            "DELETE FROM author_part WHERE part <= ? AND NOT EXISTS (SELECT 1 FROM author_feed f "
            "WHERE f.user_id = author_part.user_id AND f.part = author_part.part)")
        .Bind(1, PartOf(top - 1))
        .Run();
  live.Query("INSERT OR REPLACE INTO meta(key, value) VALUES ('archived_to', ?)")
      .Bind(1, std::to_string(mark))
      .Run();
  return messages;
}

}  // namespace

ArchiveMoved ArchiveShard(Context& ctx, int index, int64_t before_id, int64_t batch) {
  Shard& live = ctx.shards().At(index);
  Shard& archive = *ctx.shards().ArchiveAt(index, true);
  LiveAttached attached(archive, live);
  ArchiveMoved moved;
  for (bool last = false; !last;) {  // the messages, batch by batch, oldest first
    WriteTxn txn(live);
    const std::string mark = MetaOf(live, "archived_to");
    const int64_t stale_from = mark.empty() ? 0 : std::stoll(mark);
    Stmt& nth =
        live.Query("SELECT msg_id FROM msg_info WHERE msg_id < ? ORDER BY msg_id LIMIT 1 OFFSET ?");
    const int64_t at = nth.BindAll(before_id, batch - 1).IntOr(0);
    last = at == 0;
    const int64_t top = last ? before_id : at + 1;
    {
      CopyTxn copy(archive);
      moved.relations += CopyMessages(archive, stale_from, top);
      copy.Commit();
    }
    moved.messages += DeleteMessages(live, std::max(stale_from, top), top, last);
    txn.Commit();
    ++moved.batches;
    ctx.Progress("archive: messages", index + 1, ctx.shards().count());
  }
  for (int64_t after = 0;;) {  // the inboxes of the shard's users, batch users at a time
    WriteTxn txn(live);
    std::vector<int64_t> users =
        live.Query("SELECT user_id FROM user_info WHERE user_id > ? ORDER BY user_id LIMIT ?")
            .BindAll(after, batch)
            .Ints();
    if (users.empty()) break;
    {
      CopyTxn copy(archive);
      archive
          .Query(
              "INSERT OR REPLACE INTO main.msg_index SELECT * FROM live.msg_index "
              "WHERE user_id BETWEEN ?1 AND ?2 AND msg_id < ?3")
          .BindAll(users.front(), users.back(), before_id)
          .Run();
      copy.Commit();
    }
    moved.inbox +=
        live.Query("DELETE FROM msg_index WHERE user_id BETWEEN ?1 AND ?2 AND msg_id < ?3")
            .BindAll(users.front(), users.back(), before_id)
            .Run();
    // Named as msg_index's own writers name them (tables/msg_index.h): the user ids
    // between the first and the last are all in users (one shard's, in order).
    for (int64_t user : users) live.NoteRowChange(SQLITE_DELETE, kInboxChange, user);
    txn.Commit();
    ++moved.batches;
    after = users.back();
  }
  return moved;
}

std::optional<ArchiveLock> ArchiveLock::TryTake(Context& ctx, int index) {
  const std::string path =
      ctx.shards().dir() + "/" + ArchiveFileName(index, ctx.shards().count()) + ".lock";
  int fd = OpenPrivate(path, O_RDWR);
  if (fd < 0) Fail(Code::kStorageError, "cannot open " + path);
  if (flock(fd, LOCK_EX | LOCK_NB) == 0) return ArchiveLock(fd);
  close(fd);
  return std::nullopt;
}

ArchiveLock::~ArchiveLock() {
  if (fd_ >= 0) close(fd_);  // releases the flock
}

Json Archive(Context& ctx, const Json& args) {
  const std::string text = args.at("before").get<std::string>();
  const auto ms = ParseTime(text);
  if (!ms)
    Fail(Code::kInvalidArgument,
         "--before must be a time: epoch seconds or ISO 8601, not '" + text + "'");
  if (*ms > ctx.now())
    Fail(Code::kInvalidArgument, "--before " + FormatTime(*ms) +
                                     " is in the future (the clock is " + FormatTime(ctx.now()) +
                                     "): only the past is archived");
  const int64_t before_id = GeneIdFloor(std::max(*ms, kGeneEpochMs), 0);
  const int64_t batch = args.value("batch", kDefaultBatch);
  if (batch < 1) Fail(Code::kInvalidArgument, "--batch must be at least 1");
  std::vector<ArchiveLock> locks;
  std::vector<int> mine;
  for (int i = 0; i < ctx.shards().count(); ++i) {
    if (!OwnsShard(ctx, i)) continue;
    auto lock = ArchiveLock::TryTake(ctx, i);
    if (!lock)
      Fail(Code::kArchiveRunning,
           "another weibo-archive run is moving " + ctx.shards().At(i).name() + " (it holds " +
               ArchiveFileName(i, ctx.shards().count()) + ".lock); run again once it has finished");
    locks.push_back(std::move(*lock));
    mine.push_back(i);
  }
  // Before anything moves: from now on, reads below before_id look into the archive too.
  ctx.shards().RaiseArchivedBelow(before_id);
  ArchiveMoved total;
  int64_t remaining = 0;
  for (int i : mine) {
    ArchiveMoved m = ArchiveShard(ctx, i, before_id, batch);
    total.messages += m.messages;
    total.relations += m.relations;
    total.inbox += m.inbox;
    total.batches += m.batches;
    remaining += ctx.shards()
                     .At(i)
                     .Query("SELECT count(*) FROM msg_info WHERE msg_id < ?")
                     .Bind(1, before_id)
                     .IntOr(0);
  }
  return Json{{"before", FormatTime(*ms)},    {"messages", total.messages},
              {"relations", total.relations}, {"inbox", total.inbox},
              {"batches", total.batches},     {"shards", static_cast<int64_t>(mine.size())},
              {"remaining", remaining}};
}

}  // namespace weibo
