// follow / unfollow A -> B (seed 000 flow 1, merged relation storage).
//
// Shards: A's shard in the request's transaction — the (A, B, 1) row, A's follow_count
// and, on unfollow, B's posts leave A's inbox; B's shard through the fan_add / fan_remove
// job — the (B, A, 0) row and B's fans_count. In push and hybrid mode, fan_add also
// snapshots B's newest posts (up to the inbox cap) in the same transaction on B's shard and
// sends them to A's inbox as an inbox_merge job. Serialising on B's shard is what makes
// this exact: a post of B commits either before that snapshot (and is in it) or after the
// fan row exists (and its fan-out reaches A). Deliveries re-check the follow on A's shard,
// so a merge or fan-out that arrives after an unfollow adds nothing. In hybrid mode, if A
// reads their home timeline (has joined their lists within a day: ReadsHome), the follow
// also puts A at the head of B's active list in fan_add's transaction, and the merge
// travels as active_merge, which records that B pushes to A (flows/active.cc); a follower
// who does not read joins at their next read instead. fan_add marks B pulled when B
// reaches the celebrity threshold, emptying B's list (BecomePulled). Unfollow takes A off
// B's list and forgets it on A's side. A request with an id records it in A's
// transaction (tables/request_log.h); the same id again changes nothing and gets the pair
// as it is now, not already_following or not_following.
//
// With from_file (weibo-follow --from-file) A follows every user of the list through
// import's batched path (flows/import.cc, ApplyFollowEdges): the whole list is checked
// first — an unknown user, A itself or a user listed twice refuses it all, naming the entry
// — and the users A already follows are skipped and counted, so the same list again
// changes nothing. It syncs every shard at the end, so it runs embedded or through
// weibod(1), not on a weibo-cluster(1) node.
#include <unordered_map>

#include "flows/feed_policy.h"
#include "flows/flows.h"
#include "storage/failure.h"
#include "tables/active_fan.h"
#include "tables/msg_index.h"
#include "tables/user_relation.h"

namespace weibo {
namespace {

struct Pair {
  int64_t user, target;
};

}  // namespace

bool JoinsOnFollow(Context& ctx, Shard& shard, int64_t fan) {
  if (!FeedPolicy(ctx).UsesActiveLists()) return true;
  auto row = GetUser(shard, fan);
  return row && ReadsHome(*row, ctx.now());
}

namespace {

Pair ResolvePair(Context& ctx, const Json& args) {
  Pair p{ctx.ResolveUser(args.at("user")), ctx.ResolveUser(args.at("target"))};
  if (p.user == p.target) Fail(Code::kCannotFollowSelf, "a user cannot follow themselves");
  return p;
}

Json PairJson(Context& ctx, const Pair& p, bool following) {
  return Json{{"user", UserJson(ctx.RequireUser(p.user))},
              {"target", UserJson(ctx.RequireUser(p.target))},
              {"following", following}};
}

// The transaction on A's shard, once per request id: a replayed request writes nothing and
// gets the pair as it is now; otherwise change() writes A's side and queues B's.
template <typename Change>
Json WritePair(Context& ctx, const Json& args, bool following, Change change) {
  Pair p = ResolvePair(ctx, args);
  Shard& shard = ctx.shards().ForUser(p.user);
  WriteTxn txn(shard);
  if (ctx.Replayed(shard)) {
    txn.Commit();  // nothing written
    ctx.SettleReplayed();
    return PairJson(ctx, p, following);
  }
  change(shard, p);
  ctx.RecordApplied(shard, 0);
  txn.Commit();
  ctx.Settle();
  return PairJson(ctx, p, following);
}

int FanShard(Context& ctx, const Pair& p) {
  return static_cast<int>(p.target % ctx.shards().count());
}

// The users of from_file, resolved and checked before anything is written. Entries are
// counted from 1 in the list's order (a file's users, without its blank and # lines).
std::vector<FollowEdge> ListEdges(Context& ctx, int64_t user, const Json& list) {
  std::unordered_map<int64_t, size_t> seen;  // target -> its entry
  std::vector<FollowEdge> edges;
  for (size_t i = 0; i < list.size(); ++i) {
    const std::string entry = "entry " + std::to_string(i + 1) + " (" +
                              (list[i].is_string() ? list[i].get<std::string>() : list[i].dump()) +
                              ")";
    int64_t target = 0;
    try {
      target = ctx.ResolveUser(list[i]);
    } catch (const Failure& f) {
      Fail(f.status().code(), "user list " + entry + ": " + f.what());
    }
    if (target == user)
      Fail(Code::kCannotFollowSelf,
           "user list " + entry + ": user " + std::to_string(user) + " cannot follow themselves");
    auto [it, fresh] = seen.emplace(target, i + 1);
    if (!fresh)
      Fail(Code::kInvalidArgument, "user list " + entry + ": user " + std::to_string(target) +
                                       " is already entry " + std::to_string(it->second));
    edges.push_back({user, target});
  }
  return edges;
}

Json FollowMany(Context& ctx, const Json& args) {
  if (args.contains("target")) Fail(Code::kInvalidArgument, "give TARGET or --from-file, not both");
  if (ctx.transport() != nullptr)
    Fail(Code::kInvalidRequest,
         "follow --from-file syncs every shard: run it embedded or through weibod, not through "
         "a cluster");
  const int64_t user = ctx.ResolveUser(args.at("user"));
  std::vector<FollowEdge> edges = ListEdges(ctx, user, args.at("from_file"));
  const int64_t added = ApplyFollowEdges(ctx, edges, "following");
  const auto total = static_cast<int64_t>(edges.size());
  return Json{{"user", UserJson(ctx.RequireUser(user))},
              {"users", total},
              {"followed", added},
              {"existing", total - added}};
}

}  // namespace

Json Follow(Context& ctx, const Json& args) {
  if (args.contains("from_file")) return FollowMany(ctx, args);
  if (!args.contains("target"))
    Fail(Code::kInvalidRequest, "follow needs the argument 'target' or 'from_file'");
  return WritePair(ctx, args, true, [&](Shard& shard, const Pair& p) {
    if (HasRelation(shard, p.user, p.target, kFollowing)) {
      if (args.value("exist_ok", false)) return;  // --exist-ok: nothing to change
      Fail(Code::kAlreadyFollowing,
           "user " + std::to_string(p.user) + " already follows user " + std::to_string(p.target));
    }
    InsertRelation(shard, p.user, p.target, kFollowing, ctx.now());
    AddUserCounts(shard, p.user, 0, 0, 1);
    TouchUser(shard, p.user, ctx.now());
    Enqueue(ctx, shard, FanShard(ctx, p),
            FanAddJob{p.target, p.user, ctx.now(), FeedPolicy(ctx).HasInbox(),
                      JoinsOnFollow(ctx, shard, p.user)});
  });
}

Json Unfollow(Context& ctx, const Json& args) {
  return WritePair(ctx, args, false, [&](Shard& shard, const Pair& p) {
    if (!DeleteRelation(shard, p.user, p.target, kFollowing))
      Fail(Code::kNotFollowing,
           "user " + std::to_string(p.user) + " does not follow user " + std::to_string(p.target));
    AddUserCounts(shard, p.user, 0, 0, -1);
    TouchUser(shard, p.user, ctx.now());
    DeleteInboxByAuthor(shard, p.user, p.target);
    DropActiveOn(shard, p.user, p.target, 0);
    Enqueue(ctx, shard, FanShard(ctx, p), FanRemoveJob{p.target, p.user});
  });
}

void ApplyFanAdd(Context& ctx, Shard& target, const FanAddJob& p) {
  int64_t user = p.user, fan = p.fan;
  if (InsertRelation(target, user, fan, kFan, p.time)) {
    AddUserCounts(target, user, 0, 1, 0);
    BecomePulled(ctx, target, user);
  }
  if (!p.merge) return;
  if (FeedPolicy(ctx).UsesActiveLists()) {
    // A fan who does not read their home timeline joins at their next read instead.
    if (!p.join) return;
    std::optional<ActiveMergeEntry> entry = JoinActiveList(ctx, target, user, fan, 0);
    if (entry)
      Enqueue(ctx, target, static_cast<int>(fan % ctx.shards().count()),
              ActiveMergeJob{fan, {std::move(*entry)}});
    return;
  }
  InboxMergeJob merge{fan, user, {}, std::nullopt};
  for (const MsgRow& m : AuthorPostsOf(ctx, target, user, 0, ctx.config().inbox_cap))
    merge.items.push_back({m.id, m.time});
  if (merge.items.empty()) return;
  // A full merge may have left older posts behind: the fan's inbox is complete only from
  // the oldest merged post up, and timelines pull below it (tables/msg_index.h).
  if (static_cast<int64_t>(merge.items.size()) >= ctx.config().inbox_cap)
    merge.floor = merge.items.back().msg_id;
  Enqueue(ctx, target, static_cast<int>(fan % ctx.shards().count()), merge);
}

void ApplyFanRemove(Context&, Shard& target, const FanRemoveJob& p) {
  if (DeleteRelation(target, p.user, p.fan, kFan)) AddUserCounts(target, p.user, 0, -1, 0);
  RemoveActiveFan(target, p.user, p.fan);
}

void ApplyInboxMerge(Context& ctx, Shard& target, const InboxMergeJob& p) {
  if (!HasRelation(ctx.shards().ForUser(p.author), p.author, p.user, kFan)) return;  // unfollowed
  if (p.floor) RaiseInboxFloor(target, p.user, *p.floor);
  MergeIntoInbox(ctx, target, p.user, p.author, p.items);
}

}  // namespace weibo
