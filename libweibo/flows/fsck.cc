// fsck: every invariant of SPEC §12 that the tables hold, across all shards, each
// violation reported with where it is; with repair, each is fixed. Checks:
//
//   integrity     PRAGMA integrity_check of every shard
//   outbox        no job is pending (repair first applies them all, which is how a crash
//                 in mid-flow is finished)
//   relation      (A, B, 1) on shard(A) <=> (B, A, 0) on shard(B); no msg_msg_relation row
//                 of a deleted comment or repost
//   user_counts   follow_count, fans_count, msg_count = a recount of their rows
//   counters      every message has one counter row; comment_count / transfer_count = its
//                 relation rows; commented/transferred cover every page_index handed out;
//                 like_count plus the like deltas still pending (counter_delta jobs) = its
//                 msg_like rows; no like rows of a missing message
//   inbox         no row for a deleted message or for an author the reader does not follow;
//                 the author's own row for every message; in push mode (and hybrid, for
//                 pushed authors whose active list holds the follower: active_on) every
//                 post made since a follow is in the follower's inbox — above the inbox's
//                 floor, below which the cap trimmed it
//   author_feed   under strategy tid only, where they are on two shards: every message has
//                 its author_feed row on its author's shard and every row its message
//                 (CheckAuthorFeed)
//   clock         nothing is dated after the clock (the wall clock, or --now): no gene's
//                 id sequence (msg_seq) and no author partition (author_part) is ahead of
//                 it, and no message id is. A clock moved forward (a --now from before
//                 issue 11 was refused at the edges) drags a gene's ids, and every later
//                 post of each user of that gene, into the future. Repair lowers such a
//                 sequence to the highest id of its gene still held by a message and drops
//                 future partitions that hold no message; a message dated in the future is
//                 reported, not repaired: delete it, then repair again.
//   tokens        every app row on the shard its key and its name name; every token row
//                 on its user's shard, of a user and an app that exist, with a scope, an
//                 id that is its hash's prefix and an expiry after its issue; every app
//                 event of an app that exists (tables/access_token.h). Repair deletes a
//                 token row that breaks them (it grants nothing any more) and such events.
//   avatars       the picture files under DATA/heads (flows/avatar_fsck.cc)
//   search        every message with text has its row in its shard's search index
//                 (search-NN.db) with that text and author, and the index has no other row
//                 (a deleted message, a text an edit replaced); messages whose search_index
//                 job is pending are left to it (the outbox check reports the job). An
//                 archived message is checked as a live one: it stays searchable. Repair
//                 rebuilds the shard's index from msg_info, the shard's and its archive's
//                 (flows/search.cc).
//   indexes       every entity has its row in each declared index, and every index row
//                 names an entity that has that value and routes the row to its shard
//                 (flows/cleaner.cc). Repair adds the missing rows and deletes the stale.
//   archive       the archive files (archive-NN.db, flows/archive.h) are checked with their
//                 shards: an archived message counts as a message everywhere above (its
//                 author's msg_count, the relation rows, counters and likes beside it, in
//                 its archive), and an archived inbox row or relation row must name a
//                 message that is live or archived. A message both live and archived is
//                 one an archive run was moving when it stopped: repair finishes the move
//                 (unless a run holds the shard's lock). The archived inbox rows are
//                 checked for that only: below the archive's boundary timelines pull.
#include <algorithm>
#include <array>
#include <limits>
#include <map>
#include <set>
#include <tuple>

#include "flows/archive.h"
#include "flows/entities.h"
#include "flows/feed_policy.h"
#include "flows/flows.h"
#include "flows/message.h"
#include "flows/tokens.h"
#include "jobs/jobs.h"
#include "storage/gene_id.h"
#include "tables/access_token.h"
#include "tables/active_fan.h"
#include "tables/author_feed.h"
#include "tables/msg_counter.h"
#include "tables/msg_index.h"
#include "tables/msg_info.h"
#include "tables/msg_like.h"
#include "tables/msg_msg_relation.h"
#include "tables/outbox.h"
#include "tables/search_index.h"
#include "tables/user_relation.h"

namespace weibo {
namespace {

struct Snapshot {
  std::map<int64_t, UserRow> users;
  std::set<std::tuple<int64_t, int64_t, int64_t>> relations;  // (user, other, type)
  std::map<std::tuple<int64_t, int64_t, int64_t>, int64_t> relation_time;
  std::map<int64_t, MsgRow> msgs;
  std::map<int64_t, CounterRow> counters;
  std::map<int64_t, int64_t> like_rows;      // msg_like rows by message
  std::map<int64_t, int64_t> pending_likes;  // like deltas not applied yet, by message
  // Strategy tid: messages whose msg_write or author_drop job is pending — counted in their
  // author's msg_count, listed in author_feed, without msg_info — and how many by author.
  std::set<int64_t> pending_msgs;
  std::map<int64_t, int64_t> pending_msg_count;
  std::vector<RelationMsgRow> msg_relations;
  std::set<std::pair<int64_t, int64_t>> inbox;  // (user, msg)
  std::vector<InboxRow> inbox_rows;
  std::map<int64_t, int64_t> floors;                // inbox floor by user (tables/msg_index.h)
  std::set<std::pair<int64_t, int64_t>> active_on;  // (reader, author), hybrid
  // The archive: ids of the messages whose rows are in an archive file (messages, counters,
  // likes), whether each msg_relations row is, the archived inbox rows, and the messages
  // in both a shard and its archive as (shard, message).
  std::set<int64_t> archived;
  std::vector<bool> relation_archived;
  std::vector<InboxRow> archived_inbox;
  std::vector<std::pair<int, int64_t>> both;

  int64_t Floor(int64_t user) const {
    auto it = floors.find(user);
    return it == floors.end() ? 0 : it->second;
  }
};

// Shard i's archive, after the shard: a message only there is archived; one in both (a
// move that stopped between its two commits) is counted as live, its archive rows left out.
void LoadArchive(Context& ctx, Snapshot& s, int i) {
  Shard* archive = ctx.shards().ArchiveAt(i);
  if (archive == nullptr) return;
  ReadTxn txn(*archive);
  std::set<int64_t> moving;
  for (auto& m : AllMsgs(*archive)) {
    if (s.msgs.count(m.id)) {
      s.both.emplace_back(i, m.id);
      moving.insert(m.id);
      continue;
    }
    s.archived.insert(m.id);
    s.msgs[m.id] = m;
  }
  for (auto& c : AllCounters(*archive))
    if (!moving.count(c.msg_id) && !s.counters.count(c.msg_id)) {
      s.archived.insert(c.msg_id);
      s.counters[c.msg_id] = c;
    }
  for (auto& [msg, n] : LikeCounts(*archive))
    if (!moving.count(msg) && !s.like_rows.count(msg)) {
      s.archived.insert(msg);
      s.like_rows[msg] = n;
    }
  for (auto& r : AllMsgRelations(*archive))
    if (!moving.count(r.referenced_msg_id)) {
      s.msg_relations.push_back(r);
      s.relation_archived.push_back(true);
    }
  for (auto& r : AllInbox(*archive)) s.archived_inbox.push_back(r);
}

Snapshot Load(Context& ctx) {
  Snapshot s;
  for (int i = 0; i < ctx.shards().count(); ++i) {
    Shard& shard = ctx.shards().At(i);
    ReadTxn txn(shard);
    for (auto& u : ListUsers(shard)) s.users[u.id] = u;
    for (auto& r : AllRelations(shard)) {
      s.relations.insert({r.user, r.other, r.type});
      s.relation_time[{r.user, r.other, r.type}] = r.time;
    }
    for (auto& m : AllMsgs(shard)) s.msgs[m.id] = m;
    for (auto& c : AllCounters(shard)) s.counters[c.msg_id] = c;
    for (auto& [msg, n] : LikeCounts(shard)) s.like_rows[msg] = n;
    for (const JobRow& job : PendingJobs(shard, std::numeric_limits<int64_t>::max()))
      if (job.kind == CounterDeltaJob::kKind) {
        auto delta = CounterDeltaJob::Decode(Json::parse(job.payload));
        s.pending_likes[delta.msg_id] += delta.likes;
      } else if (job.kind == MsgWriteJob::kKind) {
        const MsgRow row = MsgWriteJob::Decode(Json::parse(job.payload)).row;
        if (s.pending_msgs.insert(row.id).second) ++s.pending_msg_count[row.user_id];
      } else if (job.kind == AuthorDropJob::kKind) {
        const AuthorDropJob drop = AuthorDropJob::Decode(Json::parse(job.payload));
        if (s.pending_msgs.insert(drop.msg_id).second) ++s.pending_msg_count[drop.user_id];
      }
    for (auto& r : AllMsgRelations(shard)) s.msg_relations.push_back(r);
    for (auto& f : AllInboxFloors(shard)) s.floors[f.first] = f.second;
    for (auto& a : AllActiveOn(shard)) s.active_on.insert(a);
    for (auto& r : AllInbox(shard)) {
      s.inbox.insert({r.user_id, r.msg_id});
      s.inbox_rows.push_back(r);
    }
    s.relation_archived.resize(s.msg_relations.size(), false);
    LoadArchive(ctx, s, i);
    ctx.Progress("fsck: reading shards", i + 1, ctx.shards().count());
  }
  return s;
}

class Checker {
 public:
  Checker(Context&, bool repair) : repair_(repair) {}

  // Reports one violation; runs fix in a write transaction on shard when repairing.
  template <typename Fix>
  void Violation(const char* check, const std::string& detail, Shard& shard, Fix fix) {
    violations_.push_back(Json{{"check", check}, {"detail", detail}, {"repaired", repair_}});
    if (!repair_) return;
    WriteTxn txn(shard);
    fix(shard);
    txn.Commit();
  }
  // Reports one violation; runs fix, which takes its own transactions, when repairing.
  template <typename Fix>
  void ViolationFixedBy(const char* check, const std::string& detail, Fix fix) {
    violations_.push_back(Json{{"check", check}, {"detail", detail}, {"repaired", repair_}});
    if (repair_) fix();
  }
  void Report(const char* check, const std::string& detail) {
    violations_.push_back(Json{{"check", check}, {"detail", detail}, {"repaired", false}});
  }
  // A violation found, and fixed when repairing, by a check of its own.
  void Add(const Json& violation) { violations_.push_back(violation); }
  Json violations() const { return violations_; }

 private:
  bool repair_;
  Json violations_ = Json::array();
};

std::string S(int64_t v) { return std::to_string(v); }

// The file that holds a message's rows: its archive when the snapshot found them there.
// Placed by the snapshot's author when it has the message: no tid_map lookup (uid-mapping).
Shard& FileOf(Context& ctx, const Snapshot& s, int64_t msg_id) {
  ShardSet& shards = ctx.shards();
  auto m = s.msgs.find(msg_id);
  const int index = m == s.msgs.end() ? shards.MsgShardIndex(msg_id)
                                      : shards.MsgShardIndexOf(msg_id, m->second.user_id);
  if (s.archived.count(msg_id)) return *shards.ArchiveAt(index);
  return shards.At(index);
}

// Messages both live and archived (flows/archive.h): reported, one line a shard; repair
// finishes the move of each such shard, as the run that stopped would have (unless a run
// holds the shard's lock now: that run finishes it). True when a move was finished.
bool CheckArchive(Context& ctx, Checker& c, const Snapshot& s) {
  std::map<int, std::vector<int64_t>> by_shard;
  for (const auto& [shard, id] : s.both) by_shard[shard].push_back(id);
  bool moved = false;
  for (const auto& [shard, ids] : by_shard) {
    const int i = shard;
    c.ViolationFixedBy("archive",
                       ctx.shards().At(i).name() + ": " + S(static_cast<int64_t>(ids.size())) +
                           " message(s) both live and archived, from " + S(ids.front()) +
                           " (an archive run stopped while moving them)",
                       [&ctx, &moved, i] {
                         auto lock = ArchiveLock::TryTake(ctx, i);
                         if (!lock) return;
                         ArchiveShard(ctx, i, ctx.shards().ArchivedBelow(), 500);
                         moved = true;
                       });
  }
  return moved;
}

void CheckStorage(Context& ctx, Checker& c, bool repair) {
  for (int i = 0; i < ctx.shards().count(); ++i) {
    Shard& shard = ctx.shards().At(i);
    Stmt& st = shard.Query("PRAGMA integrity_check");
    std::string result = st.Step() ? st.Text(0) : "no answer";
    st.Reset();
    if (result != "ok") c.Report("integrity", shard.name() + ": " + result);
    if (Shard* archive = ctx.shards().ArchiveAt(i)) {
      Stmt& at = archive->Query("PRAGMA integrity_check");
      std::string checked = at.Step() ? at.Text(0) : "no answer";
      at.Reset();
      if (checked != "ok") c.Report("integrity", archive->name() + ": " + checked);
    }
    ctx.Progress("fsck: integrity check", i + 1, ctx.shards().count());
  }
  if (repair) DrainAllPending(ctx);
  for (int i = 0; i < ctx.shards().count(); ++i) {
    int64_t pending = CountJobs(ctx.shards().At(i), 0);
    if (pending > 0)
      c.Report("outbox", ctx.shards().At(i).name() + ": " + S(pending) + " pending job(s)");
  }
}

void CheckRelations(Context& ctx, Checker& c, const Snapshot& s) {
  ShardSet& shards = ctx.shards();
  for (const auto& [user, other, type] : s.relations) {
    int64_t twin_type = type == kFollowing ? kFan : kFollowing;
    if (s.relations.count({other, user, twin_type})) continue;
    int64_t a = user, b = other;  // lambdas cannot capture structured bindings in C++17
    if (type == kFollowing) {
      int64_t time = s.relation_time.at({user, other, type});
      c.Violation("relation",
                  "user " + S(user) + " follows " + S(other) + " but the fan row is missing",
                  shards.ForUser(other), [&](Shard& sh) { InsertRelation(sh, b, a, kFan, time); });
    } else {
      c.Violation("relation", "user " + S(other) + " is a fan of " + S(user) + " without following",
                  shards.ForUser(user), [&](Shard& sh) { DeleteRelation(sh, a, b, kFan); });
    }
  }
  // A comment or repost that was deleted takes its relation row with it (ref_remove).
  for (size_t k = 0; k < s.msg_relations.size(); ++k) {
    const auto& r = s.msg_relations[k];
    if (s.msgs.count(r.reference_msg_id)) continue;
    c.Violation("relation",
                std::string(r.type == kComment ? "comment " : "repost ") + S(r.reference_msg_id) +
                    " of message " + S(r.referenced_msg_id) + " was deleted but is still listed" +
                    (s.relation_archived[k] ? " (archived)" : ""),
                s.relation_archived[k] ? *ArchiveOfMsg(ctx, r.referenced_msg_id)
                                       : shards.ForMsg(r.referenced_msg_id),
                [&](Shard& sh) { DeleteMsgRelation(sh, r.reference_id, r.reference_msg_id); });
  }
}

void CheckUserCounts(Context& ctx, Checker& c, const Snapshot& s) {
  ShardSet& shards = ctx.shards();
  std::map<int64_t, std::array<int64_t, 3>> recount;  // msgs, fans, follows
  for (const auto& [id, user] : s.users) recount[id] = {0, 0, 0};
  for (const auto& [user, other, type] : s.relations) ++recount[user][type == kFan ? 1 : 2];
  for (const auto& [id, m] : s.msgs) ++recount[m.user_id][0];
  for (const auto& [user, n] : s.pending_msg_count) recount[user][0] += n;  // tid's jobs
  for (const auto& [id, u] : s.users) {
    const auto& r = recount[id];
    int64_t user = id;
    if (u.msg_count == r[0] && u.fans_count == r[1] && u.follow_count == r[2]) continue;
    c.Violation("user_counts",
                "user " + S(id) + " has msg/fans/follow " + S(u.msg_count) + "/" + S(u.fans_count) +
                    "/" + S(u.follow_count) + ", rows say " + S(r[0]) + "/" + S(r[1]) + "/" +
                    S(r[2]),
                shards.ForUser(id), [&](Shard& sh) { SetUserCounts(sh, user, r[0], r[1], r[2]); });
  }
}

void CheckCounters(Context& ctx, Checker& c, const Snapshot& s) {
  // comments, transfers, and the least commented / transferred the pages imply
  std::map<int64_t, std::array<int64_t, 4>> recount;
  for (const auto& r : s.msg_relations) {
    auto& v = recount[r.referenced_msg_id];
    ++v[r.type == kComment ? 0 : 1];
    // A row on page p means at least p * page_size + 1 were ever made.
    int64_t need = r.page_index * ctx.config().page_size + 1;
    int slot = r.type == kComment ? 2 : 3;
    v[slot] = std::max(v[slot], need);
  }
  for (const auto& [id, m] : s.msgs) {
    int64_t msg_id = id;
    Shard& shard = FileOf(ctx, s, id);
    auto it = s.counters.find(id);
    if (it == s.counters.end()) {
      c.Violation("counters", "message " + S(id) + " has no counter row", shard,
                  [&](Shard& sh) { InitCounter(sh, msg_id); });
      continue;
    }
    CounterRow want = it->second;
    auto r = recount[id];
    want.comments = r[0];
    want.transfers = r[1];
    want.commented = std::max({want.commented, r[0], r[2]});
    want.transferred = std::max({want.transferred, r[1], r[3]});
    const CounterRow& have = it->second;
    if (have.comments == want.comments && have.transfers == want.transfers &&
        have.commented == want.commented && have.transferred == want.transferred)
      continue;
    c.Violation("counters",
                "message " + S(id) + " counts comments " + S(have.comments) + "/" +
                    S(have.commented) + " reposts " + S(have.transfers) + "/" +
                    S(have.transferred) + ", rows say " + S(want.comments) + "/" +
                    S(want.commented) + " " + S(want.transfers) + "/" + S(want.transferred),
                shard, [&](Shard& sh) { SetCounter(sh, want); });
  }
  for (const auto& [id, m] : s.msgs) {
    auto it = s.counters.find(id);
    if (it == s.counters.end()) continue;
    auto rows = s.like_rows.find(id);
    // An archived counter has the deltas pending at its move in it already (archive.cc).
    auto pending = s.archived.count(id) ? s.pending_likes.end() : s.pending_likes.find(id);
    int64_t want = rows == s.like_rows.end() ? 0 : rows->second;
    int64_t have = it->second.likes + (pending == s.pending_likes.end() ? 0 : pending->second);
    if (have == want) continue;
    CounterRow fixed = it->second;
    fixed.likes = want;
    c.Violation("counters",
                "message " + S(id) + " counts likes " + S(have) + ", rows say " + S(want),
                FileOf(ctx, s, id), [&](Shard& sh) { SetCounter(sh, fixed); });
  }
  for (const auto& [id, n] : s.like_rows) {
    int64_t missing = id;
    if (!s.msgs.count(id))
      c.Violation("counters", S(n) + " like row(s) of missing message " + S(id), FileOf(ctx, s, id),
                  [&](Shard& sh) { DeleteLikesOf(sh, missing); });
  }
  for (const auto& [id, counter] : s.counters) {
    int64_t missing = id;
    if (!s.msgs.count(id))
      c.Violation("counters", "counter row of missing message " + S(id), FileOf(ctx, s, id),
                  [&](Shard& sh) { DeleteCounter(sh, missing); });
  }
}

void CheckInbox(Context& ctx, Checker& c, const Snapshot& s) {
  ShardSet& shards = ctx.shards();
  for (const auto& row : s.inbox_rows) {
    auto m = s.msgs.find(row.msg_id);
    bool own = row.author_id == row.user_id;
    std::string where = "inbox of user " + S(row.user_id) + ": message " + S(row.msg_id);
    auto drop = [&](Shard& sh) { DeleteInbox(sh, row.user_id, row.msg_id); };
    if (m == s.msgs.end()) {
      if (s.pending_msgs.count(row.msg_id)) continue;  // tid: its job will write or drop it
      c.Violation("inbox", where + " was deleted", shards.ForUser(row.user_id), drop);
    } else if (m->second.user_id != row.author_id)
      c.Violation("inbox", where + " names the wrong author", shards.ForUser(row.user_id), drop);
    else if (!own && !s.relations.count({row.user_id, row.author_id, kFollowing}))
      c.Violation("inbox", where + " is by user " + S(row.author_id) + ", who is not followed",
                  shards.ForUser(row.user_id), drop);
  }
  // An archived inbox row must name a message, live or archived; nothing else is asked of
  // it (timelines pull below the archive's boundary).
  for (const auto& row : s.archived_inbox) {
    if (s.msgs.count(row.msg_id)) continue;
    c.Violation(
        "archive",
        "archived inbox of user " + S(row.user_id) + ": message " + S(row.msg_id) + " was deleted",
        *ctx.shards().ArchiveAt(static_cast<int>(row.user_id % shards.count())),
        [&](Shard& sh) { DeleteInbox(sh, row.user_id, row.msg_id); });
  }
  for (const auto& [id, m] : s.msgs) {
    const MsgRow& msg = m;
    if (s.archived.count(id)) continue;  // its own row was archived with the inbox
    if (id >= s.Floor(msg.user_id) && !s.inbox.count({msg.user_id, id}))
      c.Violation("inbox", "message " + S(id) + " is missing from its author's own inbox",
                  shards.ForUser(msg.user_id), [&](Shard& sh) {
                    InsertInbox(sh, {msg.user_id, msg.id, msg.user_id, msg.time});
                  });
  }
  FeedPolicy feed(ctx);
  if (!feed.HasInbox()) return;
  std::map<int64_t, std::vector<const MsgRow*>> posts;
  for (const auto& [id, m] : s.msgs)
    if (m.type != kComment) posts[m.user_id].push_back(&m);
  for (const auto& [user, other, type] : s.relations) {
    if (type != kFollowing || !s.users.count(other)) continue;
    if (!feed.PushesAuthor(s.users.at(other))) continue;
    if (feed.UsesActiveLists() && !s.active_on.count({user, other})) continue;
    int64_t since = s.relation_time.at({user, other, type});
    int64_t floor = s.Floor(user);
    for (const MsgRow* m : posts[other]) {
      if (m->time < since || m->id < floor || s.inbox.count({user, m->id})) continue;
      if (s.archived.count(m->id) || m->id < ctx.shards().ArchivedBelow()) continue;
      int64_t reader = user;
      c.Violation("inbox",
                  "post " + S(m->id) + " of user " + S(other) + " is missing from follower " +
                      S(user) + "'s inbox",
                  shards.ForUser(user), [&](Shard& sh) {
                    InsertInbox(sh, {reader, m->id, m->user_id, m->time});
                  });
    }
  }
}

// Strategy tid: a message's author_feed row is on its author's shard, its own rows on msg
// mod N, written by two transactions (flows/message_write.cc). Both ways: every message,
// live or archived, has its row (live or archived) on its author's shard, and every row
// names a message of that author. A pending msg_write or author_drop job excuses what it
// will write or remove. Under gene and uid-mapping both are in one transaction on one
// shard, and nothing is asked here.
void CheckAuthorFeed(Context& ctx, Checker& c, const Snapshot& s) {
  ShardSet& shards = ctx.shards();
  if (shards.AuthorHoldsMsgs()) return;
  const std::set<int64_t>& pending = s.pending_msgs;
  std::set<std::pair<int64_t, int64_t>> rows;                  // (author, msg), live or archived
  std::vector<std::tuple<int, bool, int64_t, int64_t>> found;  // shard, archived, author, msg
  for (int i = 0; i < shards.count(); ++i) {
    Shard& shard = shards.At(i);
    {
      ReadTxn txn(shard);
      for (const auto& [author, msg] : AllAuthorFeed(shard))
        found.emplace_back(i, false, author, msg);
    }
    if (Shard* archive = shards.ArchiveAt(i)) {
      ReadTxn txn(*archive);
      for (const auto& [author, msg] : AllAuthorFeed(*archive))
        found.emplace_back(i, true, author, msg);
    }
  }
  for (const auto& [i, archived, author, msg] : found) {
    rows.insert({author, msg});
    auto m = s.msgs.find(msg);
    if (pending.count(msg) ||
        (m != s.msgs.end() && m->second.user_id == author && shards.AuthorShardIndex(author) == i))
      continue;
    const int64_t a = author, id = msg;
    c.Violation(
        "author_feed",
        "author_feed of user " + S(author) + " on shard " + S(i) + (archived ? " (archived)" : "") +
            " lists message " + S(msg) +
            (m == s.msgs.end() ? ", which does not exist" : ", which is not that user's here"),
        archived ? *shards.ArchiveAt(i) : shards.At(i),
        [&](Shard& sh) { DeleteAuthorFeed(sh, a, id); });
  }
  for (const auto& [id, m] : s.msgs) {
    if (rows.count({m.user_id, id}) || pending.count(id)) continue;
    const int home = shards.AuthorShardIndex(m.user_id);
    Shard* file = s.archived.count(id) ? shards.ArchiveAt(home, true) : &shards.At(home);
    const MsgRow msg = m;
    c.Violation(
        "author_feed",
        "message " + S(id) + " of user " + S(m.user_id) + " is missing from its author_feed", *file,
        [&](Shard& sh) { InsertAuthorFeed(sh, msg.user_id, msg.id, msg.type); });
  }
}

// Ahead of the clock means more than this ahead: ids borrow the next milliseconds when a
// millisecond's 16384 are used up (storage/gene_id.h), which on a fixed clock (--now, a
// test) moves them ahead by a millisecond for each 16384 posts of one gene.
constexpr int64_t kClockSlackMs = 24LL * 3600 * 1000;

void CheckClock(Context& ctx, Checker& c, const Snapshot& s) {
  const int64_t now = ctx.now();
  // The highest id that is not ahead: the last id (every sequence and gene) of the last
  // millisecond within the slack, saturated at the end of the id range.
  const int64_t limit_ms = std::min(now, kGeneLatestMs - kClockSlackMs) + kClockSlackMs;
  const int64_t last_id_now = GeneIdFloor(limit_ms, 0) | ((int64_t{1} << 22) - 1);
  const std::string at = " (the clock is " + FormatTime(now) + ")";
  for (const auto& [id, m] : s.msgs)
    if (id > last_id_now)
      c.Report("clock", "message " + S(id) + " of user " + S(m.user_id) + " is dated " +
                            FormatTime(GeneIdTimeMs(id)) + at +
                            ": delete it, then weibo-fsck --repair lowers its gene's ids");
  for (int i = 0; i < ctx.shards().count(); ++i) {
    Shard& shard = ctx.shards().At(i);
    std::vector<std::pair<int64_t, int64_t>> ahead;  // (gene, last id)
    std::vector<std::pair<int64_t, int64_t>> parts;  // (author, part) without a message
    {
      ReadTxn txn(shard);
      ahead = SequencesAbove(shard, last_id_now);
      parts = EmptyPartsAbove(shard, PartOf(last_id_now));
    }
    for (auto [gene, last] : ahead) {
      // The lowest the sequence may go: no id is handed out twice.
      int64_t lowest = HighestMsgIdOfGene(shard, gene);
      // Under tid the plain ids a shard made are on every shard (id mod N), and some are
      // still on their way in a msg_write job: all of them hold the sequence.
      if (gene == kPlainSeqKey && !ctx.shards().AuthorHoldsMsgs()) {
        auto made_here = [i = i](int64_t id) { return ((id >> 8) & 255) == i; };
        for (const auto& [id, m] : s.msgs)
          if (made_here(id)) lowest = std::max(lowest, id);
        for (int64_t id : s.pending_msgs)
          if (made_here(id)) lowest = std::max(lowest, id);
      }
      // kPlainSeqKey: the sequence of the shard's ids without a gene (uid-mapping).
      std::string detail =
          shard.name() + ": the id sequence of " +
          (gene == kPlainSeqKey ? std::string("the shard's plain ids") : "gene " + S(gene)) +
          " is at " + FormatTime(GeneIdTimeMs(last)) + at;
      if (lowest > last_id_now) {
        c.Report("clock", detail + "; message " + S(lowest) + " holds it there");
        continue;
      }
      c.Violation("clock", detail, shard,
                  [gene = gene, lowest](Shard& sh) { ResetSequence(sh, gene, lowest); });
    }
    for (auto [author, part] : parts)
      c.Violation(
          "clock",
          shard.name() + ": user " + S(author) + " has an empty partition " + S(part) +
              " that begins " + FormatTime(GeneIdTimeMs(PartStart(part))) + at,
          shard, [author = author, part = part](Shard& sh) { DeleteAuthorPart(sh, author, part); });
  }
}

void CheckTokens(Context& ctx, Checker& c, const Snapshot& s) {
  std::set<std::string> apps;
  for (int i = 0; i < ctx.shards().count(); ++i) {
    Shard& shard = ctx.shards().At(i);
    ReadTxn txn(shard);
    for (const auto& app : ListApps(shard)) {
      apps.insert(app.key);
      if (AppKeyShard(app.key) != i || ctx.shards().ShardOfName(app.name) != i)
        c.Report("tokens", shard.name() + ": app @" + app.name + " is not on its shard");
    }
  }
  for (int i = 0; i < ctx.shards().count(); ++i) {
    Shard& shard = ctx.shards().At(i);
    std::vector<TokenRow> tokens;
    std::vector<AppEventRow> events;
    {
      ReadTxn txn(shard);
      tokens = AllTokens(shard);
      events = AllAppEvents(shard);
    }
    for (const auto& t : tokens) {
      const std::string where = shard.name() + ": token " + t.token_id + " of user " + S(t.user_id);
      const char* wrong = t.user_id % ctx.shards().count() != i ? "is not on its user's shard"
                          : !s.users.count(t.user_id)           ? "is of a user who does not exist"
                          : !apps.count(t.app_key)              ? "is of an app that does not exist"
                          : std::string(ScopeName(t.scope)) == "none" ? "has no scope"
                          : t.hash.size() != 64 ||
                                  t.hash.compare(0, t.token_id.size(), t.token_id) != 0 ||
                                  t.token_id.size() != 16
                              ? "has an id that is not its hash's"
                          : t.expires != 0 && t.expires <= t.issued ? "expires before it was issued"
                                                                    : nullptr;
      if (wrong != nullptr)
        c.Violation("tokens", where + " " + wrong, shard,
                    [user = t.user_id, id = t.token_id](Shard& sh) { DeleteToken(sh, user, id); });
    }
    for (const auto& e : events)
      if (!apps.count(e.app_key))
        c.Violation("tokens",
                    shard.name() + ": event " + S(e.seq) + " of an app that does not exist", shard,
                    [seq = e.seq](Shard& sh) { DeleteAppEvent(sh, seq); });
  }
}

void CheckSearch(Context& ctx, Checker& c, const Snapshot& s) {
  const int n = ctx.shards().count();
  for (int i = 0; i < n; ++i) {
    std::set<int64_t> pending;
    for (const JobRow& job : PendingJobs(ctx.shards().At(i), std::numeric_limits<int64_t>::max()))
      if (job.kind == SearchIndexJob::kKind)
        pending.insert(SearchIndexJob::Decode(Json::parse(job.payload)).msg_id);
    std::map<int64_t, IndexedMsg> indexed;
    for (IndexedMsg& row : AllIndexed(ctx.shards().SearchAt(i))) {
      int64_t id = row.msg_id;
      indexed.emplace(id, std::move(row));
    }
    int64_t missing = 0, stale = 0;
    for (const auto& [id, m] : s.msgs) {
      if (ctx.shards().MsgShardIndexOf(id, m.user_id) != i || pending.count(id)) continue;
      const std::string text = IndexedText(m);
      auto it = indexed.find(id);
      if (it == indexed.end()) {
        missing += text.empty() ? 0 : 1;
        continue;
      }
      if (text != it->second.content || m.user_id != it->second.user_id) ++stale;
      indexed.erase(it);
    }
    for (const auto& entry : indexed) stale += pending.count(entry.first) ? 0 : 1;
    if (missing + stale > 0)
      c.ViolationFixedBy("search",
                         ctx.shards().SearchAt(i).name() + ": " + S(missing) +
                             " message(s) missing, " + S(stale) + " stale row(s)",
                         [&ctx, i] { RebuildSearchIndex(ctx, i); });
    ctx.Progress("fsck: search index", i + 1, n);
  }
}

}  // namespace

Json Fsck(Context& ctx, const Json& args) {
  bool repair = args.value("repair", false);
  Checker c(ctx, repair);
  // A server's counter deltas held back to merge (jobs.h) are applied first: they are
  // this process's own work in progress, not a pending job left by a crash.
  ApplyDeferredJobs(ctx);
  CheckStorage(ctx, c, repair);
  Snapshot s = Load(ctx);
  if (CheckArchive(ctx, c, s)) s = Load(ctx);
  // uid-mapping: the mapping first, so that what the checks below find (and repair)
  // through it is where the message is.
  std::map<int64_t, int64_t> authors;
  for (const auto& [id, m] : s.msgs) authors.emplace(id, m.user_id);
  for (const auto& v : CheckTidMap(ctx, authors, repair)) c.Add(v);
  CheckRelations(ctx, c, s);
  if (repair) s = Load(ctx);  // recount what the relation repairs changed
  CheckUserCounts(ctx, c, s);
  CheckCounters(ctx, c, s);
  CheckInbox(ctx, c, s);
  CheckAuthorFeed(ctx, c, s);
  CheckClock(ctx, c, s);
  CheckTokens(ctx, c, s);
  std::set<int64_t> users;
  for (const auto& entry : s.users) users.insert(entry.first);
  for (const auto& v : CheckAvatarFiles(ctx, users, repair)) c.Add(v);
  CheckSearch(ctx, c, s);
  for (IndexDrift& d : FindIndexDrift(ctx))
    c.Violation("indexes", d.detail, ctx.shards().At(d.shard), d.fix);
  bool ok = true;
  for (const auto& v : c.violations()) ok = ok && v.value("repaired", false);
  return Json{{"ok", ok},
              {"shards", ctx.shards().count()},
              {"repair", repair},
              {"violations", c.violations()}};
}

}  // namespace weibo
