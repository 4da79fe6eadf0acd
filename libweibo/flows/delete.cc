// delete: by the author; a comment also by the author of the message it comments on
// (seed 000 flows 5-7).
//
// Shards: the message's own shard (its author's, but under strategy tid msg mod N) in one
// transaction — msg_info, msg_counter, msg_like and msg_history rows, and the author's
// side: author_feed, the author's own inbox row, msg_count - 1 (under tid, when the
// author's shard is another, an author_drop job does that side there, and the purge too,
// flows/message_write.cc says why) — plus jobs: for a comment or repost, ref_remove on the
// referenced message's shard (relation row gone, comment_count or transfer_count - 1;
// commented_count and transferred_count never drop); for an original or repost, purge, which
// removes the pushed inbox rows of every follower shard; for a message with text, search_index,
// which drops it from the search index (flows/search.cc); under uid-mapping, tid_map, which marks
// its mapping deleted (flows/placement.cc) when that is on another shard. Until a purge is done,
// readers skip inbox rows whose message is gone, so a deleted message is never shown. Comments and
// reposts of it stay and show it as deleted by its author. A request with an id records it in that
// transaction (tables/request_log.h); the same id again gets the same reply, not not_found.
#include "flows/entities.h"
#include "flows/flows.h"
#include "flows/message.h"
#include "storage/failure.h"
#include "tables/author_feed.h"
#include "tables/entity.h"
#include "tables/msg_counter.h"
#include "tables/msg_history.h"
#include "tables/msg_index.h"
#include "tables/msg_like.h"

namespace weibo {

Json Delete(Context& ctx, const Json& args) {
  int64_t actor = ctx.ResolveUser(args.at("user"));
  const int64_t msg_id = args.at("msg").get<int64_t>();
  Shard& shard = ctx.shards().ForMsg(msg_id);
  auto replay = [&] {
    ctx.SettleReplayed();
    return Json{{"id", std::to_string(msg_id)}, {"deleted", true}};
  };
  if (ctx.Replayed(shard)) return replay();
  MsgRow msg = ctx.RequireMsg(msg_id);
  bool owner = msg.user_id == actor;
  bool target_owner = msg.type == kComment && msg.ref_user_id == actor;
  if (!owner && !target_owner)
    Fail(Code::kForbidden, "user " + std::to_string(actor) + " may not delete message " +
                               std::to_string(msg.id) + " of user " + std::to_string(msg.user_id));
  WriteTxn txn(shard);
  if (ctx.Replayed(shard)) {
    txn.Commit();  // nothing written
    return replay();
  }
  if (!DeleteMsg(shard, msg.id)) ctx.MsgGone(msg.id);  // deleted or archived meanwhile
  DeleteCounter(shard, msg.id);
  DeleteLikesOf(shard, msg.id);
  DeleteHistory(shard, msg.id);
  const int author_shard = ctx.shards().AuthorShardIndex(msg.user_id);
  const bool author_here = author_shard == shard.index();
  if (author_here) {
    DeleteAuthorFeed(shard, msg.user_id, msg.id);
    DeleteInbox(shard, msg.user_id, msg.id);
  }
  RemoveEntity(ctx, shard, MessageEntityId(msg.id));  // its attributes and their index rows
  if (author_here) AddUserCounts(shard, msg.user_id, -1, 0, 0);
  RecordPlacement(ctx, shard, msg.id, msg.user_id, true);  // uid-mapping: tid_map's mark
  if (msg.type != kOriginal)
    Enqueue(ctx, shard, ctx.shards().MsgShardIndex(msg.ref_msg_id),
            RefRemoveJob{msg.type, msg.user_id, msg.id, msg.ref_msg_id});
  if (!author_here)  // tid: the author's side, and from there the purge
    Enqueue(ctx, shard, author_shard, AuthorDropJob{msg.user_id, msg.id, msg.type});
  else if (msg.type != kComment)
    EnqueuePurge(ctx, shard, msg);
  if (!IndexedText(msg).empty()) EnqueueSearchIndex(ctx, shard, msg.id);
  ctx.RecordApplied(shard, 0);
  txn.Commit();
  ctx.Settle();
  return Json{{"id", std::to_string(msg.id)}, {"deleted", true}};
}

// Under tid, on the author's shard: the author's side of a deleted message. The purge of
// its pushed inbox rows starts here, where its fans are, once author_feed no longer lists
// it, so a fan-out that has not run yet finds it gone (flows/fanout.cc).
void ApplyAuthorDrop(Context& ctx, Shard& target, const AuthorDropJob& job) {
  DeleteAuthorFeed(target, job.user_id, job.msg_id);
  DeleteInbox(target, job.user_id, job.msg_id);
  AddUserCounts(target, job.user_id, -1, 0, 0);
  if (job.type != kComment) {
    MsgRow msg;
    msg.id = job.msg_id;
    msg.user_id = job.user_id;
    EnqueuePurge(ctx, target, msg);
  }
}

}  // namespace weibo
