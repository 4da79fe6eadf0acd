// Pieces shared by the flows that create and show messages.
#ifndef WEIBO_FLOWS_MESSAGE_H_
#define WEIBO_FLOWS_MESSAGE_H_

#include "flows/context.h"

namespace weibo {

// In the author's shard's open transaction: allocates the gene id and writes msg_info, an
// empty msg_counter row, msg_count + 1 and the author's own inbox row (seed 000 flows 2-4,
// steps 1-3). Returns the row with its id.
MsgRow WriteMessage(Context& ctx, Shard& shard, MsgRow row);

// The reply to a post, repost or comment whose request id was already recorded with msg_id
// (Context::Replayed): settles what the first run may have left pending, then renders the
// message as it is now — {"id","deleted":true} when it has been deleted since.
Json ReplayedMessage(Context& ctx, int64_t msg_id);

// A comment or repost (type) of target by author: ref = target, root = target's root or
// target itself (flows/repost.cc).
MsgRow ReferringMessage(int64_t author, int type, const MsgRow& target, std::string content);
// The ref_add job that updates the referenced message's counters and relation row.
void EnqueueRefAdd(Context& ctx, Shard& shard, const MsgRow& msg);

// The feed mode's write side (flows/fanout.cc): enqueues the fan-out of a new original or
// repost when the mode pushes it, and the purge of a deleted one.
bool PushesAuthor(Context& ctx, const UserRow& author);
void EnqueueFanOut(Context& ctx, Shard& shard, const MsgRow& msg);
void EnqueuePurge(Context& ctx, Shard& shard, const MsgRow& msg);

struct CounterRow;
// {"comments","commented","reposts","reposted","likes","views"} of one message.
Json CountsJson(const CounterRow& counter);

// The message JSON of SPEC §10 (flows/message_view.cc); null when the message is gone.
class MessageView {
 public:
  explicit MessageView(Context& ctx) : ctx_(ctx) {}
  Json Render(int64_t msg_id);
  Json Render(const MsgRow& row);

 private:
  std::string UserName(int64_t user_id);
  Context& ctx_;
  std::vector<std::pair<int64_t, std::string>> names_;  // small per-request cache
};

}  // namespace weibo

#endif  // WEIBO_FLOWS_MESSAGE_H_
