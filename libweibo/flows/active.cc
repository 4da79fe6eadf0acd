// Activity and hybrid's active-follower lists (SPEC §5, seed 004; seed 000 for the tiers).
//
// Activity: a write (flows/message_write.cc, follow.cc) sets user_info.last_active; reading one's
// own home timeline sets it too, but at most once per kActivityGrainMs: the read looks at
// the stored value first (ActivityOf) and writes only when it is older (RecordActivity,
// in flows/timeline.cc's one write transaction after the page), so a read writes nothing
// most of the time. Push tiers (flows/fanout.cc) order deliveries by last_active.
//
// hybrid: a non-celebrity author pushes only to the followers on its active list
// (active_fan, a fixed-length LRU list of active_list entries on the author's shard). Who
// is active is who reads: a reader joins the lists of everyone they follow
//   - when reading their home timeline and not having joined within kActiveWindowMs
//     (user_info.lists_touched; never, for a user's first read — ReadsHome): the page is
//     built first, by pull for every author whose list does not hold the reader, then one
//     active_join job per followee shard puts the reader at the head of each list again
//     (a reader on no list first raises its inbox floor to the oldest item of the full
//     first page it was shown, so that the snapshots below are about a page: RecordActivity);
//   - on follow, if they read (ReadsHome): fan_add (flows/follow.cc) joins the new fan in
//     the same transaction that adds the fan row. A user who follows and never reads is on
//     no list, and costs a post nothing; their first read pulls, then joins.
// The default list is as long as the celebrity threshold, so a pushed author (fewer fans
// than the threshold) can list every fan who reads: the saving is the fans who do not read,
// and the celebrities, who are pulled (weibo(7), THE HYBRID'S DEFAULTS).
// An author who reaches the threshold is marked pulled and its list emptied in the same
// transaction, each listed reader sent an active_drop (BecomePulled), and a later
// active_merge for a pulled author records nothing: a reader's active_on never names a
// pulled author for longer than a drop takes to arrive, so a home read trusts it and reads
// no author's row to classify its followees (flows/timeline.cc).
// A long-running process (weibod, the bench) holds the active_join jobs of many reads and
// applies them together, one transaction per author shard (jobs.h, JobKind::held_to_batch):
// no reply waits for a join, as the reader pulls every author whose list it is not on yet.
// A join runs on the author's shard (active_join): it touches the LRU entry, snapshots the
// author's newest posts (up to inbox_cap, above the reader's inbox floor) and sends them
// back as active_merge, which delivers them and records active_on in one transaction on the
// reader's shard (it writes there only, so group commit applies it as it does deliveries:
// jobs.cc, JobKind::target_only). A reader still on the list (where the list is as long as the
// author's active readers) gets no snapshot: the fan-out has delivered everything since its entry
// was made, and the merge enqueued with the entry everything before. Serialising on the author's
// shard makes this exact: a post commits either before the snapshot (and is in it) or after the
// entry exists (and its fan-out reaches the reader). An entry pushed out of a list sends
// active_drop to the evicted reader's shard; from then on the reader pulls that author (the inbox
// rows already there are merged with the pulled ones, duplicates removed), until a later join.
#include <algorithm>
#include <map>
#include <set>

#include "flows/feed_policy.h"
#include "flows/flows.h"
#include "flows/message.h"
#include "tables/active_fan.h"
#include "tables/msg_index.h"
#include "tables/user_relation.h"

namespace weibo {

ActivityDue ActivityOf(Context& ctx, const UserRow& user) {
  ActivityDue due;
  int64_t now = ctx.now();
  due.touch = now - user.last_active >= kActivityGrainMs;
  due.rejoin = FeedPolicy(ctx).UsesActiveLists() && !ReadsHome(user, now);
  return due;
}

bool ReadsHome(const UserRow& user, int64_t now) {
  return user.lists_touched > 0 && now - user.lists_touched < kActiveWindowMs;
}

void BecomePulled(Context& ctx, Shard& author_shard, int64_t author) {
  if (!MarkPulledFrom(author_shard, author, ctx.config().celebrity_threshold)) return;
  if (!FeedPolicy(ctx).UsesActiveLists()) return;
  for (const ActiveEntry& e : TakeActiveFans(author_shard, author))
    Enqueue(ctx, author_shard, static_cast<int>(e.fan % ctx.shards().count()),
            ActiveDropJob{e.fan, author, 0});
}

void RecordActivity(Context& ctx, Shard& shard, int64_t user, const ActivityDue& due, int64_t now) {
  if (!due.any()) return;
  TouchUser(shard, user, now);
  if (!due.rejoin) return;
  SetListsTouched(shard, user, now);
  // Lists at least as long as the threshold never push a fan out: a pushed author has fewer
  // fans than that, and only fans are listed. Then a list that holds the reader needs no
  // refresh, and the reader rejoins only the authors it is not active on (those it pulls).
  std::vector<int64_t> listed = ActiveAuthors(shard, user);  // ascending
  int64_t floor = InboxFloor(shard, user);
  // A reader on no list (a first read, or one back after their entries were dropped) has in
  // the inbox only their own posts, which are all there: the inbox is complete from any
  // floor up. Raised to the oldest item of the full first page just shown, it asks each
  // snapshot for that page's items and newer ones, not an author's whole history up to the
  // cap, and the next first pages are still read from the inbox alone. A page reaching
  // below the floor pulls, as below a trimmed inbox (flows/timeline.cc): the trade is the
  // copy of a few hundred rows at a first read against pulls on deep pages.
  if (listed.empty() && due.shown > floor) {
    RaiseInboxFloor(shard, user, due.shown);
    floor = due.shown;
  }
  if (ctx.config().active_list < ctx.config().celebrity_threshold) listed.clear();
  std::map<int, std::vector<int64_t>> by_shard;
  for (int64_t author : Related(shard, user, kFollowing))
    if (!std::binary_search(listed.begin(), listed.end(), author))
      by_shard[static_cast<int>(author % ctx.shards().count())].push_back(author);
  for (auto& [target, authors] : by_shard)
    Enqueue(ctx, shard, target, ActiveJoinJob{user, std::move(authors), floor});
}

namespace {

// JoinActiveList once the author is known to push and to have fan among its fans: user is
// the author's row (fans_count at least).
ActiveMergeEntry JoinChecked(Context& ctx, Shard& author_shard, const UserRow& user, int64_t fan,
                             int64_t floor) {
  const int64_t author = user.id;
  std::vector<ActiveEntry> evicted;
  bool was_listed = false;
  int64_t seq = TouchActiveFan(author_shard, author, fan, ctx.config().active_list, &evicted,
                               &was_listed, user.fans_count);
  for (const auto& e : evicted)
    Enqueue(ctx, author_shard, static_cast<int>(e.fan % ctx.shards().count()),
            ActiveDropJob{e.fan, author, e.touched});
  ActiveMergeEntry entry{author, seq, {}, std::nullopt};
  // Still on the list: every post since the entry was made has reached the reader by the
  // fan-out, and the posts before it by the merge that was enqueued with the entry (in
  // this same kind of transaction). A snapshot would only repeat them; the merge then just
  // records the new sequence.
  if (was_listed) return entry;
  int64_t cap = ctx.config().inbox_cap;
  for (const MsgRow& m :
       AuthorPostsOf(ctx, author_shard, author, std::max<int64_t>(0, floor - 1), cap))
    entry.items.push_back({m.id, m.time});
  // A full snapshot may have left older posts behind: the inbox is complete only from the
  // oldest one up (tables/msg_index.h).
  if (static_cast<int64_t>(entry.items.size()) >= cap) entry.floor = entry.items.back().msg_id;
  return entry;
}

}  // namespace

std::optional<ActiveMergeEntry> JoinActiveList(Context& ctx, Shard& author_shard, int64_t author,
                                               int64_t fan, int64_t floor) {
  auto user = GetUser(author_shard, author);
  if (!user || !FeedPolicy(ctx).PushesAuthor(*user) ||
      !HasRelation(author_shard, author, fan, kFan))
    return std::nullopt;
  return JoinChecked(ctx, author_shard, *user, fan, floor);
}

void ApplyActiveJoin(Context& ctx, Shard& target, const ActiveJoinJob& p) {
  // The authors that push and still have the fan row, with one statement for the job's
  // authors (a first read joins dozens on each shard), then each author's join.
  FeedPolicy feed(ctx);
  ActiveMergeJob merge{p.fan, {}};
  for (const UserRow& author : GetFanCountsOfFan(target, p.authors, p.fan))
    if (feed.PushesAuthor(author))
      merge.entries.push_back(JoinChecked(ctx, target, author, p.fan, p.floor));
  if (!merge.entries.empty())
    Enqueue(ctx, target, static_cast<int>(p.fan % ctx.shards().count()), merge);
}

void ApplyActiveMerge(Context& ctx, Shard& target, const ActiveMergeJob& p) {
  // The authors still followed here (an unfollow meanwhile drops the entry), then, on their
  // shards, one statement per shard (a first read's join merges dozens of authors): those
  // that still have the fan row and still push. Pulled since the join: BecomePulled's drop
  // may already have been applied, and a reader's active_on must never name a pulled author
  // (flows/timeline.cc trusts it).
  ShardSet& shards = ctx.shards();
  std::map<int, std::vector<int64_t>> followed;
  for (const ActiveMergeEntry& entry : p.entries)
    if (HasRelation(target, p.user, entry.author, kFollowing))
      followed[static_cast<int>(entry.author % shards.count())].push_back(entry.author);
  FeedPolicy feed(ctx);
  std::set<int64_t> pushing;
  for (const auto& [shard, authors] : followed)
    for (const UserRow& author : GetFanCountsOfFan(shards.At(shard), authors, p.user))
      if (feed.PushesAuthor(author)) pushing.insert(author.id);
  // Messages deleted since the snapshot are left out: every entry's at once, one statement
  // per message shard.
  std::vector<std::pair<int64_t, const std::vector<MergeItem>*>> merged;
  for (const ActiveMergeEntry& entry : p.entries)
    if (pushing.count(entry.author)) merged.emplace_back(entry.author, &entry.items);
  const std::set<int64_t> live = LiveMergeItems(ctx, merged);
  for (const ActiveMergeEntry& entry : p.entries) {
    if (!pushing.count(entry.author)) continue;
    if (entry.floor) RaiseInboxFloor(target, p.user, *entry.floor);
    DeliverMergeItems(ctx, target, p.user, entry.author, entry.items, live);
    SetActiveOn(target, p.user, entry.author, entry.seq);
  }
}

void ApplyActiveDrop(Context&, Shard& target, const ActiveDropJob& p) {
  DropActiveOn(target, p.user, p.author, p.upto);
}

}  // namespace weibo
