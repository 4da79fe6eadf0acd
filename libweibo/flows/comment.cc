// comment: A comments on msg_b (seed 000 flow 4).
//
// Shards: A's shard in one transaction — msg_info (type 1), msg_counter, A's msg_count + 1
// and A's own inbox row (seed 000 steps 1-3; comments do not fan out to followers) — and a
// ref_add job for msg_b's shard (flows/refs.cc): commented_count + 1, comment_count + 1 and
// the msg_msg_relation row whose page_index is fixed at (commented_count - 1) / page_size.
// The seed writes commented_count % page_count, which would make pages cycle; SPEC §4.5
// corrects it. A deleted comment leaves a hole in its page; no comment ever changes page.
// A request with an id records it in A's transaction with the comment's id
// (tables/request_log.h); the same id again replays that comment, even when msg_b has been
// deleted since.
#include "flows/flows.h"
#include "flows/message.h"

namespace weibo {

Json Comment(Context& ctx, const Json& args) {
  return CreateReferringMessage(ctx, args, kComment, args.at("content").get<std::string>());
}

}  // namespace weibo
