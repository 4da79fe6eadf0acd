// Creating a message: the one path post, comment and repost share (message.h), and its
// pieces.
//
// A message has two sides: its own rows (msg_info, msg_counter, its entity, and the ref_add
// and search_index jobs that start from them) on the message's shard, and its author's
// (author_feed, msg_count + 1, last_active, the author's own inbox row, the fan-out) on the
// author's shard. Under gene and uid-mapping those are one shard and one transaction.
// Under tid (seed 003's "by tid modulo N") the message's shard is msg mod N of a plain id:
// the request's transaction on the author's shard allocates the id, writes the author's
// side and, unless the id happens to fall on that same shard, enqueues a msg_write job
// carrying the whole row to the message's shard (SPEC §5: one shard per transaction, the
// outbox between them). Until that job is applied the message is in its author's list and
// not found by id — a timeline passes over it as over a deleted one — which a command's
// own drain (Context::Settle) ends before it answers.
#include "flows/entities.h"
#include "flows/flows.h"
#include "flows/message.h"
#include "storage/gene_id.h"
#include "tables/author_feed.h"
#include "tables/entity.h"
#include "tables/msg_counter.h"
#include "tables/msg_index.h"

namespace weibo {

namespace {

// The message's own side, on its shard (in the request's transaction, or a msg_write
// job's): its rows, its entity and the jobs they start.
void WriteMessageSide(Context& ctx, Shard& shard, const MsgRow& row, const Json& attrs) {
  InsertMsg(shard, row);
  InitCounter(shard, row.id);
  if (!attrs.is_null() && !attrs.empty()) WriteEntity(ctx, shard, MessageEntityId(row.id), attrs);
  if (row.type != kOriginal) EnqueueRefAdd(ctx, shard, row);
  if (!IndexedText(row).empty()) EnqueueSearchIndex(ctx, shard, row.id);
}

}  // namespace

MsgRow WriteMessage(Context& ctx, Shard& shard, MsgRow row) {
  row.time = ctx.now();
  row.id = NextMsgId(shard, row.user_id, row.time, ctx.shards().GeneIds());
  InsertMsg(shard, row);
  RecordPlacement(ctx, shard, row.id, row.user_id);
  InsertAuthorFeed(shard, row.user_id, row.id, row.type);
  InitCounter(shard, row.id);
  AddUserCounts(shard, row.user_id, 1, 0, 0);
  TouchUser(shard, row.user_id, row.time);
  InsertInbox(shard, {row.user_id, row.id, row.user_id, row.time});
  return row;
}

void ApplyMsgWrite(Context& ctx, Shard& target, const MsgWriteJob& job) {
  WriteMessageSide(ctx, target, job.row, job.attrs);
}

Json ReplayedMessage(Context& ctx, int64_t msg_id) {
  ctx.SettleReplayed();
  Json m = MessageView(ctx).Render(msg_id);
  if (m.is_null()) return Json{{"id", std::to_string(msg_id)}, {"deleted", true}};
  return m;
}

Json CreateMessage(Context& ctx, Shard& shard, MsgRow row, const Json& attrs) {
  WriteTxn txn(shard);
  if (auto done = ctx.Replayed(shard)) {
    txn.Commit();  // nothing written
    return ReplayedMessage(ctx, *done);
  }
  if (ctx.shards().AuthorHoldsMsgs()) {
    row = WriteMessage(ctx, shard, row);
    if (!attrs.is_null() && !attrs.empty()) WriteEntity(ctx, shard, MessageEntityId(row.id), attrs);
    if (row.type != kComment) EnqueueFanOut(ctx, shard, row);
    if (row.type != kOriginal) EnqueueRefAdd(ctx, shard, row);
    if (!IndexedText(row).empty()) EnqueueSearchIndex(ctx, shard, row.id);
  } else {  // tid: the author's side here, the message's on msg mod N (the top of this file)
    row.time = ctx.now();
    row.id = NextMsgId(shard, row.user_id, row.time, false);
    InsertAuthorFeed(shard, row.user_id, row.id, row.type);
    AddUserCounts(shard, row.user_id, 1, 0, 0);
    TouchUser(shard, row.user_id, row.time);
    InsertInbox(shard, {row.user_id, row.id, row.user_id, row.time});
    const int home = ctx.shards().MsgShardIndex(row.id);
    if (home == shard.index())
      WriteMessageSide(ctx, shard, row, attrs);
    else
      Enqueue(ctx, shard, home,
              MsgWriteJob{row, attrs.is_null() || attrs.empty() ? Json() : attrs});
    if (row.type != kComment) EnqueueFanOut(ctx, shard, row);
  }
  ctx.RecordApplied(shard, row.id);
  txn.Commit();
  ctx.Settle();
  MessageView view(ctx);
  if (ctx.shards().AuthorHoldsMsgs()) {
    // Its counters are the zeros InitCounter wrote (its likes and views go through the
    // outbox of this shard, which nothing has reached yet: its id is not out), and its
    // attributes those just written: not read back. Attributes are taken as known only
    // when there are none; a body is read as stored (JSON text's round trip).
    PageRow known;
    known.msg = row;
    known.counter = CounterRow{};
    known.counter->msg_id = row.id;
    known.attrs_known = attrs.is_null() || attrs.empty();
    view.KnowNew(shard, std::move(known));
  }
  return view.Render(row);
}

Json CreateReferringMessage(Context& ctx, const Json& args, int type, std::string content) {
  int64_t author = ctx.ResolveUser(args.at("user"));
  Shard& shard = ctx.shards().ForUser(author);
  // Replayed before the referenced message is required: a retry is answered even when it
  // has been deleted since. CreateMessage asks again inside the transaction, to be exact.
  if (auto done = ctx.Replayed(shard)) return ReplayedMessage(ctx, *done);
  MsgRow target = ctx.RequireMsg(args.at("msg").get<int64_t>());
  MsgRow row;
  row.user_id = author;
  row.type = type;
  row.content = std::move(content);
  row.ref_msg_id = target.id;
  row.ref_user_id = target.user_id;
  row.root_msg_id = target.root_msg_id != 0 ? target.root_msg_id : target.id;
  row.root_user_id = target.root_msg_id != 0 ? target.root_user_id : target.user_id;
  return CreateMessage(ctx, shard, row, AttrsArg(args));
}

}  // namespace weibo
