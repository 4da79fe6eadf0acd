#include "flows/message.h"

#include "storage/gene_id.h"
#include "tables/author_feed.h"
#include "tables/msg_counter.h"
#include "tables/msg_index.h"

namespace weibo {

MsgRow WriteMessage(Context& ctx, Shard& shard, MsgRow row) {
  row.time = ctx.now();
  row.id = NextGeneId(shard, row.user_id, row.time);
  InsertMsg(shard, row);
  InsertAuthorFeed(shard, row.user_id, row.id, row.type);
  InitCounter(shard, row.id);
  AddUserCounts(shard, row.user_id, 1, 0, 0);
  TouchUser(shard, row.user_id, row.time);
  InsertInbox(shard, {row.user_id, row.id, row.user_id, row.time});
  return row;
}

Json ReplayedMessage(Context& ctx, int64_t msg_id) {
  ctx.SettleReplayed();
  Json m = MessageView(ctx).Render(msg_id);
  if (m.is_null()) return Json{{"id", std::to_string(msg_id)}, {"deleted", true}};
  return m;
}

}  // namespace weibo
