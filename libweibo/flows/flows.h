// What the flows share with each other and with the jobs layer: every job handler and the
// helpers one flow calls in another, grouped by the file that defines them. An op's own
// handler (Json Op(Context&, const Json& args)) is declared where it is used, beside its
// row of the operation table (ops/op_table.cc), so that an op is one row and one file.
#ifndef WEIBO_FLOWS_FLOWS_H_
#define WEIBO_FLOWS_FLOWS_H_

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "flows/job_payloads.h"
#include "jobs/context.h"

namespace weibo {

class MessageCache;

// flows/user.cc
Json UserJson(const UserRow& row);
void ApplyUserCreate(Context& ctx, Shard& target, const UserCreateJob& job);

// flows/follow.cc
void ApplyFanAdd(Context& ctx, Shard& target, const FanAddJob& job);
void ApplyFanRemove(Context& ctx, Shard& target, const FanRemoveJob& job);
void ApplyInboxMerge(Context& ctx, Shard& target, const InboxMergeJob& job);

// flows/placement.cc: a new message's tid_map row under uid-mapping (nothing otherwise), in
// its author's shard's open transaction; and the job that writes it on another shard.
// deleted: the message is being deleted, its row is marked so.
void RecordPlacement(Context& ctx, Shard& shard, int64_t msg_id, int64_t user_id,
                     bool deleted = false);
void ApplyTidMap(Context& ctx, Shard& target, const TidMapJob& job);
// fsck's tid_map check (uid-mapping; none under the other strategies), both ways: every
// message, live or archived (msg id -> author), has its row on shard tid mod N naming its
// author and not marked deleted; every row not marked deleted has its message; no row is
// on another shard. A pending tid_map job excuses what it will write. Its violations,
// repaired when repair (run before the checks that find messages through the mapping).
Json CheckTidMap(Context& ctx, const std::map<int64_t, int64_t>& authors, bool repair);

// flows/message_write.cc and flows/delete.cc, strategy tid: the message's side of a new
// message on its own shard, and the author's side of a deleted one on the author's.
void ApplyMsgWrite(Context& ctx, Shard& target, const MsgWriteJob& job);
// flows/placement.cc: an author's newest originals and reposts with id > since_id, at most
// limit, newest first, read from the author's shard (a follow's merge, an active list's
// join): its msg_info rows under gene and uid-mapping; under tid its author_feed rows, each
// message then read on its own shard (one not there — deleted, or its msg_write job still
// pending — left out, as a timeline leaves it out).
std::vector<MsgRow> AuthorPostsOf(Context& ctx, Shard& author_shard, int64_t author,
                                  int64_t since_id, int64_t limit);
void ApplyAuthorDrop(Context& ctx, Shard& target, const AuthorDropJob& job);

// flows/import.cc: the bulk follow of import and weibo-follow --from-file
struct FollowEdge {
  int64_t user, target;  // user follows target
};
// Applies edges (users checked, no self-follow) as follow would, in batched transactions per
// follower shard, settles their jobs and syncs every shard's WAL once at the end; an edge
// already there is skipped. Returns how many edges were new.
int64_t ApplyFollowEdges(Context& ctx, const std::vector<FollowEdge>& edges, const char* stage);

// flows/refs.cc: the referenced message's side of a comment or repost
void ApplyRefAdd(Context& ctx, Shard& target, const RefAddJob& job);
void ApplyRefRemove(Context& ctx, Shard& target, const RefRemoveJob& job);
// Many ref_adds of one drain on one shard, merged: one counter UPDATE per message.
void ApplyRefAdds(Context& ctx, Shard& target, const std::vector<RefAddJob>& jobs);

// flows/like.cc (seed 004)
// In shard's open write transaction: a counter_delta job for a message of that shard.
void EnqueueCounterDelta(Context& ctx, Shard& shard, const CounterDeltaJob& job);
void ApplyCounterDelta(Context& ctx, Shard& target, const CounterDeltaJob& job);
// The counter_delta jobs of one drain on one shard: one UPDATE per message.
void MergeCounterDeltas(Context& ctx, Shard& target, const std::vector<CounterDeltaJob>& jobs);

// flows/notify.cc (seed 004): system notifications and their unread count
// Drops the last-seen ids of users inactive for kSeenExpiryMs (the drain runs it);
// returns how many.
int64_t ExpireLastSeen(Context& ctx);
constexpr int64_t kSeenExpiryMs = 30LL * 24 * 3600 * 1000;

// flows/fanout.cc: the feed mode's write side
void ApplyFanOut(Context& ctx, Shard& target, const FanOutJob& job);
void ApplyDeliver(Context& ctx, Shard& target, const DeliverJob& job);
// The messages whose deliveries to reader this server holds back (jobs/context.h,
// GroupCommit::held_deliveries), newest first: what reader's inbox will hold once they are
// applied. own is the reader's shard, inside the read's transaction. followees: the
// reader's, ascending, when the caller has read them (nullptr: each author is looked up).
std::vector<int64_t> HeldInboxIds(Context& ctx, Shard& own, int64_t reader,
                                  const std::vector<int64_t>* followees);
// GroupCommit::delivered for a server with a message cache: hands each reader of a held
// delivery job (payload, for target) to MessageCache::Delivered, once its deliveries are
// committed (applied) or have failed. Only a plain job's readers (DeliverJob::Plain) were
// all judged by the one insert that added them; a tiered job's, some of them enqueued
// for later, are forgotten, as after a failure.
void PatchInboxes(MessageCache& cache, const Json& payload, int target, bool applied);
// Merges a followee's posts into a reader's inbox (inbox_merge, active_merge), passing over
// the posts deleted since they were read: no longer in msg_info on their own shard, as
// msg_deleted on the target shard may not know yet (one read per shard for all items).
void MergeIntoInbox(Context& ctx, Shard& target, int64_t user, int64_t author,
                    const std::vector<MergeItem>& items);
// MergeIntoInbox in two steps, for a merge of several authors' posts at once (active_merge):
// the ids still in msg_info, for all the lists (author, items) with one read per shard;
// then one author's items, those in live.
std::set<int64_t> LiveMergeItems(
    Context& ctx, const std::vector<std::pair<int64_t, const std::vector<MergeItem>*>>& lists);
void DeliverMergeItems(Context& ctx, Shard& target, int64_t user, int64_t author,
                       const std::vector<MergeItem>& items, const std::set<int64_t>& live);
void ApplyPurge(Context& ctx, Shard& target, const PurgeJob& job);
void ApplyUndeliver(Context& ctx, Shard& target, const UndeliverJob& job);

// flows/timeline.cc: what this process's home timeline reads have merged since it started
// (weibo/request.h, HomeReadCounts): the reads, and the followees each one pulled — merged
// from the followee's own posts rather than read from the inbox: every followee in pull;
// in hybrid the celebrities and the authors whose active list lacks the reader.
void HomeReadTally(int64_t* reads, int64_t* pulled_authors);
// Writes what the home reads a server served owe (GroupCommit::held_reads: the red dot's
// marks and the readers' activity), one transaction per reader shard: every shard's, or
// only shard's when shard >= 0. The held reads are taken before they are written: a
// failure loses them, as a crash would, and is thrown. Returns how many readers it wrote
// for (a reader no longer there is skipped).
int64_t PayHeldReads(Context& ctx, int shard = -1);
// With a background applier that is free (an ended batch is collected first, and its
// failure thrown), hands it every shard's held reads as one batch, which PayHeldReads
// writes there (jobs.h, HandOffReads); true when it did. A home read calls it instead of
// paying; a server's Tick too, with old_only: only once the oldest held read is
// kHeldMaxAgeMs old. Every 50 ms, the batches were small and wrote every shard, and each
// such commit empties the server's own connection's page cache of that shard (SQLite
// does on another connection's commit): through weibod on the retwis trace, read p99
// went from 1.8 to 3.0 ms.
bool HandOffHeldReads(Context& ctx, bool old_only = false);
// How many readers of one shard a server holds before it pays them (GroupCommit::
// held_reads): each transaction then carries the marks of many reads rather than one's. A
// read that rejoins the active lists pays its shard's at once, unless a background
// applier writes them (flows/timeline.cc, Hold).
// Counted, not timed, so that a replay's results do not depend on the machine's speed;
// with a background applier, whether a batch is handed to it then also depends on its
// being free (weibo-sim and the bench's statement counts run without one).
constexpr size_t kHeldReadsPerShard = 32;

// flows/active.cc: activity, and hybrid's active-follower lists
constexpr int64_t kActivityGrainMs = 3600LL * 1000;      // last_active is refreshed hourly
constexpr int64_t kActiveWindowMs = 24LL * 3600 * 1000;  // rejoin the lists once a day
// What a home timeline read owes as activity: touch, when last_active is older than
// kActivityGrainMs; rejoin (hybrid), when the last join of the active lists of the user's
// followees is older than kActiveWindowMs. Judged from the user's row as the caller read it.
// shown: the oldest id of the full first page the read showed (0: none). A rejoin by a reader
// on no list raises the reader's inbox floor to it, so that the join's snapshots hold only
// what that page showed and what is newer (flows/active.cc).
struct ActivityDue {
  bool touch = false, rejoin = false;
  int64_t shown = 0;
  bool any() const { return touch || rejoin; }
};
ActivityDue ActivityOf(Context& ctx, const UserRow& user);
// Whether user has read their home timeline (and so joined their followees' active lists)
// within kActiveWindowMs: the reader a hybrid author pushes to. A follow joins the new
// followee's list only for such a user.
bool ReadsHome(const UserRow& user, int64_t now);
// fan_add's join flag for a follow by fan (read on fan's shard): ReadsHome, or true outside
// hybrid (where there are no lists to join).
bool JoinsOnFollow(Context& ctx, Shard& shard, int64_t fan);
// On the author's shard, in a write transaction: marks the author pulled once at the
// threshold and, the first time, empties its active list, sending each listed reader an
// active_drop, so that a reader's active_on never names a pulled author.
void BecomePulled(Context& ctx, Shard& author_shard, int64_t author);
// In a write transaction on the user's shard: refreshes last_active and, when due, records
// the rejoin and enqueues one active_join job per followee shard, as of the read made at
// now (a server pays a read's activity after the read: flows/timeline.cc).
void RecordActivity(Context& ctx, Shard& shard, int64_t user, const ActivityDue& due, int64_t now);
// Puts fan at the head of author's active list (on the author's shard) and returns the
// active_merge entry for the fan's shard; none when the author does not push.
std::optional<ActiveMergeEntry> JoinActiveList(Context& ctx, Shard& author_shard, int64_t author,
                                               int64_t fan, int64_t floor);
void ApplyActiveJoin(Context& ctx, Shard& target, const ActiveJoinJob& job);
void ApplyActiveMerge(Context& ctx, Shard& target, const ActiveMergeJob& job);
void ApplyActiveDrop(Context& ctx, Shard& target, const ActiveDropJob& job);

// flows/search.cc (seed 003, SPEC §7): the search index, fed through the outbox
// In shard's open write transaction: the search_index job of one of its messages.
void EnqueueSearchIndex(Context& ctx, Shard& shard, int64_t msg_id);
void ApplySearchIndex(Context& ctx, Shard& target, const SearchIndexJob& job);
// The search_index jobs of one drain on one shard: one transaction on its search file.
void ApplySearchIndexes(Context& ctx, Shard& target, const std::vector<SearchIndexJob>& jobs);
// Rebuilds one shard's index from its msg_info while writers go on (flows/search.cc);
// returns how many messages it indexed.
int64_t RebuildSearchIndex(Context& ctx, int shard);
// A message's text as the index holds it: "" when it has none (deleted, or a repost
// without text).
std::string IndexedText(const MsgRow& msg);

// flows/job_kinds.cc: registers every job kind's handler with the jobs layer (jobs/jobs.h);
// OpenEmbedded calls it, so does anything that applies jobs without an executor.
void RegisterFlowJobKinds();

// flows/tokens.cc: apps, access tokens, revocation (SPEC §8; flows/tokens.h)
void ApplyAppEvent(Context& ctx, Shard& target, const AppEventJob& job);

// flows/avatar.cc: weibo-avatar(1)'s files in the data directory
// "heads/00/00/00/12/34" for user 1234: the directory of the user's pictures.
std::string AvatarDir(int64_t user);
// The names of a user's pictures: the original, 180x180 and 48x48.
std::vector<std::string> AvatarFileNames();
// What a temporary file of WriteAtomically adds to its name, before the writer's pid.
inline constexpr char kAvatarTempMark[] = ".tmp.";
// Replaces path by bytes: written to path + kAvatarTempMark + pid, with mtime t (seconds),
// fsync'ed and renamed over path (then the directory needs a sync of its own for the
// rename to be durable). Failure(storage_error) when it cannot.
void WriteAtomically(const std::string& path, const std::string& bytes, int64_t t);
// flows/avatar_fsck.cc: fsck's avatars check (flows/fsck.cc); its violations.
Json CheckAvatarFiles(Context& ctx, const std::set<int64_t>& users, bool repair);

// flows/discover.cc: weibo-discover(1)'s groups
// groups lists of at most size ids of pool, drawn by BLAKE2b-64(bucket, group, id).
std::vector<std::vector<int64_t>> DrawDiscoverGroups(const std::vector<int64_t>& pool,
                                                     int64_t bucket, int groups, int size);
// Writes DATA/discover.json for the clock's bucket unless it holds it already; whether it
// wrote. The drain runs it (weibo-worker, weibod), and so does the node owning shard 0.
bool RefreshDiscover(Context& ctx);

}  // namespace weibo

#endif  // WEIBO_FLOWS_FLOWS_H_
