// placement: where a new message is found from its id (seed 003's three strategies,
// storage/shard_set.h MsgShardIndex).
//
// Under gene nothing is written: the id carries its author's shard. Under uid-mapping the
// message's rows are on its author's shard like gene's, but its id (a plain one,
// storage/gene_id.h) says nothing of it, so a tid_map row (tid -> uid) goes to shard
// tid mod N — in the author's transaction when that is the author's shard, else as a
// tid_map job in it (SPEC §5): the seed's "insert into both the metadata and the index
// table", whose consistency the outbox keeps. Until the job is applied another process
// finds the message by its author (timelines, the author's list) and not by its id (show,
// like, comment): not_found, never the wrong message. A delete marks the row the same way
// (tables/tid_map.h says why it is kept).
#include <limits>
#include <map>
#include <string>

#include "flows/flows.h"
#include "tables/author_feed.h"
#include "tables/outbox.h"
#include "tables/tid_map.h"

namespace weibo {

void RecordPlacement(Context& ctx, Shard& shard, int64_t msg_id, int64_t user_id, bool deleted) {
  ShardSet& shards = ctx.shards();
  if (!shards.UsesTidMap()) return;
  shards.KnowAuthor(msg_id, user_id);  // this process finds it before the job is applied
  const int target = shards.TidMapShardIndex(msg_id);
  if (target != shard.index())
    Enqueue(ctx, shard, target, TidMapJob{msg_id, user_id, deleted});
  else if (deleted)
    MarkTidMapDeleted(shard, msg_id, user_id);
  else
    InsertTidMap(shard, msg_id, user_id);
}

std::vector<MsgRow> AuthorPostsOf(Context& ctx, Shard& author_shard, int64_t author,
                                  int64_t since_id, int64_t limit) {
  if (ctx.shards().AuthorHoldsMsgs()) return AuthorPosts(author_shard, author, 0, since_id, limit);
  std::vector<MsgRow> out;
  for (int64_t part : AuthorParts(author_shard, author, kPartCount, kPartCount)) {
    if (PartEnd(part) <= since_id) break;
    for (int64_t id : ReadAuthorPart(author_shard, author, part, true, 0, since_id,
                                     limit - static_cast<int64_t>(out.size())))
      if (auto row = GetMsg(ctx.shards().ForMsg(id), id)) out.push_back(std::move(*row));
    if (static_cast<int64_t>(out.size()) >= limit) break;
  }
  return out;
}

void ApplyTidMap(Context&, Shard& target, const TidMapJob& job) {
  if (job.deleted)
    MarkTidMapDeleted(target, job.msg_id, job.user_id);
  else
    InsertTidMap(target, job.msg_id, job.user_id);
}

Json CheckTidMap(Context& ctx, const std::map<int64_t, int64_t>& authors, bool repair) {
  Json violations = Json::array();
  ShardSet& shards = ctx.shards();
  if (!shards.UsesTidMap()) return violations;
  auto violation = [&](Shard& shard, const std::string& detail, int64_t tid, int64_t uid,
                       bool deleted) {
    violations.push_back(Json{{"check", "tid_map"}, {"detail", detail}, {"repaired", repair}});
    if (!repair) return;
    WriteTxn txn(shard);
    RepairTidMap(shard, tid, uid, deleted);
    txn.Commit();
  };
  std::map<int64_t, TidMapRow> found;  // the rows on their right shard, by tid
  std::map<int64_t, bool> pending;     // tid -> the deleted flag of its pending job
  for (int i = 0; i < shards.count(); ++i) {
    Shard& shard = shards.At(i);
    std::vector<TidMapRow> rows;
    {
      ReadTxn txn(shard);
      rows = AllTidMap(shard);
      for (const JobRow& job : PendingJobs(shard, std::numeric_limits<int64_t>::max()))
        if (job.kind == TidMapJob::kKind) {
          const TidMapJob j = TidMapJob::Decode(Json::parse(job.payload));
          pending[j.msg_id] = pending[j.msg_id] || j.deleted;
        }
    }
    for (const TidMapRow& row : rows) {
      const int home = shards.TidMapShardIndex(row.tid);
      if (home != i) {
        violation(shard,
                  shard.name() + ": the tid_map row of message " + std::to_string(row.tid) +
                      " belongs on shard " + std::to_string(home),
                  row.tid, 0, false);
        continue;
      }
      found[row.tid] = row;
    }
  }
  // Messages without their row, or with a wrong one.
  for (const auto& [tid, author] : authors) {
    Shard& shard = shards.At(shards.TidMapShardIndex(tid));
    const std::string what =
        "message " + std::to_string(tid) + " of user " + std::to_string(author);
    auto it = found.find(tid);
    if (it == found.end()) {
      if (!pending.count(tid))
        violation(shard, shard.name() + ": " + what + " has no tid_map row", tid, author, false);
      continue;
    }
    const TidMapRow row = it->second;
    found.erase(it);
    if (row.uid != author)
      violation(shard,
                shard.name() + ": tid_map maps " + what + " to user " + std::to_string(row.uid),
                tid, author, false);
    else if (row.deleted && !pending.count(tid))
      violation(shard, shard.name() + ": tid_map marks " + what + " deleted", tid, author, false);
  }
  // Rows left: mappings to no message, right when marked deleted (or about to be).
  for (const auto& [tid, row] : found) {
    if (row.deleted || (pending.count(tid) && pending[tid])) continue;
    Shard& shard = shards.At(shards.TidMapShardIndex(tid));
    violation(shard,
              shard.name() + ": tid_map maps message " + std::to_string(tid) + " to user " +
                  std::to_string(row.uid) + ", who has no such message",
              tid, row.uid, true);
  }
  return violations;
}

}  // namespace weibo
