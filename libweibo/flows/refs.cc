// The referenced message's side of a comment or repost: ref_add and ref_remove jobs, run
// on the shard of the message commented on or reposted (msg_b).
//
// ref_add: commented_count/comment_count (or transferred_count/transfer_count) + 1 and
// the msg_msg_relation row, page_index = (n - 1) / page_size with n the *_ed count after
// the increment. ref_remove: delete the relation row and, only if there was one, the kept
// count - 1; the *_ed counts never drop, so the next comment still gets the next number.
// If msg_b was deleted meanwhile its counter row is gone: the relation row is still kept
// (page 0 unless counted), so the comment shows "deleted by its author". ref_remove records
// the comment or repost in msg_deleted first, so a ref_add of it that a crash left pending
// and that arrives later adds no relation row and no count.
#include "flows/flows.h"
#include "flows/message.h"
#include "tables/msg_counter.h"
#include "tables/msg_deleted.h"
#include "tables/msg_msg_relation.h"

namespace weibo {

void EnqueueRefAdd(Context& ctx, Shard& shard, const MsgRow& msg) {
  Enqueue(ctx, shard, static_cast<int>(msg.ref_msg_id % ctx.shards().count()),
          RefAddJob{msg.type, msg.user_id, msg.id, msg.ref_user_id, msg.ref_msg_id, msg.time});
}

void ApplyRefAdd(Context& ctx, Shard& target, const RefAddJob& p) {
  RelationMsgRow rel;
  rel.type = p.type;
  rel.reference_id = p.reference_id;
  rel.reference_msg_id = p.reference_msg_id;
  rel.referenced_id = p.referenced_id;
  rel.referenced_msg_id = p.referenced_msg_id;
  rel.time = p.time;
  if (GetMsgRelation(target, rel.reference_id, rel.reference_msg_id)) return;
  // The comment or repost was deleted and its ref_remove came first (a crash left this
  // job pending): nothing to add.
  if (MsgDeleted(target, rel.reference_msg_id)) return;
  CounterRow delta;
  delta.msg_id = rel.referenced_msg_id;
  if (rel.type == kComment)
    delta.commented = delta.comments = 1;
  else
    delta.transferred = delta.transfers = 1;
  if (AddCounter(target, delta)) {
    CounterRow now = *GetCounter(target, rel.referenced_msg_id);
    int64_t n = rel.type == kComment ? now.commented : now.transferred;
    rel.page_index = PageIndex(n, ctx.config().page_size);
  }
  InsertMsgRelation(target, rel);
}

void ApplyRefRemove(Context&, Shard& target, const RefRemoveJob& p) {
  RecordMsgDeleted(target, p.reference_msg_id);
  if (!DeleteMsgRelation(target, p.reference_id, p.reference_msg_id)) return;
  CounterRow delta;
  delta.msg_id = p.referenced_msg_id;
  if (p.type == kComment)
    delta.comments = -1;
  else
    delta.transfers = -1;
  AddCounter(target, delta);
}

}  // namespace weibo
