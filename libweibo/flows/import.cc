// import: bulk set-up of the follow graph (issue 16) — an edge list of follows applied as
// follow applies them (flows/follow.cc), but in batched transactions per shard.
//
// Shards: every follower's shard, in one write transaction per shard and chunk of kChunk
// edges: the (A, B, 1) rows, follow_count, last_active, and the fan_add job of each new
// edge for B's shard; the chunk's jobs are then drained as follow's are, one transaction
// per target shard and wave (the (B, A, 0) rows, fans_count, in push and hybrid the merges
// and the active lists). Commits are not synced one by one (Sync::kNormal); at the end
// every shard's WAL is synced once, so the graph is durable when the import returns (with
// --async only the follower side is, and the jobs are pending).
//
// Users are checked before anything is written: an unknown user or a self-follow refuses
// the whole import (naming the edge). An edge that is already there is skipped and counted
// as existing, so running the same import again changes nothing.
//
// It writes every follower's shard from one process: in a weibo-cluster(1) only a shard's
// owner writes it, so a node refuses it (run it embedded, before starting the cluster).
#include <unordered_map>

#include "flows/feed_policy.h"
#include "flows/flows.h"
#include "storage/failure.h"
#include "tables/user_relation.h"

namespace weibo {
namespace {

constexpr size_t kChunk = 20000;  // edges per round of transactions

// The edges of args' list with every user resolved (ids checked once each).
std::vector<FollowEdge> ResolveEdges(Context& ctx, const Json& list) {
  std::unordered_map<std::string, int64_t> known;
  auto resolve = [&](const Json& ref) {
    std::string key = ref.is_string() ? ref.get<std::string>() : ref.dump();
    auto it = known.find(key);
    if (it != known.end()) return it->second;
    int64_t id = ctx.ResolveUser(ref);
    known.emplace(std::move(key), id);
    return id;
  };
  std::vector<FollowEdge> edges;
  edges.reserve(list.size());
  for (size_t i = 0; i < list.size(); ++i) {
    FollowEdge e{resolve(list[i][0]), resolve(list[i][1])};
    if (e.user == e.target)
      Fail(Code::kCannotFollowSelf, "edge " + std::to_string(i + 1) + ": user " +
                                        std::to_string(e.user) + " cannot follow themselves");
    edges.push_back(e);
  }
  return edges;
}

// One chunk's follower side: one write transaction per follower shard.
int64_t WriteChunk(Context& ctx, const FollowEdge* begin, const FollowEdge* end) {
  ShardSet& shards = ctx.shards();
  std::vector<std::vector<FollowEdge>> by_shard(shards.count());
  for (const FollowEdge* e = begin; e != end; ++e) by_shard[e->user % shards.count()].push_back(*e);
  const bool merge = FeedPolicy(ctx).HasInbox();
  const int64_t now = ctx.now();
  int64_t added = 0;
  for (int i = 0; i < shards.count(); ++i) {
    if (by_shard[i].empty()) continue;
    Shard& shard = shards.At(i);
    WriteTxn txn(shard, Sync::kNormal);
    std::unordered_map<int64_t, int64_t> follows;  // follower -> new edges
    std::unordered_map<int64_t, bool> joins;       // follower -> JoinsOnFollow
    for (const FollowEdge& e : by_shard[i]) {
      if (!InsertRelation(shard, e.user, e.target, kFollowing, now)) continue;
      ++follows[e.user];
      auto join = joins.find(e.user);
      if (join == joins.end())
        join = joins.emplace(e.user, JoinsOnFollow(ctx, shard, e.user)).first;
      Enqueue(ctx, shard, static_cast<int>(e.target % shards.count()),
              FanAddJob{e.target, e.user, now, merge, join->second});
    }
    for (const auto& [user, n] : follows) {
      AddUserCounts(shard, user, 0, 0, n);
      TouchUser(shard, user, now);
      added += n;
    }
    txn.Commit();
  }
  return added;
}

}  // namespace

int64_t ApplyFollowEdges(Context& ctx, const std::vector<FollowEdge>& edges, const char* stage) {
  int64_t added = 0;
  for (size_t from = 0; from < edges.size(); from += kChunk) {
    size_t to = std::min(edges.size(), from + kChunk);
    added += WriteChunk(ctx, edges.data() + from, edges.data() + to);
    ctx.Settle();
    ctx.Progress(stage, static_cast<int64_t>(to), static_cast<int64_t>(edges.size()));
  }
  // Durable at the end: one sync of each shard's WAL covers every commit made before it.
  for (int i = 0; i < ctx.shards().count(); ++i) ctx.shards().At(i).SyncWal();
  return added;
}

Json Import(Context& ctx, const Json& args) {
  if (ctx.transport() != nullptr)
    Fail(Code::kInvalidRequest,
         "import writes every follower's shard: run it embedded, not through a cluster");
  std::vector<FollowEdge> edges = ResolveEdges(ctx, args.at("edges"));
  const int64_t added = ApplyFollowEdges(ctx, edges, "importing follows");
  const auto total = static_cast<int64_t>(edges.size());
  return Json{{"edges", total}, {"followed", added}, {"existing", total - added}};
}

}  // namespace weibo
