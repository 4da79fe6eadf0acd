// like, unlike, likes; the counter_delta job (seed 004, SPEC §6).
//
// Shards: the message's own shard only. like writes the msg_like row (a user likes a
// message at most once: already_liked) and, in the same transaction, a counter_delta job
// (+1 like) for the same shard; unlike deletes the row (not_liked when there is none) with
// a -1 delta. The job, not the flow, moves like_count: deltas of one message pending
// together are merged into one UPDATE msg_counter when a drain applies them (a hot message
// liked 1000 times costs a few writes of its counter row, not 1000). An embedded command
// applies its own delta before it returns; a server gathers them across requests
// (GroupCommit::defer_merged, jobs.h). Readers never wait for that: every view of a
// message adds the deltas still pending in its shard's outbox (GetLiveCounter), read in
// the same statement as the row. show's views are deltas of the same kind.
//
// The acting user must exist and the message must exist (not deleted): else not_found.
// Deleting a message deletes its like rows with its counter row (flows/delete.cc); a delta
// still pending for it then finds no counter row and adds nothing.
#include <algorithm>

#include "flows/archive.h"
#include "flows/flows.h"
#include "flows/message.h"
#include "storage/clock.h"
#include "storage/failure.h"
#include "tables/counter_cache.h"
#include "tables/message_cache.h"
#include "tables/msg_counter.h"
#include "tables/msg_like.h"

namespace weibo {
namespace {

// Like (+1) or unlike (-1): the shared path, with its replay.
Json ChangeLike(Context& ctx, const Json& args, int64_t delta) {
  int64_t user = ctx.ResolveUser(args.at("user"));
  const int64_t msg_id = args.at("msg").get<int64_t>();
  Shard& shard = ctx.shards().ForMsg(msg_id);
  auto render = [&] {
    Json m = MessageView(ctx).Render(msg_id);
    if (m.is_null()) return Json{{"id", std::to_string(msg_id)}, {"deleted", true}};
    return m;
  };
  if (ctx.Replayed(shard)) {
    ctx.SettleReplayed();
    return render();
  }
  {
    WriteTxn txn(shard);
    if (ctx.Replayed(shard)) {
      txn.Commit();  // nothing written
      ctx.SettleReplayed();
      return render();
    }
    if (!GetMsg(shard, msg_id) || !GetCounter(shard, msg_id)) ctx.MsgGone(msg_id);
    const std::string who = "user " + std::to_string(user);
    const std::string what = "message " + std::to_string(msg_id);
    if (delta > 0 && !InsertLike(shard, LikeRow{msg_id, user, ctx.now()}))
      Fail(Code::kAlreadyLiked, who + " already likes " + what);
    if (delta < 0 && !DeleteLike(shard, msg_id, user))
      Fail(Code::kNotLiked, who + " does not like " + what);
    EnqueueCounterDelta(ctx, shard, CounterDeltaJob{msg_id, delta, 0});
    ctx.RecordApplied(shard, msg_id);
    txn.Commit();
  }
  ctx.Settle();
  return render();
}

}  // namespace

void EnqueueCounterDelta(Context& ctx, Shard& shard, const CounterDeltaJob& job) {
  Enqueue(ctx, shard, shard.index(), job);
  // The live value moved (readers add pending deltas): a server's hot copy is forgotten.
  if (CounterCache* cache = ctx.counter_cache()) cache->Forget(job.msg_id);
  if (MessageCache* cache = ctx.message_cache()) cache->Forget(job.msg_id);
}

Json Like(Context& ctx, const Json& args) { return ChangeLike(ctx, args, +1); }

Json Unlike(Context& ctx, const Json& args) { return ChangeLike(ctx, args, -1); }

Json Likes(Context& ctx, const Json& args) {
  const int64_t msg_id = args.at("msg").get<int64_t>();
  const int64_t page = args.value("page", int64_t{0});
  Shard* shard = &ctx.shards().ForMsg(msg_id);
  if (!GetCounter(*shard, msg_id)) shard = ArchiveOfMsg(ctx, msg_id);  // its likes moved too
  std::vector<LikeRow> rows;
  if (shard != nullptr) {
    ReadTxn txn(*shard);
    if (!GetCounter(*shard, msg_id))
      shard = nullptr;
    else
      rows = LikesPage(*shard, msg_id, page, ctx.config().page_size);
  }
  if (shard == nullptr) Fail(Code::kNotFound, "no message with id " + std::to_string(msg_id));
  Json out = Json::array();
  for (const LikeRow& row : rows) {
    auto user = GetUser(ctx.shards().ForUser(row.user_id), row.user_id);
    out.push_back(Json{{"user_id", std::to_string(row.user_id)},
                       {"user_name", user ? user->name : std::string()},
                       {"time", FormatTime(row.time)}});
  }
  return out;
}

void MergeCounterDeltas(Context&, Shard& target, const std::vector<CounterDeltaJob>& jobs) {
  // Summed per message, in the order each message first appears (the order written).
  std::vector<CounterRow> sums;
  for (const CounterDeltaJob& job : jobs) {
    auto it = std::find_if(sums.begin(), sums.end(),
                           [&](const CounterRow& r) { return r.msg_id == job.msg_id; });
    if (it == sums.end()) {
      sums.push_back(CounterRow{});
      it = sums.end() - 1;
      it->msg_id = job.msg_id;
    }
    it->likes += job.likes;
    it->views += job.views;
  }
  for (const CounterRow& sum : sums)
    if (sum.likes != 0 || sum.views != 0) AddCounter(target, sum);  // gone: nothing to add
}

void ApplyCounterDelta(Context& ctx, Shard& target, const CounterDeltaJob& job) {
  MergeCounterDeltas(ctx, target, {job});
}

}  // namespace weibo
