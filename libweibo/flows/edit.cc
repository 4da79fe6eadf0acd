// edit: the author changes the text of an original or a repost (seed 003's update of the
// post center; weibo-edit(1)).
//
// Shards: the message's own shard (its author's, or msg mod N under tid) in one
// transaction — the text it had into msg_history, msg_info's content, edited and
// edit_count — plus a search_index job for that shard (flows/search.cc). Nothing else: inboxes and
// author feeds hold ids, not text, so every timeline shows the new text at once. Comments are not
// edited (a reply whose meaning changes under the comments after it); a deleted message is
// not_found; the text obeys post's limits (ops/args.cc). The same text again changes nothing and
// adds no history. A request with an id records it in that transaction (tables/request_log.h); the
// same id again replays the message as it is now instead of editing twice.
#include "flows/flows.h"
#include "flows/message.h"
#include "storage/failure.h"
#include "tables/msg_history.h"

namespace weibo {

Json Edit(Context& ctx, const Json& args) {
  const int64_t actor = ctx.ResolveUser(args.at("user"));
  const int64_t msg_id = args.at("msg").get<int64_t>();
  const std::string content = args.at("content").get<std::string>();
  Shard& shard = ctx.shards().ForMsg(msg_id);
  if (ctx.Replayed(shard)) return ReplayedMessage(ctx, msg_id);
  const std::string id = std::to_string(msg_id);
  WriteTxn txn(shard);
  if (ctx.Replayed(shard)) {
    txn.Commit();  // nothing written
    return ReplayedMessage(ctx, msg_id);
  }
  MsgRow msg = ctx.RequireMsg(msg_id);
  if (msg.type == kComment)
    Fail(Code::kForbidden, "message " + id + " is a comment: comments cannot be edited");
  if (msg.user_id != actor)
    Fail(Code::kForbidden, "user " + std::to_string(actor) + " may not edit message " + id +
                               " of user " + std::to_string(msg.user_id));
  if (content == msg.content) {  // nothing to change
    txn.Commit();
    return MessageView(ctx).Render(msg);
  }
  InsertHistory(shard, {msg.id, msg.edits + 1, msg.content, msg.edits > 0 ? msg.edited : msg.time});
  EditMsg(shard, msg.id, content, ctx.now());
  EnqueueSearchIndex(ctx, shard, msg.id);
  ctx.RecordApplied(shard, msg.id);
  txn.Commit();
  ctx.Settle();
  return MessageView(ctx).Render(msg.id);
}

}  // namespace weibo
