// notify send, list, read, unread; the expiry of last-seen ids (seed 004, SPEC §6).
//
// Shards: send writes one notification row on shard 0 — one row for every user, however
// many there are (tables/notification.h). list reads shard 0. read stores, on the user's
// shard, the newest notification id as the user's last-read id (last_seen kind
// kSeenNotify, with the time); unread counts the notifications above it on shard 0. A user
// with no stored id is new (or was inactive for 30 days): unread 0, as the seed says.
//
// Expiry: the drain op (weibo-worker, weibod's drain pass) drops the last-seen ids (of
// notifications and of the red dot, flows/timeline.cc) stored more than 30 days ago by
// users not active since (user_info.last_active), and re-dates the others so that a pass
// reads them again only 30 days later (tables/notification.h, ExpireSeen). A read that stores an id
// commits in one transaction on the user's shard and expiry in another, so a read in flight while
// its user's id expires leaves either the new id (stored now: not expired) or none, never a half; a
// read never moves the id backwards (SetSeen keeps the larger). In a cluster every node gets a
// drain request (the broker sends it to all) and expires the ids of the shards it owns; nothing
// else drains them.
#include "flows/flows.h"
#include "jobs/jobs.h"
#include "storage/clock.h"
#include "storage/failure.h"
#include "tables/notification.h"
#include "tables/seen_cache.h"

namespace weibo {
namespace {

Shard& ListShard(Context& ctx) { return ctx.shards().At(0); }

Json NotificationJson(const NotificationRow& row) {
  return Json{
      {"id", std::to_string(row.id)}, {"content", row.content}, {"time", FormatTime(row.time)}};
}

Json UnreadJson(int64_t user, int64_t unread) {
  return Json{{"user_id", std::to_string(user)}, {"unread", unread}};
}

}  // namespace

Json NotifySend(Context& ctx, const Json& args) {
  Shard& shard = ListShard(ctx);
  NotificationRow row;
  row.content = args.at("content").get<std::string>();
  row.time = ctx.now();
  {
    WriteTxn txn(shard);
    if (auto done = ctx.Replayed(shard)) {
      txn.Commit();  // nothing written
      for (const auto& sent : NotificationsPage(shard, *done + 1, 1))
        if (sent.id == *done) return NotificationJson(sent);
      Fail(Code::kStorageError, "notification " + std::to_string(*done) + " is gone");
    }
    row.id = InsertNotification(shard, row.content, row.time);
    ctx.RecordApplied(shard, row.id);
    txn.Commit();
  }
  return NotificationJson(row);
}

Json NotifyList(Context& ctx, const Json& args) {
  ctx.ResolveUser(args.at("user"));
  Json out = Json::array();
  for (const auto& row : NotificationsPage(ListShard(ctx), args.value("max_id", int64_t{0}),
                                           args.value("count", int64_t{20})))
    out.push_back(NotificationJson(row));
  return out;
}

Json NotifyRead(Context& ctx, const Json& args) {
  int64_t user = ctx.ResolveUser(args.at("user"));
  int64_t newest = NewestNotification(ListShard(ctx));
  Shard& shard = ctx.shards().ForUser(user);
  WriteTxn txn(shard);
  SetSeen(shard, user, kSeenNotify, newest, ctx.now());
  txn.Commit();
  if (SeenCache* cache = ctx.seen_cache()) cache->Forget(user);
  Json out = UnreadJson(user, 0);
  out["last_read"] = std::to_string(newest);
  return out;
}

Json NotifyUnread(Context& ctx, const Json& args) {
  // The stored id first: only a user who exists has one (read resolves its user before it
  // stores it, and users are never removed), so the common case reads one row of the
  // user's shard, not two. Each is a random page of a table that grows with the users.
  // A server keeps the ids it has read (tables/seen_cache.h): a repeated unread then reads
  // no row of the user's shard, and costs the same however many users there are.
  int64_t user = ctx.UserIdOf(args.at("user"));
  Shard& shard = ctx.shards().ForUser(user);
  SeenCache* cache = ctx.seen_cache();
  int64_t last_id = 0;
  if (cache != nullptr) cache->Validate(shard);
  if (cache == nullptr || !cache->Find(shard.index(), user, &last_id)) {
    auto seen = GetSeen(shard, user, kSeenNotify);
    if (!seen) {
      ctx.RequireUser(user);       // not_found for an unknown user
      return UnreadJson(user, 0);  // a new user
    }
    last_id = seen->last_id;
    if (cache != nullptr) cache->Put(shard, user, last_id);
  }
  return UnreadJson(user, NotificationsAfter(ListShard(ctx), last_id, INT64_MAX));
}

int64_t ExpireLastSeen(Context& ctx) {
  const int64_t cutoff = ctx.now() - kSeenExpiryMs;
  int64_t expired = 0;
  for (int i = 0; i < ctx.shards().count(); ++i) {
    if (!OwnsShard(ctx, i)) continue;
    Shard& shard = ctx.shards().At(i);
    // A read first: most passes find nothing dated before the cutoff (ExpireSeen re-dates
    // what it keeps), and then take no write lock and read one index entry.
    if (!AnySeenStale(shard, kSeenNotify, cutoff) && !AnySeenStale(shard, kSeenTimeline, cutoff))
      continue;
    WriteTxn txn(shard);
    const int64_t notify = ExpireSeen(shard, kSeenNotify, cutoff);
    expired += notify + ExpireSeen(shard, kSeenTimeline, cutoff);
    txn.Commit();
    // The ids it deleted may be held in memory: forgotten, all of the shard's at once.
    if (notify > 0 && ctx.seen_cache() != nullptr) ctx.seen_cache()->ForgetShard(i);
  }
  return expired;
}

}  // namespace weibo
