// repost: A reposts B's msg_b, optionally with text (seed 000 flow 3).
//
// Shards: A's shard in one transaction — msg_info (type 2, ref = msg_b, root = the
// original at the end of msg_b's chain), msg_counter, A's msg_count + 1, A's own inbox row,
// the fanout job (as a post) and a ref_add job for msg_b's shard. That job (flows/refs.cc)
// adds 1 to msg_b's transferred_count and transfer_count and writes the msg_msg_relation
// row with the fixed page_index (transferred_count - 1) / page_size, all in one
// transaction on msg_b's shard, so page numbers are handed out in order even when many
// users repost at once. A request with an id records it in A's transaction with the
// repost's id (tables/request_log.h); the same id again replays that repost, even when
// msg_b has been deleted since.
#include "flows/flows.h"
#include "flows/message.h"

namespace weibo {

MsgRow ReferringMessage(int64_t author, int type, const MsgRow& target, std::string content) {
  MsgRow row;
  row.user_id = author;
  row.type = type;
  row.content = std::move(content);
  row.ref_msg_id = target.id;
  row.ref_user_id = target.user_id;
  row.root_msg_id = target.root_msg_id != 0 ? target.root_msg_id : target.id;
  row.root_user_id = target.root_msg_id != 0 ? target.root_user_id : target.user_id;
  return row;
}

void EnqueueRefAdd(Context& ctx, Shard& shard, const MsgRow& msg) {
  ctx.Enqueue(shard, static_cast<int>(msg.ref_msg_id % ctx.shards().count()), "ref_add",
              Json{{"type", msg.type},
                   {"reference_id", msg.user_id},
                   {"reference_msg_id", msg.id},
                   {"referenced_id", msg.ref_user_id},
                   {"referenced_msg_id", msg.ref_msg_id},
                   {"time", msg.time}});
}

Json Repost(Context& ctx, const Json& args) {
  int64_t author = ctx.ResolveUser(args.at("user"));
  Shard& shard = ctx.shards().ForUser(author);
  if (auto done = ctx.Replayed(shard)) return ReplayedMessage(ctx, *done);
  MsgRow target = ctx.RequireMsg(args.at("msg").get<int64_t>());
  MsgRow row = ReferringMessage(author, kRepost, target, args.value("content", std::string()));
  WriteTxn txn(shard);
  if (auto done = ctx.Replayed(shard)) {
    txn.Commit();  // nothing written
    return ReplayedMessage(ctx, *done);
  }
  row = WriteMessage(ctx, shard, row);
  EnqueueFanOut(ctx, shard, row);
  EnqueueRefAdd(ctx, shard, row);
  ctx.RecordApplied(shard, row.id);
  txn.Commit();
  ctx.Settle();
  return MessageView(ctx).Render(row);
}

}  // namespace weibo
