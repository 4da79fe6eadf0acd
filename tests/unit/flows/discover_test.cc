// flows/discover.cc: weibo-discover(1), seed 001's random-posts cache.
#include <algorithm>
#include <map>
#include <set>

#include "flows/flows.h"
#include "test_support.h"

namespace weibo {
namespace {

using test::Cluster;
using test::IdsOf;

std::vector<int64_t> Range(int64_t from, int64_t count) {
  std::vector<int64_t> ids;
  for (int64_t i = 0; i < count; ++i) ids.push_back(from + i);
  return ids;
}

// cluster.json's n, N, pool and t.
void Configure(Cluster& c, int count, int groups, int pool, int refresh) {
  c.EditConfig([=](Json& j) {
    j["discover_count"] = count;
    j["discover_groups"] = groups;
    j["discover_pool"] = pool;
    j["discover_refresh"] = refresh;
  });
}

TEST_CASE("discover: groups are samples of the pool, the same for the same bucket") {
  const std::vector<int64_t> pool = Range(1000, 100);
  auto groups = DrawDiscoverGroups(pool, 42, 8, 10);
  REQUIRE(groups.size() == 8);
  std::set<std::vector<int64_t>> distinct;
  for (const auto& g : groups) {
    REQUIRE(g.size() == 10);
    std::set<int64_t> ids(g.begin(), g.end());
    CHECK(ids.size() == 10);  // without replacement
    for (int64_t id : g) CHECK(std::find(pool.begin(), pool.end(), id) != pool.end());
    distinct.insert(g);
  }
  CHECK(distinct.size() == 8);
  CHECK(DrawDiscoverGroups(pool, 42, 8, 10) == groups);
  CHECK(DrawDiscoverGroups(pool, 43, 8, 10) != groups);
  // A pool smaller than a group: every group is the whole pool, in an order of its own.
  auto small = DrawDiscoverGroups(Range(1, 3), 42, 2, 10);
  REQUIRE(small.size() == 2);
  for (auto g : small) {
    std::sort(g.begin(), g.end());
    CHECK(g == Range(1, 3));
  }
  CHECK(DrawDiscoverGroups({}, 42, 3, 10) == std::vector<std::vector<int64_t>>(3));
}

TEST_CASE("discover: every id of the pool is drawn about as often as any other") {
  // 50 ids, 2000 groups of 5: each id is expected in 200 groups.
  std::map<int64_t, int> seen;
  for (const auto& g : DrawDiscoverGroups(Range(1, 50), 7, 2000, 5))
    for (int64_t id : g) ++seen[id];
  REQUIRE(seen.size() == 50);
  for (const auto& [id, n] : seen) {
    INFO(id);
    CHECK(n > 140);
    CHECK(n < 260);
  }
}

TEST_CASE("discover: recent originals only, the same answer under the same clock") {
  Cluster c;
  Configure(c, 4, 3, 10, 300);
  int64_t alice = c.AddUser("alice"), bob = c.AddUser("bob");
  std::vector<int64_t> posts;
  std::map<int64_t, int64_t> author;
  for (int i = 0; i < 14; ++i) {
    c.SetNow(test::kNow + i * 1000);  // one a second: ids in the order of posting
    posts.push_back(c.Post(i % 2 ? alice : bob, "post " + std::to_string(i)));
    author[posts.back()] = i % 2 ? alice : bob;
  }
  int64_t comment = c.Comment(bob, posts.back(), "a comment");
  c.Run("drain");  // stores the groups of the clock's bucket
  const std::set<int64_t> pool(posts.end() - 10, posts.end());  // the 10 newest
  Json shown = c.Run("discover");
  REQUIRE(shown.size() == 4);
  for (int64_t id : IdsOf(shown)) {
    CHECK(pool.count(id) == 1);
    CHECK(id != comment);
  }
  CHECK(c.Run("discover") == shown);
  CHECK(c.Run("discover", {{"count", 2}}).size() == 2);
  // The groups, one by one: the clock's group is one of them.
  bool found = false;
  for (int g = 1; g <= 3; ++g) found = found || c.Run("discover", {{"group", g}}) == shown;
  CHECK(found);
  CHECK(c.CodeOf("discover", {{"group", 4}}) == Code::kInvalidArgument);
  // A deleted post is left out at once, refreshed or not.
  const int64_t gone = IdsOf(shown).front();
  c.Run("delete", {{"user", author[gone]}, {"msg", std::to_string(gone)}});
  Json after = c.Run("discover");
  CHECK(after.size() == 3);  // the stored group, less the deleted post
  for (int64_t id : IdsOf(after)) CHECK(id != gone);
  // Without them, the read draws from the pool as it is now: a full group without it.
  std::filesystem::remove(c.dir() + "/discover.json");
  after = c.Run("discover");
  CHECK(after.size() == 4);
  for (int64_t id : IdsOf(after)) CHECK(id != gone);
}

TEST_CASE("discover: the drain stores the bucket's groups, kept until t is up") {
  Cluster c;
  Configure(c, 5, 2, 5, 60);
  int64_t alice = c.AddUser("alice");
  std::vector<int64_t> posts;
  for (int i = 0; i < 5; ++i) posts.push_back(c.Post(alice, "post " + std::to_string(i)));
  c.Run("drain");
  REQUIRE(std::filesystem::exists(c.dir() + "/discover.json"));
  const int64_t newer = c.Post(alice, "after the refresh");
  auto sorted = [](std::vector<int64_t> ids) {
    std::sort(ids.begin(), ids.end());
    return ids;
  };
  // The pool is 5 posts and a group 5: each group is the whole pool as it was drawn.
  CHECK(sorted(IdsOf(c.Run("discover"))) == posts);
  c.SetNow(test::kNow + 60 * 1000);  // the next bucket: drawn again, by the read itself
  std::vector<int64_t> next = sorted(IdsOf(c.Run("discover")));
  CHECK(next.back() == newer);
  CHECK(next.front() == posts[1]);
}

}  // namespace
}  // namespace weibo
