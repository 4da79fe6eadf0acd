// The write side of the feed modes (SPEC §5): who gets an inbox row for a new post.
//
//   push    every fan of the author gets one (seed 000 flow 2, step 4); for an author with
//           fans_count >= tier_fans the fans are delivered in activity tiers (seed 000,
//           Sina): those active in the day before the post first, then the week, then the
//           rest;
//   pull    nobody: readers merge their followees' posts (flows/timeline.cc);
//   hybrid  authors with fans_count >= celebrity_threshold are pulled, the others pushed
//           (seed 004), and only to the fans on their active list (flows/active.cc); an
//           author who has reached the threshold stays pulled (user_info.pulled), so posts
//           made while pulled never vanish.
//
// A fan-out runs on the author's shard — in the post's own transaction when it is small
// (fewer than tier_fans fans, or hybrid's active list), else as a fanout job: it reads the
// fan list (type 0 rows, or the active list, all on that shard), groups the fans by their
// shard and enqueues one deliver job per shard — so a post costs one transaction per follower
// shard, not one per follower. Fans on the author's own shard are delivered in the fanout's own
// transaction. A delivery inserts only while the reader still follows the author (msg_index.h), and
// a second delivery of the same post is a no-op (the inbox key), so replays and races duplicate
// nothing. purge and undeliver undo it for a deleted message the same way, and undeliver records
// the message in msg_deleted so that a delivery applied after it (left pending by a crash) adds
// nothing.
//
// Both halves of a follow: a reader gets an inbox row (delivery or merge) only while the
// follow row on the reader's shard (checked by the insert) and the fan row on the author's
// shard (a read of that shard) both exist, and the message does. That read is never in the
// delivery's transaction (it is another shard's), only before it — by however long a process
// may stall between two transactions — so any read of the fan list made while the message
// existed and before the insert is as good a check: the deliveries a request applies for its
// own fan-out (a post's, or a fanout job's and its tiers in one drain) check their readers
// against the fan list that fan-out read (Context::RememberFans), as do the deliveries a server
// holds back from it (group commit) and applies in a later request; only a delivery applied by
// another process (a worker, a retry, after a crash) reads the author's shard again. For a
// post to 100 000 fans that is 100 000 index lookups on the author's shard fewer. A purge
// undelivers to the fans at purge time; with the fan row required, every reader who can hold
// a row of the message is among them. A re-follow whose fan row is still in flight gets the
// author's posts from its own merge, once the fan row is there.
//
// Tiers: a tiered deliver job sorts its users by user_info.last_active (on the target shard,
// where the users live) against the post's time, delivers tier 0 in its own transaction and
// enqueues a deliver job for tier 1 on the same shard, which carries tier 2 along and
// enqueues it when it is applied. A drain applies jobs wave by wave (jobs/jobs.cc), so tier
// 0 of every shard is delivered before any tier 1, and every tier 1 before any tier 2. The
// timeline is the same whatever the order.
#include <algorithm>
#include <iterator>
#include <map>
#include <set>

#include "flows/feed_policy.h"
#include "flows/flows.h"
#include "flows/message.h"
#include "tables/active_fan.h"
#include "tables/author_feed.h"
#include "tables/id_list.h"
#include "tables/message_cache.h"
#include "tables/msg_deleted.h"
#include "tables/msg_index.h"
#include "tables/msg_info.h"
#include "tables/user_info.h"
#include "tables/user_relation.h"

namespace weibo {
namespace {

constexpr int64_t kDayMs = 24LL * 3600 * 1000;
// Below this many users a delivery seeks each one's rows (Dense, ScanFollowers).
constexpr size_t kScanAt = 64;

std::map<int, std::vector<int64_t>> ByShard(Context& ctx, const std::vector<int64_t>& users) {
  std::map<int, std::vector<int64_t>> groups;
  for (int64_t fan : users) groups[static_cast<int>(fan % ctx.shards().count())].push_back(fan);
  return groups;
}

// Every fan, grouped by shard.
std::map<int, std::vector<int64_t>> FansByShard(Context& ctx, Shard& shard, int64_t author) {
  return ByShard(ctx, Related(shard, author, kFan));
}

// 0: active in the day before the post, 1: in the week, 2: the rest.
int Tier(int64_t last_active, int64_t post_time) {
  if (last_active >= post_time - kDayMs) return 0;
  if (last_active >= post_time - 7 * kDayMs) return 1;
  return 2;
}

// The users who are still fans while the message exists (the top of this file): checked
// against the fan list this request's fan-out read, when it did, else read on the author's
// shard in one statement for the whole group (users_json is users' list).
std::vector<int64_t> StillFans(Context& ctx, const InboxRow& row, const std::vector<int64_t>& users,
                               const std::string& users_json) {
  const std::vector<int64_t>* read = ctx.FansRead(row.msg_id);
  if (read == nullptr)
    return FansWhileMsg(ctx.shards().ForUser(row.author_id), row.author_id, row.msg_id, users_json,
                        !ctx.shards().AuthorHoldsMsgs());
  std::vector<int64_t> fans;
  fans.reserve(users.size());
  if (!std::is_sorted(users.begin(), users.end())) {
    for (int64_t user : users)
      if (std::binary_search(read->begin(), read->end(), user)) fans.push_back(user);
    return fans;
  }
  // Both ascending (the usual case: one shard's part of the list read): each search starts
  // where the last ended and gallops, a few comparisons per user where a binary search of
  // a star's whole list costs seventeen.
  auto from = read->begin();
  for (int64_t user : users) {
    size_t step = 1;
    auto to = from;
    while (to != read->end() && *to < user) {
      from = to;
      to = static_cast<size_t>(read->end() - to) > step ? to + step : read->end();
      step *= 2;
    }
    from = std::lower_bound(from, to, user);
    if (from != read->end() && *from == user) fans.push_back(user);
  }
  return fans;
}

// Whether users (a delivery's, one shard's) are dense enough among that shard's users for
// one scan of the rows between the first and the last to read less than a seek per user:
// ascending, and at least half of the ids in that range that live on this shard (user ids
// are spread over the shards by id mod N, storage/shard_set.h). A celebrity's whole fan
// list on a shard often is (--star's is: every user of the bench is a fan).
bool Dense(Context& ctx, const std::vector<int64_t>& users) {
  if (users.size() < kScanAt || !std::is_sorted(users.begin(), users.end())) return false;
  const uint64_t span = static_cast<uint64_t>(users.back()) - static_cast<uint64_t>(users.front());
  return span / static_cast<uint64_t>(ctx.shards().count()) + 1 <= 2 * users.size();
}

// How many fans of the job's shard its fan-out listed: the first job's users, and a later
// tier's job carries the number (0 from a build that did not: unknown).
int64_t Listed(const DeliverJob& job) {
  return job.tier ? job.of : static_cast<int64_t>(job.users.size());
}

// Whether a delivery checks its readers' follow rows with one scan of the author's followers
// between its first and last reader (user_relation_followers) instead of a seek per reader:
// for a push fan-out's list of this shard's fans, or a tier of it (the scan reads at most
// the list's followers), when what it delivers is at least a quarter of that list; not for
// an active list, whose author's other followers it would read for nothing. The scan reads
// about 0.1 us a row, a seek about 0.3 (session 25's measurements, README), hence the
// quarter. Either way the check is made in the delivery's own transaction; only its cost
// depends on this.
bool ScanFollowers(Context& ctx, const DeliverJob& job, const std::vector<int64_t>& fans) {
  const int64_t listed = Listed(job);
  if (fans.size() < kScanAt || listed == 0 || FeedPolicy(ctx).UsesActiveLists()) return false;
  return static_cast<int64_t>(fans.size()) * 4 >= listed &&
         std::is_sorted(fans.begin(), fans.end());
}

}  // namespace

void EnqueueFanOut(Context& ctx, Shard& shard, const MsgRow& msg) {
  auto author = GetUser(shard, msg.user_id);
  FeedPolicy feed(ctx);
  if (!author) return;
  if (!feed.PushesAuthor(*author)) {
    // At the threshold but not marked: the threshold was lowered since the last follow.
    // Marking now takes the author off its readers' active_on (flows/active.cc).
    if (feed.UsesActiveLists() && !author->pulled) BecomePulled(ctx, shard, msg.user_id);
    return;
  }
  if (author->fans_count == 0) return;
  FanOutJob job{msg.user_id, msg.id, msg.time};
  // A small fan-out (every hybrid one: the active list is short) is expanded right here, in
  // the post's transaction: the fan list is on this shard, so this saves the fanout job's
  // own transaction. A large one (tiered) is a job, so the post commits quickly.
  if (!feed.FanOutInPost(author->fans_count)) {
    Enqueue(ctx, shard, shard.index(), job);
    return;
  }
  // In a server that holds deliveries, those to other shards are held as parts of this
  // fan-out, and its fanout job is written instead of theirs, to stay pending until they are
  // applied and synced (jobs/jobs.cc, "held fan-outs"): a crash before then replays it.
  Context::FanOutParts scope(ctx, true);
  ApplyFanOut(ctx, shard, job);
  std::vector<HeldJob> parts = ctx.TakeFanOutParts();
  if (parts.empty()) return;
  Enqueue(ctx, shard, shard.index(), job);
  ctx.BindFanOutParts(std::move(parts));
}

void EnqueuePurge(Context& ctx, Shard& shard, const MsgRow& msg) {
  // On the author's shard, where the fans are: this one, but under tid a delete's home is
  // the message's shard.
  Enqueue(ctx, shard, ctx.shards().AuthorShardIndex(msg.user_id), PurgeJob{msg.user_id, msg.id});
}

void ApplyFanOut(Context& ctx, Shard& shard, const FanOutJob& p) {
  // Deleted before it was delivered: its row on this, the author's shard, is gone (under
  // tid its msg_info row is on another shard; its author_feed row is here).
  if (ctx.shards().AuthorHoldsMsgs() ? !GetMsg(shard, p.msg_id)
                                     : !HasAuthorFeed(shard, p.author, p.msg_id))
    return;
  FeedPolicy feed(ctx);
  bool tiered = false;
  if (feed.TiersFanOuts()) {  // the author's row is read only where it may matter
    auto user = GetUser(shard, p.author);
    tiered = user && feed.Tiered(user->fans_count);
  }
  const bool active = feed.UsesActiveLists();
  std::vector<int64_t> fans = active ? ActiveFans(shard, p.author) : Related(shard, p.author, kFan);
  // The fan list itself, read with the message there: the fan-row check of every delivery
  // this request applies for it (the top of this file). Not an active list, which may hold
  // a reader whose fan row is gone.
  if (!active) ctx.RememberFans(p.msg_id, fans);
  for (auto& [target, users] : ByShard(ctx, fans)) {
    DeliverJob job{p.author, p.msg_id, p.time, std::move(users), std::nullopt, tiered, {}};
    if (target == shard.index())
      ApplyDeliver(ctx, shard, job);
    else if (ctx.HoldsFanOutParts())  // a held fan-out's part (EnqueueFanOut)
      ctx.HoldFanOutPart(shard, target, DeliverJob::kKind, job.Encode());
    else
      Enqueue(ctx, shard, target, job);
  }
}

std::set<int64_t> LiveMergeItems(
    Context& ctx, const std::vector<std::pair<int64_t, const std::vector<MergeItem>*>>& lists) {
  // Whether each is still on its own shard is read with one statement per shard, not one
  // read transaction per item (a returning reader's rejoin merges hundreds of items: perf
  // of the retwis replay in hybrid, two thirds of the merge went to those reads one by one).
  std::map<int, std::vector<int64_t>> by_shard;
  for (const auto& [author, items] : lists)
    for (const MergeItem& item : *items) {
      ctx.shards().KnowAuthor(item.msg_id, author);  // uid-mapping: no lookup, no race with it
      by_shard[ctx.shards().MsgShardIndex(item.msg_id)].push_back(item.msg_id);
    }
  std::set<int64_t> live;
  for (const auto& [shard, ids] : by_shard)
    for (int64_t id : ExistingMsgs(ctx.shards().At(shard), IdList(ids))) live.insert(id);
  return live;
}

void DeliverMergeItems(Context& ctx, Shard& target, int64_t user, int64_t author,
                       const std::vector<MergeItem>& items, const std::set<int64_t>& live) {
  for (const MergeItem& item : items) {
    if (!live.count(item.msg_id)) continue;
    DeliverInbox(target, {user, item.msg_id, author, item.time});
    MaybeTrimInbox(target, user, item.msg_id, ctx.config().inbox_cap);
  }
}

void MergeIntoInbox(Context& ctx, Shard& target, int64_t user, int64_t author,
                    const std::vector<MergeItem>& items) {
  // A message deleted since the snapshot is left out.
  DeliverMergeItems(ctx, target, user, author, items, LiveMergeItems(ctx, {{author, &items}}));
}

void ApplyDeliver(Context& ctx, Shard& target, const DeliverJob& p) {
  InboxRow row{0, p.msg_id, p.author, p.time};

  const std::vector<int64_t>* users = &p.users;
  std::vector<int64_t> now_users;
  std::string users_json = IdList(*users);  // the list as its statements take it
  auto enqueue_tier = [&](int tier, std::vector<int64_t> tier_users, std::vector<int64_t> later) {
    Enqueue(ctx, target, target.index(),
            DeliverJob{row.author_id, row.msg_id, row.time, std::move(tier_users), tier, false,
                       std::move(later), Listed(p)});
  };
  if (p.tiered) {
    // Tier 0 here and now; tier 1 as a job of its own, which leaves tier 2 to the job it
    // creates: each tier is created (and drained) only after the one before it. The users
    // not active in the day before the post are read in one statement for the whole list
    // (a user not on this shard: the last tier); tier 0 is the rest, in the list's order.
    std::vector<int64_t> tiers[3];
    auto inactive = Dense(ctx, *users) ? InactiveSinceSorted(target, *users, row.time - kDayMs)
                                       : InactiveSince(target, users_json, row.time - kDayMs);
    auto next = inactive.begin();
    for (int64_t user : *users) {
      if (next != inactive.end() && next->first == user) {
        tiers[next->second ? Tier(*next->second, row.time) : 2].push_back(user);
        ++next;
      } else {
        tiers[0].push_back(user);
      }
    }
    if (!tiers[1].empty())
      enqueue_tier(1, std::move(tiers[1]), std::move(tiers[2]));
    else if (!tiers[2].empty())
      enqueue_tier(2, std::move(tiers[2]), {});
    now_users = std::move(tiers[0]);
    users = &now_users;
    if (!inactive.empty()) users_json = IdList(*users);
  } else if (!p.later.empty()) {
    enqueue_tier(2, p.later, {});
  }
  if (users->empty()) return;
  // Only readers who are still fans, and only while the message exists, both read on the
  // author's shard in one statement (see the top of this file); then one statement for the whole
  // group (the follow re-check and msg_deleted included; for a large list the follow re-check
  // is a scan of its own just before, ScanFollowers), then the trims. A delivery that arrives
  // after its message was deleted adds nothing: msg_deleted here covers the time after the purge's
  // undeliver has run on this shard, the message's own shard the time before. The list is
  // written once: when every user is in tier 0 and still a fan (the usual case), the same text
  // serves all three statements.
  std::vector<int64_t> fans = StillFans(ctx, row, *users, users_json);
  if (fans.empty()) return;
  if (ScanFollowers(ctx, p, fans)) {
    // The follow check as one range scan (FollowersBetween), in this transaction as the
    // statement's own check would be: the readers who still follow, in the fans' order.
    std::vector<int64_t> following =
        FollowersBetween(target, row.author_id, fans.front(), fans.back());
    std::vector<int64_t> both;
    both.reserve(fans.size());
    std::set_intersection(fans.begin(), fans.end(), following.begin(), following.end(),
                          std::back_inserter(both));
    if (both.size() != users->size()) users_json = IdList(both);  // else both == *users
    fans = std::move(both);
    if (fans.empty()) return;
    DeliverInboxToFollowers(target, fans, users_json, row.msg_id, row.author_id, row.time);
  } else {
    if (fans.size() != users->size()) users_json = IdList(fans);
    DeliverInboxMany(target, fans, users_json, row.msg_id, row.author_id, row.time);
  }
  for (int64_t user : fans) MaybeTrimInbox(target, user, row.msg_id, ctx.config().inbox_cap);
}

// Judged as ApplyDeliver will judge them, but for what the page checks anyway (a message
// deleted since is skipped when the page resolves it): the reader must be among the job's
// users (any tier) and still follow the author (an unfollow's undelivery may have run
// already, and the delivery will re-check the follow). Looked up by reader in the index
// of the target's held deliveries (GroupCommit::held_readers), first extended over the
// jobs held since the last read: each held job is decoded once, not at every read. The
// batch a background applier is applying for the target (GroupCommit::in_flight) is
// looked up the same way: until it is collected, its rows may not be committed yet.
namespace {

void IndexHeld(const std::vector<HeldJob>& jobs, GroupCommit::HeldReaders& index) {
  for (; index.indexed < jobs.size(); ++index.indexed) {
    DeliverJob::ForEachDelivery(jobs[index.indexed].payload,
                                [&](int64_t msg_id, int64_t author, int64_t user) {
                                  int64_t& last = index.last.Emplace(user, -1);
                                  index.deliveries.push_back({msg_id, author, last});
                                  last = static_cast<int64_t>(index.deliveries.size()) - 1;
                                });
  }
}

}  // namespace

std::vector<int64_t> HeldInboxIds(Context& ctx, Shard& own, int64_t reader,
                                  const std::vector<int64_t>* followees) {
  GroupCommit& group = ctx.group_commit();
  // (index, the reader's last delivery in it)
  std::vector<std::pair<const GroupCommit::HeldReaders*, int64_t>> found;
  auto look = [&](GroupCommit::HeldReaders& index, const std::vector<HeldJob>& jobs) {
    IndexHeld(jobs, index);
    if (const int64_t* mine = index.last.Find(reader)) found.emplace_back(&index, *mine);
  };
  auto it = group.held_deliveries.find(own.index());
  if (it != group.held_deliveries.end()) look(group.held_readers[own.index()], it->second);
  if (group.in_flight && group.in_flight->target == own.index())
    look(group.in_flight->readers, *group.in_flight->jobs);
  if (found.empty()) return {};
  std::vector<int64_t> ids;
  std::map<int64_t, bool> follows;  // author -> whether reader follows, without followees
  auto follows_author = [&](int64_t author) {
    if (followees != nullptr)
      return std::binary_search(followees->begin(), followees->end(), author);
    auto f = follows.find(author);
    if (f == follows.end())
      f = follows.emplace(author, HasRelation(own, reader, author, kFollowing)).first;
    return f->second;
  };
  for (const auto& [index, last] : found) {
    for (int64_t at = last; at >= 0; at = index->deliveries[static_cast<size_t>(at)].previous) {
      const GroupCommit::HeldReaders::Delivery& d = index->deliveries[static_cast<size_t>(at)];
      if (follows_author(d.author)) ids.push_back(d.msg_id);
    }
  }
  std::sort(ids.rbegin(), ids.rend());
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  return ids;
}

void PatchInboxes(MessageCache& cache, const Json& payload, int target, bool applied) {
  const bool plain = applied && DeliverJob::Plain(payload);
  DeliverJob::ForEachDelivery(payload, [&](int64_t msg_id, int64_t author, int64_t user) {
    cache.Delivered(target, user, msg_id, author, plain);
  });
}

void ApplyPurge(Context& ctx, Shard& shard, const PurgeJob& p) {
  for (auto& [target, fans] : FansByShard(ctx, shard, p.author)) {
    UndeliverJob job{p.msg_id, std::move(fans)};
    if (target == shard.index())
      ApplyUndeliver(ctx, shard, job);
    else
      Enqueue(ctx, shard, target, job);
  }
}

void ApplyUndeliver(Context&, Shard& target, const UndeliverJob& p) {
  // A delivery or merge of this message still pending (a crash) must add nothing later.
  RecordMsgDeleted(target, p.msg_id);
  for (int64_t user : p.users) DeleteInbox(target, user, p.msg_id);
}

}  // namespace weibo
