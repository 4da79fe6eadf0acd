// Pieces shared by the flows that create messages (message_write.cc) and show them
// (message_view.cc).
#ifndef WEIBO_FLOWS_MESSAGE_H_
#define WEIBO_FLOWS_MESSAGE_H_

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "jobs/context.h"
#include "storage/id_map.h"
#include "tables/msg_page.h"

namespace weibo {

// In the author's shard's open transaction: allocates the id (a gene id, or a plain one
// and its tid_map row under uid-mapping: flows/placement.cc) and writes msg_info, an
// empty msg_counter row, msg_count + 1 and the author's own inbox row (seed 000 flows 2-4,
// steps 1-3). Returns the row with its id.
MsgRow WriteMessage(Context& ctx, Shard& shard, MsgRow row);

// The reply to a post, repost or comment whose request id was already recorded with msg_id
// (Context::Replayed): settles what the first run may have left pending, then renders the
// message as it is now — {"id","deleted":true} when it has been deleted since.
Json ReplayedMessage(Context& ctx, int64_t msg_id);

// Post, comment and repost, after their arguments: in one write transaction on the
// author's shard, nothing when the request was applied before (the first run's message,
// replayed), else the message (WriteMessage), its jobs — the fan-out of an original or
// repost, the ref_add of a comment or repost — and the request's record; then the jobs are
// settled and the message rendered.
// attrs: the message's attributes (--attr), written as its entity (flows/entities.h) in
// the same transaction; null or empty for none.
Json CreateMessage(Context& ctx, Shard& shard, MsgRow row, const Json& attrs = Json());
// Comment and repost: a message of this type by args' user referring to args' msg, with
// ref = that message, root = its root or itself, args' attrs; then CreateMessage.
Json CreateReferringMessage(Context& ctx, const Json& args, int type, std::string content);

// The ref_add job that updates the referenced message's counters and relation row
// (flows/refs.cc); the relation row a ref_add writes (page_index 0) and its counter delta
// (+1 commented and comments, or transferred and transfers), and a ref_remove's (-1
// comments or transfers).
void EnqueueRefAdd(Context& ctx, Shard& shard, const MsgRow& msg);
struct RefAddJob;
struct RelationMsgRow;
RelationMsgRow RefRelation(const RefAddJob& p);
CounterRow RefAddDelta(const RefAddJob& p);
struct RefRemoveJob;
CounterRow RefRemoveDelta(const RefRemoveJob& p);

// The feed mode's write side (flows/fanout.cc): enqueues the fan-out of a new original or
// repost when the mode pushes it, and the purge of a deleted one.
void EnqueueFanOut(Context& ctx, Shard& shard, const MsgRow& msg);
void EnqueuePurge(Context& ctx, Shard& shard, const MsgRow& msg);

struct CounterRow;
// {"comments","commented","reposts","reposted","likes","views"} of one message.
Json CountsJson(const CounterRow& counter);
// count's item of one message, {"id","counts":CountsJson}, as JSON text: the bytes a dump
// of that object writes (a server's reply joins these, flows/show.cc).
std::string CountItemText(const CounterRow& counter);

// The message JSON of SPEC §10 (flows/message_view.cc); null when the message is gone.
// A page renders many: Prefetch reads the rows of all its messages (and of the originals
// its reposts carry) first, one statement per shard (tables/msg_page.h); Render then finds
// them there, and looks up only what was not prefetched.
class MessageView {
 public:
  explicit MessageView(Context& ctx) : ctx_(ctx) {}
  void Prefetch(const std::vector<int64_t>& msg_ids);
  // Takes row as known, as if prefetched: a write that has just made the message knows
  // its counters and attributes without reading them back (CreateMessage).
  void Know(PageRow row);
  // As Know, for a message just committed to shard; a server also keeps the row in its
  // message cache (tables/message_cache.h), with its author's name, so that the readers
  // it is pushed to find it there: on the retwis trace the first of a post's readers
  // otherwise read its row with a statement of its own.
  void KnowNew(Shard& shard, PageRow row);
  Json Render(int64_t msg_id);
  Json Render(const MsgRow& row);
  // Appends Render(msg_id).dump() to out, written directly (no Json is built); false, with
  // nothing appended, when the message is gone.
  bool RenderText(int64_t msg_id, std::string* out);

 private:
  // Writes the message's fields into an open object (JsonFields or TextFields, in
  // message_view.cc); false, with nothing written, when the message is gone.
  template <class Fields>
  bool WriteFields(int64_t msg_id, Fields& w);
  // prefetched: the message's row with its counters (rows_), or nullptr to read them.
  template <class Fields>
  void WriteFields(const MsgRow& row, const PageRow* prefetched, Fields& w);
  std::string UserName(int64_t user_id);
  void Load(const std::vector<int64_t>& msg_ids);
  using Row = std::shared_ptr<const PageRow>;
  // msg_id's entry in rows_, or nullptr when it was not prefetched.
  const Row* Prefetched(int64_t msg_id) const {
    const int64_t* at = at_.Find(msg_id);
    return at != nullptr ? &rows_[static_cast<size_t>(*at)] : nullptr;
  }
  Context& ctx_;
  std::vector<std::pair<int64_t, std::string>> names_;  // small per-request cache
  // Prefetched messages: the row with its counters (shared with the message cache), or
  // nullptr for an id that is gone; found by id through at_ (storage/id_map.h: a page
  // looks up 20 to 40 rows, and an unordered_map allocated a node for each).
  std::vector<Row> rows_;
  IdMap at_;
};

}  // namespace weibo

#endif  // WEIBO_FLOWS_MESSAGE_H_
