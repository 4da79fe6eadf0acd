// Every flow (one op of the operation table each) and every job handler, grouped by the
// file that defines it. A flow takes arguments already validated at the edge (ops/args.cc)
// and returns the JSON of SPEC §10; it refuses by throwing Failure.
#ifndef WEIBO_FLOWS_FLOWS_H_
#define WEIBO_FLOWS_FLOWS_H_

#include <optional>

#include "flows/job_payloads.h"
#include "jobs/context.h"

namespace weibo {

// flows/user.cc
Json UserAdd(Context& ctx, const Json& args);
Json UserShow(Context& ctx, const Json& args);
Json UserList(Context& ctx, const Json& args);
Json UserJson(const UserRow& row);
void ApplyUserCreate(Context& ctx, Shard& target, const UserCreateJob& job);

// flows/follow.cc
Json Follow(Context& ctx, const Json& args);
Json Unfollow(Context& ctx, const Json& args);
void ApplyFanAdd(Context& ctx, Shard& target, const FanAddJob& job);
void ApplyFanRemove(Context& ctx, Shard& target, const FanRemoveJob& job);
void ApplyInboxMerge(Context& ctx, Shard& target, const InboxMergeJob& job);

// flows/post.cc, flows/repost.cc, flows/comment.cc
Json Post(Context& ctx, const Json& args);
Json Repost(Context& ctx, const Json& args);
Json Comment(Context& ctx, const Json& args);

// flows/refs.cc: the referenced message's side of a comment or repost
void ApplyRefAdd(Context& ctx, Shard& target, const RefAddJob& job);
void ApplyRefRemove(Context& ctx, Shard& target, const RefRemoveJob& job);
// Many ref_adds of one drain on one shard, merged: one counter UPDATE per message.
void ApplyRefAdds(Context& ctx, Shard& target, const std::vector<RefAddJob>& jobs);

// flows/like.cc (seed 004)
Json Like(Context& ctx, const Json& args);
Json Unlike(Context& ctx, const Json& args);
Json Likes(Context& ctx, const Json& args);
// In shard's open write transaction: a counter_delta job for a message of that shard.
void EnqueueCounterDelta(Context& ctx, Shard& shard, const CounterDeltaJob& job);
void ApplyCounterDelta(Context& ctx, Shard& target, const CounterDeltaJob& job);
// The counter_delta jobs of one drain on one shard: one UPDATE per message.
void MergeCounterDeltas(Context& ctx, Shard& target, const std::vector<CounterDeltaJob>& jobs);

// flows/notify.cc (seed 004): system notifications and their unread count
Json NotifySend(Context& ctx, const Json& args);
Json NotifyList(Context& ctx, const Json& args);
Json NotifyRead(Context& ctx, const Json& args);
Json NotifyUnread(Context& ctx, const Json& args);
// Drops the last-seen ids of users inactive for kSeenExpiryMs (the drain runs it);
// returns how many.
int64_t ExpireLastSeen(Context& ctx);
constexpr int64_t kSeenExpiryMs = 30LL * 24 * 3600 * 1000;

// flows/delete.cc
Json Delete(Context& ctx, const Json& args);

// flows/fanout.cc: the feed mode's write side
void ApplyFanOut(Context& ctx, Shard& target, const FanOutJob& job);
// Whether a message is no longer in msg_info on its own shard (deleted): deliveries and
// merges check it, as msg_deleted on their target shard may not know yet.
bool MessageGone(Context& ctx, int64_t msg_id);
void ApplyDeliver(Context& ctx, Shard& target, const DeliverJob& job);
// Merges a followee's posts into a reader's inbox (inbox_merge, active_merge), passing over
// the posts deleted since they were read.
void MergeIntoInbox(Context& ctx, Shard& target, int64_t user, int64_t author,
                    const std::vector<MergeItem>& items);
void ApplyPurge(Context& ctx, Shard& target, const PurgeJob& job);
void ApplyUndeliver(Context& ctx, Shard& target, const UndeliverJob& job);

// flows/timeline.cc
Json Timeline(Context& ctx, const Json& args);

// flows/active.cc: activity, and hybrid's active-follower lists
constexpr int64_t kActivityGrainMs = 3600LL * 1000;      // last_active is refreshed hourly
constexpr int64_t kActiveWindowMs = 24LL * 3600 * 1000;  // rejoin the lists once a day
// After the user read their home timeline: refreshes last_active and, in hybrid, rejoins the
// active lists of the user's followees when the last join is older than kActiveWindowMs.
void NoteActivity(Context& ctx, int64_t user);
// Puts fan at the head of author's active list (on the author's shard) and returns the
// active_merge entry for the fan's shard; none when the author does not push.
std::optional<ActiveMergeEntry> JoinActiveList(Context& ctx, Shard& author_shard, int64_t author,
                                               int64_t fan, int64_t floor);
void ApplyActiveJoin(Context& ctx, Shard& target, const ActiveJoinJob& job);
void ApplyActiveMerge(Context& ctx, Shard& target, const ActiveMergeJob& job);
void ApplyActiveDrop(Context& ctx, Shard& target, const ActiveDropJob& job);

// flows/show.cc
Json Show(Context& ctx, const Json& args);
Json Comments(Context& ctx, const Json& args);
Json Reposts(Context& ctx, const Json& args);
Json Count(Context& ctx, const Json& args);

// flows/drain.cc: the worker's op
Json Drain(Context& ctx, const Json& args);

// flows/job_kinds.cc: registers every job kind's handler with the jobs layer (jobs/jobs.h);
// OpenEmbedded calls it, so does anything that applies jobs without an executor.
void RegisterFlowJobKinds();

// flows/tokens.cc: apps, access tokens, revocation (SPEC §8; flows/tokens.h)
Json AppRegister(Context& ctx, const Json& args);
Json AppList(Context& ctx, const Json& args);
Json AppEvents(Context& ctx, const Json& args);
Json TokenIssue(Context& ctx, const Json& args);
Json TokenRevoke(Context& ctx, const Json& args);
Json TokenList(Context& ctx, const Json& args);
Json TokenCheck(Context& ctx, const Json& args);
void ApplyAppEvent(Context& ctx, Shard& target, const AppEventJob& job);

// flows/fsck.cc
Json Fsck(Context& ctx, const Json& args);

}  // namespace weibo

#endif  // WEIBO_FLOWS_FLOWS_H_
