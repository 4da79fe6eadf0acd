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
// shard (a read of that shard) both exist, and the message does. A purge undelivers to the
// fans at purge time; with the fan row required, every reader who can hold a row of the
// message is among them. A re-follow whose fan row is still in flight gets the author's
// posts from its own merge, once the fan row is there.
//
// Tiers: a tiered deliver job sorts its users by user_info.last_active (on the target shard,
// where the users live) against the post's time, delivers tier 0 in its own transaction and
// enqueues a deliver job for tier 1 on the same shard, which carries tier 2 along and
// enqueues it when it is applied. A drain applies jobs wave by wave (jobs/jobs.cc), so tier
// 0 of every shard is delivered before any tier 1, and every tier 1 before any tier 2. The
// timeline is the same whatever the order.
#include <map>

#include "flows/flows.h"
#include "flows/message.h"
#include "tables/active_fan.h"
#include "tables/msg_deleted.h"
#include "tables/msg_index.h"
#include "tables/user_relation.h"

namespace weibo {
namespace {

constexpr int64_t kDayMs = 24LL * 3600 * 1000;

std::map<int, Json> ByShard(Context& ctx, const std::vector<int64_t>& users) {
  std::map<int, Json> groups;
  for (int64_t fan : users) {
    auto& group = groups[static_cast<int>(fan % ctx.shards().count())];
    if (group.is_null()) group = Json::array();
    group.push_back(fan);
  }
  return groups;
}

// Every fan, grouped by shard.
std::map<int, Json> FansByShard(Context& ctx, Shard& shard, int64_t author) {
  return ByShard(ctx, Related(shard, author, kFan));
}

// 0: active in the day before the post, 1: in the week, 2: the rest.
int Tier(int64_t last_active, int64_t post_time) {
  if (last_active >= post_time - kDayMs) return 0;
  if (last_active >= post_time - 7 * kDayMs) return 1;
  return 2;
}

}  // namespace

// Whether a post by this author is pushed in the cluster's feed mode.
bool PushesAuthor(Context& ctx, const UserRow& author) {
  const ClusterConfig& c = ctx.config();
  if (c.feed == "pull") return false;
  if (c.feed == "hybrid") return !author.pulled && author.fans_count < c.celebrity_threshold;
  return true;
}

void EnqueueFanOut(Context& ctx, Shard& shard, const MsgRow& msg) {
  auto author = GetUser(shard, msg.user_id);
  if (!author || !PushesAuthor(ctx, *author) || author->fans_count == 0) return;
  Json job{{"author", msg.user_id}, {"msg_id", msg.id}, {"time", msg.time}};
  // A small fan-out (every hybrid one: the active list is short) is expanded right here, in
  // the post's transaction: the fan list is on this shard, so this saves the fanout job's
  // own transaction. A large one (tiered) is a job, so the post commits quickly.
  if (ctx.config().feed == "hybrid" || author->fans_count < ctx.config().tier_fans)
    ApplyFanOut(ctx, shard, job);
  else
    ctx.Enqueue(shard, shard.index(), "fanout", job);
}

void EnqueuePurge(Context& ctx, Shard& shard, const MsgRow& msg) {
  ctx.Enqueue(shard, shard.index(), "purge", Json{{"author", msg.user_id}, {"msg_id", msg.id}});
}

void ApplyFanOut(Context& ctx, Shard& shard, const Json& p) {
  int64_t author = p.at("author").get<int64_t>(), msg_id = p.at("msg_id").get<int64_t>();
  if (!GetMsg(shard, msg_id)) return;  // deleted before it was delivered
  const ClusterConfig& config = ctx.config();
  bool tiered = false;
  if (config.feed == "push") {
    auto user = GetUser(shard, author);
    tiered = user && user->fans_count >= config.tier_fans;
  }
  std::vector<int64_t> fans =
      config.feed == "hybrid" ? ActiveFans(shard, author) : Related(shard, author, kFan);
  for (auto& [target, users] : ByShard(ctx, fans)) {
    Json job{{"author", author}, {"msg_id", msg_id}, {"time", p.at("time")}, {"users", users}};
    if (tiered) job["tiered"] = true;
    if (target == shard.index())
      ApplyDeliver(ctx, shard, job);
    else
      ctx.Enqueue(shard, target, "deliver", job);
  }
}

bool MessageGone(Context& ctx, int64_t msg_id) {
  return !GetMsg(ctx.shards().ForMsg(msg_id), msg_id);
}

void ApplyDeliver(Context& ctx, Shard& target, const Json& p) {
  InboxRow row{0, p.at("msg_id").get<int64_t>(), p.at("author").get<int64_t>(),
               p.at("time").get<int64_t>()};

  const Json* users = &p.at("users");
  Json now_users;
  auto enqueue_tier = [&](int tier, const Json& tier_users, const Json& later) {
    Json job{{"author", row.author_id},
             {"msg_id", row.msg_id},
             {"time", row.time},
             {"users", tier_users},
             {"tier", tier}};
    if (!later.empty()) job["later"] = later;
    ctx.Enqueue(target, target.index(), "deliver", job);
  };
  if (p.value("tiered", false)) {
    // Tier 0 here and now; tier 1 as a job of its own, which leaves tier 2 to the job it
    // creates: each tier is created (and drained) only after the one before it.
    Json tiers[3] = {Json::array(), Json::array(), Json::array()};
    for (const auto& user : *users) {
      auto u = GetUser(target, user.get<int64_t>());
      tiers[u ? Tier(u->last_active, row.time) : 2].push_back(user);
    }
    if (!tiers[1].empty())
      enqueue_tier(1, tiers[1], tiers[2]);
    else if (!tiers[2].empty())
      enqueue_tier(2, tiers[2], Json::array());
    now_users = std::move(tiers[0]);
    users = &now_users;
  } else if (p.contains("later") && !p.at("later").empty()) {
    enqueue_tier(2, p.at("later"), Json::array());
  }
  // Only readers who are still fans, and only while the message exists, both read on the
  // author's shard in one statement (see the top of this file); then one statement for the whole
  // group (the follow re-check and msg_deleted included), then the trims. A delivery that arrives
  // after its message was deleted adds nothing: msg_deleted here covers the time after the purge's
  // undeliver has run on this shard, the message's own shard the time before.
  Json fans = Json::array();
  for (int64_t fan :
       FansWhileMsg(ctx.shards().ForUser(row.author_id), row.author_id, row.msg_id, users->dump()))
    fans.push_back(fan);
  DeliverInboxMany(target, fans.dump(), row.msg_id, row.author_id, row.time);
  for (const auto& user : fans)
    MaybeTrimInbox(target, user.get<int64_t>(), row.msg_id, ctx.config().inbox_cap);
}

void ApplyPurge(Context& ctx, Shard& shard, const Json& p) {
  int64_t author = p.at("author").get<int64_t>(), msg_id = p.at("msg_id").get<int64_t>();
  for (auto& [target, fans] : FansByShard(ctx, shard, author)) {
    Json job{{"msg_id", msg_id}, {"users", fans}};
    if (target == shard.index())
      ApplyUndeliver(ctx, shard, job);
    else
      ctx.Enqueue(shard, target, "undeliver", job);
  }
}

void ApplyUndeliver(Context&, Shard& target, const Json& p) {
  int64_t msg_id = p.at("msg_id").get<int64_t>();
  // A delivery or merge of this message still pending (a crash) must add nothing later.
  RecordMsgDeleted(target, msg_id);
  for (const auto& user : p.at("users")) DeleteInbox(target, user.get<int64_t>(), msg_id);
}

}  // namespace weibo
