// post: an original message (seed 000 flow 2).
//
// Shards: the author's only, in one transaction — msg_info (type 0), msg_counter,
// msg_count + 1, the author's own inbox row — plus, when the feed mode pushes this author,
// a fanout job in the same transaction (flows/fanout.cc), which becomes one deliver job
// per follower shard: one transaction per target shard, however many followers live there.
// A request with an id records it in the author's transaction with the new message's id
// (tables/request_log.h); the same id again replays that message instead of posting.
#include "flows/entities.h"
#include "flows/flows.h"
#include "flows/message.h"

namespace weibo {

Json Post(Context& ctx, const Json& args) {
  MsgRow row;
  row.user_id = ctx.ResolveUser(args.at("user"));
  row.type = kOriginal;
  row.content = args.at("content").get<std::string>();
  return CreateMessage(ctx, ctx.shards().ForUser(row.user_id), row, AttrsArg(args));
}

}  // namespace weibo
