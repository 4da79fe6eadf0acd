#include "flows/feed_policy.h"

#include <iterator>

namespace weibo {
namespace {

// The decisions that are constants of a mode: one row per mode, one column per decision
// (FeedPolicy's methods of the same names say what each means).
struct Rules {
  const char* name;  // as in cluster.json
  bool has_inbox, uses_active_lists, tiers_fan_outs, pulls_every_followee,
      followees_only_below_floor;
};

// clang-format off
const Rules kRules[] = {
    // name     inbox  active lists  tiers  pull all  below floor only
    {"push",    true,  false,        true,  false,    true},
    {"pull",    false, false,        false, true,     false},
    {"hybrid",  true,  true,         false, false,    false},
};
// clang-format on

const Rules& RulesOf(FeedPolicy::Mode mode) { return kRules[static_cast<int>(mode)]; }

// The mode of a validated configuration (ShardSet refuses any other string).
FeedPolicy::Mode ModeOf(const ClusterConfig& config) {
  for (int i = 0; i < static_cast<int>(std::size(kRules)); ++i)
    if (config.feed == kRules[i].name) return static_cast<FeedPolicy::Mode>(i);
  return FeedPolicy::Mode::kHybrid;
}

}  // namespace

FeedPolicy::FeedPolicy(const Context& ctx) : FeedPolicy(ctx.config()) {}

FeedPolicy::FeedPolicy(const ClusterConfig& config) : mode_(ModeOf(config)), config_(config) {}

// The decisions that depend on the author as well: one switch each.
bool FeedPolicy::PushesAuthor(const UserRow& author) const {
  switch (mode_) {
    case Mode::kPush:
      return true;
    case Mode::kPull:
      return false;
    case Mode::kHybrid:
      // An author who has reached the threshold stays pulled (user_info.pulled), so posts
      // made while pulled never vanish.
      return !author.pulled && author.fans_count < config_.celebrity_threshold;
  }
  return false;
}

bool FeedPolicy::FanOutInPost(int64_t fans_count) const {
  switch (mode_) {
    case Mode::kHybrid:
      return true;  // the active list is short
    case Mode::kPush:
    case Mode::kPull:
      return fans_count < config_.tier_fans;
  }
  return false;
}

bool FeedPolicy::Tiered(int64_t fans_count) const {
  return TiersFanOuts() && fans_count >= config_.tier_fans;
}

bool FeedPolicy::HasInbox() const { return RulesOf(mode_).has_inbox; }
bool FeedPolicy::UsesActiveLists() const { return RulesOf(mode_).uses_active_lists; }
bool FeedPolicy::TiersFanOuts() const { return RulesOf(mode_).tiers_fan_outs; }
bool FeedPolicy::PullsEveryFollowee() const { return RulesOf(mode_).pulls_every_followee; }
bool FeedPolicy::FolloweesOnlyBelowFloor() const {
  return RulesOf(mode_).followees_only_below_floor;
}

}  // namespace weibo
