// The archive as the other flows see it (flows/archive.h): an archived message's rows,
// and the comment or repost jobs that reach one (flows/refs.cc).
#include "flows/archive.h"
#include "flows/flows.h"
#include "flows/job_payloads.h"
#include "flows/message.h"
#include "tables/msg_msg_relation.h"

namespace weibo {

Shard* ArchiveOfMsg(Context& ctx, int64_t msg_id) { return ctx.shards().ArchiveForMsg(msg_id); }

std::optional<MsgRow> ArchivedMsg(Context& ctx, int64_t msg_id) {
  Shard* archive = ArchiveOfMsg(ctx, msg_id);
  return archive != nullptr ? GetMsg(*archive, msg_id) : std::nullopt;
}

std::optional<CounterRow> ArchivedCounter(Context& ctx, int64_t msg_id) {
  Shard* archive = ArchiveOfMsg(ctx, msg_id);
  return archive != nullptr ? GetCounter(*archive, msg_id) : std::nullopt;
}

bool ApplyRefAddToArchive(Context& ctx, Shard& target, const RefAddJob& p) {
  Shard* archive = ctx.shards().ArchiveAt(target.index());
  if (archive == nullptr) return false;
  WriteTxn txn(*archive);
  if (!GetCounter(*archive, p.referenced_msg_id)) return false;  // not archived: rolled back
  if (!GetMsgRelation(*archive, p.reference_id, p.reference_msg_id)) {
    AddCounter(*archive, RefAddDelta(p));
    const CounterRow now = *GetCounter(*archive, p.referenced_msg_id);
    RelationMsgRow rel = RefRelation(p);
    rel.page_index =
        PageIndex(p.type == kComment ? now.commented : now.transferred, ctx.config().page_size);
    InsertMsgRelation(*archive, rel);
  }
  txn.Commit();
  archive->SyncWal();  // before the job's done mark on the shard
  return true;
}

bool ApplyRefRemoveToArchive(Context& ctx, Shard& target, const RefRemoveJob& p) {
  Shard* archive = ctx.shards().ArchiveAt(target.index());
  if (archive == nullptr) return false;
  WriteTxn txn(*archive);
  if (!DeleteMsgRelation(*archive, p.reference_id, p.reference_msg_id)) return false;
  AddCounter(*archive, RefRemoveDelta(p));
  txn.Commit();
  archive->SyncWal();
  return true;
}

}  // namespace weibo
