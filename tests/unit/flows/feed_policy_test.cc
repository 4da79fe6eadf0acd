// FeedPolicy (flows/feed_policy.h): each decision of each feed mode, as SPEC §5 states it.
#include "flows/feed_policy.h"

#include "test_support.h"

namespace weibo {
namespace {

ClusterConfig Config(const std::string& feed) {
  ClusterConfig config;
  config.feed = feed;
  config.celebrity_threshold = 100;
  config.tier_fans = 10;
  return config;
}

UserRow Author(int64_t fans, bool pulled = false) {
  UserRow row;
  row.fans_count = fans;
  row.pulled = pulled;
  return row;
}

TEST_CASE("feed policy: push pushes everyone to every fan, tiered from tier_fans") {
  ClusterConfig config = Config("push");
  FeedPolicy feed(config);
  REQUIRE(feed.PushesAuthor(Author(1000000, true)));
  REQUIRE(feed.HasInbox());
  REQUIRE_FALSE(feed.UsesActiveLists());
  REQUIRE(feed.FanOutInPost(9));
  REQUIRE_FALSE(feed.FanOutInPost(10));
  REQUIRE(feed.TiersFanOuts());
  REQUIRE_FALSE(feed.Tiered(9));
  REQUIRE(feed.Tiered(10));
  REQUIRE_FALSE(feed.PullsEveryFollowee());
  REQUIRE(feed.FolloweesOnlyBelowFloor());
}

TEST_CASE("feed policy: pull pushes nobody and reads every followee's outbox") {
  ClusterConfig config = Config("pull");
  FeedPolicy feed(config);
  REQUIRE_FALSE(feed.PushesAuthor(Author(0)));
  REQUIRE_FALSE(feed.HasInbox());
  REQUIRE_FALSE(feed.UsesActiveLists());
  REQUIRE_FALSE(feed.TiersFanOuts());
  REQUIRE(feed.PullsEveryFollowee());
  REQUIRE_FALSE(feed.FolloweesOnlyBelowFloor());
}

TEST_CASE("feed policy: hybrid pushes the authors below the threshold to their active lists") {
  ClusterConfig config = Config("hybrid");
  FeedPolicy feed(config);
  REQUIRE(feed.PushesAuthor(Author(99)));
  REQUIRE_FALSE(feed.PushesAuthor(Author(100)));
  REQUIRE_FALSE(feed.PushesAuthor(Author(5, true)));  // once pulled, pulled for good
  REQUIRE(feed.HasInbox());
  REQUIRE(feed.UsesActiveLists());
  REQUIRE(feed.FanOutInPost(1000000));  // the active list is short
  REQUIRE_FALSE(feed.TiersFanOuts());
  REQUIRE_FALSE(feed.Tiered(1000000));
  REQUIRE_FALSE(feed.PullsEveryFollowee());
  REQUIRE_FALSE(feed.FolloweesOnlyBelowFloor());
}

}  // namespace
}  // namespace weibo
