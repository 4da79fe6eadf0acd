// FeedPolicy (flows/feed_policy.h): each decision of each feed mode, as SPEC §5 states it.
#include "flows/feed_policy.h"

#include "test_support.h"

namespace weibo {
namespace {

UserRow Author(int64_t fans, bool pulled = false) {
  UserRow row;
  row.fans_count = fans;
  row.pulled = pulled;
  return row;
}

// What each mode must answer, with celebrity_threshold 100 and tier_fans 10.
struct Expected {
  const char* feed;
  bool pushes_small, pushes_celebrity, pushes_pulled;  // authors of 5, 100 and 5 (pulled)
  bool has_inbox, uses_active_lists;
  bool fan_out_in_post_9, fan_out_in_post_10, tiers, tiered_9, tiered_10;
  bool pulls_every_followee, followees_only_below_floor;
};

constexpr bool Y = true, N = false;

// clang-format off
const Expected kModes[] = {
    //         pushes:           has    active  fan-out in post  tiers  tiered:   pulls  below
    // feed    small celeb pulled inbox lists   9     10          fan-out 9   10    all    only
    {"push",   Y,    Y,    Y,     Y,    N,      Y,    N,          Y,     N,   Y,    N,     Y},
    {"pull",   N,    N,    N,     N,    N,      Y,    N,          N,     N,   N,    Y,     N},
    {"hybrid", Y,    N,    N,     Y,    Y,      Y,    Y,          N,     N,   N,    N,     N},
};
// clang-format on

TEST_CASE("feed policy: every decision of every mode") {
  for (const Expected& e : kModes) {
    INFO(e.feed);
    ClusterConfig config;
    config.feed = e.feed;
    config.celebrity_threshold = 100;
    config.tier_fans = 10;
    FeedPolicy feed(config);
    REQUIRE(feed.PushesAuthor(Author(5)) == e.pushes_small);
    REQUIRE(feed.PushesAuthor(Author(100)) == e.pushes_celebrity);
    REQUIRE(feed.PushesAuthor(Author(5, true)) == e.pushes_pulled);  // once pulled, for good
    REQUIRE(feed.HasInbox() == e.has_inbox);
    REQUIRE(feed.UsesActiveLists() == e.uses_active_lists);
    REQUIRE(feed.FanOutInPost(9) == e.fan_out_in_post_9);
    REQUIRE(feed.FanOutInPost(10) == e.fan_out_in_post_10);
    REQUIRE(feed.TiersFanOuts() == e.tiers);
    REQUIRE(feed.Tiered(9) == e.tiered_9);
    REQUIRE(feed.Tiered(10) == e.tiered_10);
    REQUIRE(feed.PullsEveryFollowee() == e.pulls_every_followee);
    REQUIRE(feed.FolloweesOnlyBelowFloor() == e.followees_only_below_floor);
  }
}

}  // namespace
}  // namespace weibo
