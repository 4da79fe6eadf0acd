// The write side of the feed modes (SPEC §5): who gets an inbox row for a new post.
//
//   push    every fan of the author gets one (seed 000 flow 2, step 4);
//   pull    nobody: readers merge their followees' posts (flows/timeline.cc);
//   hybrid  authors with fans_count >= celebrity_threshold are pulled, the others pushed
//           (seed 004); an author who has reached the threshold stays pulled
//           (user_info.pulled), so posts made while pulled never vanish.
//
// A fanout job runs on the author's shard: it reads the fan list (type 0 rows, all on
// that shard), groups the fans by their shard and enqueues one deliver job per shard — so a
// post costs one transaction per follower shard, not one per follower. Fans on the
// author's own shard are delivered in the fanout's own transaction. A delivery inserts
// only while the reader still follows the author (msg_index.h), and a second delivery of the
// same post is a no-op (the inbox key), so replays and races duplicate nothing. purge and
// undeliver undo it for a deleted message the same way, and undeliver records the message
// in msg_deleted so that a delivery applied after it (left pending by a crash) adds nothing.
#include <map>

#include "flows/flows.h"
#include "flows/message.h"
#include "tables/msg_deleted.h"
#include "tables/msg_index.h"
#include "tables/user_relation.h"

namespace weibo {
namespace {

// Fans grouped by shard; the author's own shard comes back separately.
std::map<int, Json> FansByShard(Context& ctx, Shard& shard, int64_t author) {
  std::map<int, Json> groups;
  for (int64_t fan : Related(shard, author, kFan)) {
    auto& group = groups[static_cast<int>(fan % ctx.shards().count())];
    if (group.is_null()) group = Json::array();
    group.push_back(fan);
  }
  return groups;
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
  ctx.Enqueue(shard, shard.index(), "fanout",
              Json{{"author", msg.user_id}, {"msg_id", msg.id}, {"time", msg.time}});
}

void EnqueuePurge(Context& ctx, Shard& shard, const MsgRow& msg) {
  ctx.Enqueue(shard, shard.index(), "purge", Json{{"author", msg.user_id}, {"msg_id", msg.id}});
}

void ApplyFanOut(Context& ctx, Shard& shard, const Json& p) {
  int64_t author = p.at("author").get<int64_t>(), msg_id = p.at("msg_id").get<int64_t>();
  if (!GetMsg(shard, msg_id)) return;  // deleted before it was delivered
  for (auto& [target, fans] : FansByShard(ctx, shard, author)) {
    Json job{{"author", author}, {"msg_id", msg_id}, {"time", p.at("time")}, {"users", fans}};
    if (target == shard.index())
      ApplyDeliver(ctx, shard, job);
    else
      ctx.Enqueue(shard, target, "deliver", job);
  }
}

void ApplyDeliver(Context& ctx, Shard& target, const Json& p) {
  InboxRow row{0, p.at("msg_id").get<int64_t>(), p.at("author").get<int64_t>(),
               p.at("time").get<int64_t>()};
  for (const auto& user : p.at("users")) {
    row.user_id = user.get<int64_t>();
    DeliverInbox(target, row);
    MaybeTrimInbox(target, row.user_id, row.msg_id, ctx.config().inbox_cap);
  }
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
