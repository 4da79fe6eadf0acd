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

Json Repost(Context& ctx, const Json& args) {
  return CreateReferringMessage(ctx, args, kRepost, args.value("content", std::string()));
}

}  // namespace weibo
