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
//
// msg_b archived (flows/archive.h): its counters and relation rows are in the archive, and
// so both jobs apply there (a comment or repost written while msg_b was being archived).
//
// ref_add jobs merge (seed 004: "three reposts become one +3"): the ref_adds one drain
// applies to a shard are applied together, after its other jobs, by ApplyRefAdds — one
// UPDATE msg_counter per referenced message, the page_index of each comment or repost
// numbered in the order written, as one job at a time would. A ref_remove in the same
// drain of a comment whose ref_add is there too runs first and records it deleted, so the
// ref_add adds nothing (its number is then never handed out: a hole, as a deletion makes).
#include <algorithm>
#include <set>

#include "flows/archive.h"
#include "flows/flows.h"
#include "flows/message.h"
#include "tables/msg_counter.h"
#include "tables/msg_deleted.h"
#include "tables/msg_msg_relation.h"

namespace weibo {

void EnqueueRefAdd(Context& ctx, Shard& shard, const MsgRow& msg) {
  Enqueue(ctx, shard, ctx.shards().MsgShardIndex(msg.ref_msg_id),
          RefAddJob{msg.type, msg.user_id, msg.id, msg.ref_user_id, msg.ref_msg_id, msg.time});
}

RelationMsgRow RefRelation(const RefAddJob& p) {
  RelationMsgRow rel;
  rel.type = p.type;
  rel.reference_id = p.reference_id;
  rel.reference_msg_id = p.reference_msg_id;
  rel.referenced_id = p.referenced_id;
  rel.referenced_msg_id = p.referenced_msg_id;
  rel.time = p.time;
  return rel;
}

CounterRow RefRemoveDelta(const RefRemoveJob& p) {
  CounterRow delta;
  delta.msg_id = p.referenced_msg_id;
  if (p.type == kComment)
    delta.comments = -1;
  else
    delta.transfers = -1;
  return delta;
}

CounterRow RefAddDelta(const RefAddJob& p) {
  CounterRow delta;
  delta.msg_id = p.referenced_msg_id;
  if (p.type == kComment)
    delta.commented = delta.comments = 1;
  else
    delta.transferred = delta.transfers = 1;
  return delta;
}

void ApplyRefAdd(Context& ctx, Shard& target, const RefAddJob& p) {
  RelationMsgRow rel = RefRelation(p);
  if (GetMsgRelation(target, rel.reference_id, rel.reference_msg_id)) return;
  // The comment or repost was deleted and its ref_remove came first (a crash left this
  // job pending): nothing to add.
  if (MsgDeleted(target, rel.reference_msg_id)) return;
  if (AddCounter(target, RefAddDelta(p))) {
    CounterRow now = *GetCounter(target, rel.referenced_msg_id);
    int64_t n = rel.type == kComment ? now.commented : now.transferred;
    rel.page_index = PageIndex(n, ctx.config().page_size);
  } else if (ApplyRefAddToArchive(ctx, target, p)) {
    return;  // msg_b was archived meanwhile: its counters and pages are in the archive
  }
  InsertMsgRelation(target, rel);
}

void ApplyRefAdds(Context& ctx, Shard& target, const std::vector<RefAddJob>& jobs) {
  // What one ApplyRefAdd per job would write, with one counter UPDATE per referenced
  // message: the comments and reposts each gets, numbered in the order written.
  struct Refs {
    int64_t msg_id = 0;
    std::vector<const RefAddJob*> comments, reposts;
  };
  std::vector<Refs> by_msg;
  std::set<std::pair<int64_t, int64_t>> seen;  // (reference_id, reference_msg_id)
  for (const RefAddJob& p : jobs) {
    if (!seen.emplace(p.reference_id, p.reference_msg_id).second) continue;
    if (GetMsgRelation(target, p.reference_id, p.reference_msg_id)) continue;
    if (MsgDeleted(target, p.reference_msg_id)) continue;
    auto it = std::find_if(by_msg.begin(), by_msg.end(),
                           [&](const Refs& r) { return r.msg_id == p.referenced_msg_id; });
    if (it == by_msg.end()) {
      by_msg.push_back(Refs{p.referenced_msg_id, {}, {}});
      it = by_msg.end() - 1;
    }
    (p.type == kComment ? it->comments : it->reposts).push_back(&p);
  }
  for (const Refs& refs : by_msg) {
    CounterRow delta;
    delta.msg_id = refs.msg_id;
    delta.commented = delta.comments = static_cast<int64_t>(refs.comments.size());
    delta.transferred = delta.transfers = static_cast<int64_t>(refs.reposts.size());
    std::optional<CounterRow> now;
    if (AddCounter(target, delta)) {
      now = GetCounter(target, refs.msg_id);
    } else if (ArchivedCounter(ctx, refs.msg_id)) {  // archived meanwhile: one job at a time
      for (const auto* list : {&refs.comments, &refs.reposts})
        for (const RefAddJob* p : *list) ApplyRefAddToArchive(ctx, target, *p);
      continue;
    }
    auto insert = [&](const std::vector<const RefAddJob*>& list, int64_t count) {
      for (size_t i = 0; i < list.size(); ++i) {
        RelationMsgRow rel = RefRelation(*list[i]);
        if (now) {
          int64_t n = count - static_cast<int64_t>(list.size() - i) + 1;
          rel.page_index = PageIndex(n, ctx.config().page_size);
        }
        InsertMsgRelation(target, rel);
      }
    };
    insert(refs.comments, now ? now->commented : 0);
    insert(refs.reposts, now ? now->transferred : 0);
  }
}

void ApplyRefRemove(Context& ctx, Shard& target, const RefRemoveJob& p) {
  RecordMsgDeleted(target, p.reference_msg_id);
  if (!DeleteMsgRelation(target, p.reference_id, p.reference_msg_id)) {
    ApplyRefRemoveToArchive(ctx, target, p);  // msg_b and its relation rows were archived
    return;
  }
  AddCounter(target, RefRemoveDelta(p));
}

}  // namespace weibo
