// FeedPolicy: every decision that depends on the cluster's feed mode (SPEC §5), in one
// place (feed_policy.cc: a table of the decisions that are constants of a mode, one switch
// for each of the others). The mode is a string only in
// cluster.json (storage/shard_set.h, ClusterConfig::feed), which validates it; the flows ask
// the policy and never compare the string.
//
//   push    every author is pushed to every fan's inbox, in activity tiers for an author
//           with fans_count >= tier_fans; a read merges the inbox, and the followees'
//           outboxes only below the inbox's floor (where the cap trimmed it)
//   pull    nothing is pushed: a read merges the outboxes of every followee
//   hybrid  an author below celebrity_threshold fans (who never reached it) is pushed, to
//           the fans on their active list only; a read merges the inbox and pulls every
//           other followee
#ifndef WEIBO_FLOWS_FEED_POLICY_H_
#define WEIBO_FLOWS_FEED_POLICY_H_

#include <cstdint>

#include "jobs/context.h"

namespace weibo {

class FeedPolicy {
 public:
  enum class Mode { kPush, kPull, kHybrid };  // the order of feed_policy.cc's table
  // The policy of the context's cluster.
  explicit FeedPolicy(const Context& ctx);
  explicit FeedPolicy(const ClusterConfig& config);

  // Who is pushed. Whether a post by this author gets inbox rows at all.
  bool PushesAuthor(const UserRow& author) const;
  // Whether readers have inboxes: a follow merges the followee's recent posts into one,
  // reads start from it, fsck checks it.
  bool HasInbox() const;
  // Whether pushes go to (and follows merge through) the authors' active-fan lists only,
  // which a reader's activity rejoins (flows/active.cc).
  bool UsesActiveLists() const;
  // Whether a pushed author's fan-out is expanded in the post's own transaction (small)
  // rather than as a fanout job (large; tiered in push).
  bool FanOutInPost(int64_t fans_count) const;
  // Whether some fan-outs sort their fans into activity tiers, and whether the fan-out of
  // an author with this many fans does.
  bool TiersFanOuts() const;
  bool Tiered(int64_t fans_count) const;

  // What a read merges. Whether every followee is pulled (no inbox to read).
  bool PullsEveryFollowee() const;
  // Whether followees matter only below the inbox's floor (every one of them is pushed).
  bool FolloweesOnlyBelowFloor() const;

 private:
  Mode mode_;
  const ClusterConfig& config_;
};

}  // namespace weibo

#endif  // WEIBO_FLOWS_FEED_POLICY_H_
