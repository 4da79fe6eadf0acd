// flows/import.cc: the bulk follow of an edge list gives the cluster a follow one by one
// gives (rows, counts, inboxes, timelines, fsck), refuses bad edges before writing, and
// skips the edges already there.
#include "test_support.h"

namespace weibo {
namespace {

using test::Cluster;
using test::ClusterOptions;
using test::RawDb;

// {"edges": [[a, b], ...]} (a braced list of pairs would make nlohmann build an object).
Json Edges(const std::vector<std::vector<std::string>>& pairs) {
  Json list = Json::array();
  for (const auto& p : pairs) list.push_back(Json(p));
  return Json{{"edges", list}};
}

// The same graph on two clusters: by import on one, follow by follow on the other.
void SameAsFollows(const std::string& feed) {
  ClusterOptions options;
  options.shards = 4;
  options.feed = feed;
  Cluster bulk(options), single(options);
  for (Cluster* c : {&bulk, &single})
    for (int i = 1; i <= 12; ++i) c->AddUser("u" + std::to_string(i));
  std::vector<std::pair<int64_t, int64_t>> edges;
  for (int64_t u = 1; u <= 12; ++u)
    for (int64_t t = 1; t <= 12; ++t)
      if (u != t && (u * 7 + t) % 3 != 0) edges.emplace_back(u, t);
  // Posts before the follows: the follows merge them into inboxes (push) or active lists.
  for (Cluster* c : {&bulk, &single})
    for (int64_t u = 1; u <= 12; ++u) c->Post(u, "before " + std::to_string(u));
  Json list = Json::array();
  for (auto [u, t] : edges)
    list.push_back(Json::array({std::to_string(u), "@u" + std::to_string(t)}));
  Json r = bulk.Run("import", {{"edges", list}});
  REQUIRE(r.at("edges") == static_cast<int64_t>(edges.size()));
  REQUIRE(r.at("followed") == static_cast<int64_t>(edges.size()));
  REQUIRE(r.at("existing") == 0);
  for (auto [u, t] : edges) single.Follow(u, t);
  for (int64_t u = 1; u <= 12; ++u) {
    INFO("user " << u << ", " << feed);
    REQUIRE(bulk.User(u).at("follow_count") == single.User(u).at("follow_count"));
    REQUIRE(bulk.User(u).at("fans_count") == single.User(u).at("fans_count"));
    REQUIRE(bulk.WholeTimeline(u) == single.WholeTimeline(u));
  }
  for (int64_t u = 1; u <= 12; ++u) bulk.Post(u, "after");
  for (int64_t u = 1; u <= 12; ++u) single.Post(u, "after");
  for (int64_t u = 1; u <= 12; ++u) {
    INFO("user " << u << " after posts, " << feed);
    REQUIRE(bulk.WholeTimeline(u).size() == single.WholeTimeline(u).size());
  }
  REQUIRE(bulk.Fsck().at("ok") == true);
}

TEST_CASE("import: the same rows, counts and timelines as follow by follow, every feed mode") {
  for (const char* feed : {"push", "pull", "hybrid"}) SameAsFollows(feed);
}

TEST_CASE("import: bad edges refuse the whole import; existing edges are skipped") {
  Cluster c;
  int64_t a = c.AddUser("alice"), b = c.AddUser("bob");
  c.AddUser("carol");
  auto relations = [&] {
    int64_t n = 0;
    for (int i = 0; i < c.shards(); ++i)
      n += RawDb(c.ShardPath(i)).Int("SELECT count(*) FROM user_relation");
    return n;
  };
  REQUIRE(c.CodeOf("import", Edges({{"1", "2"}, {"2", "99"}})) == Code::kNotFound);
  REQUIRE(c.CodeOf("import", Edges({{"1", "2"}, {"3", "@carol"}})) == Code::kCannotFollowSelf);
  REQUIRE(c.CodeOf("import", Edges({{"1"}})) == Code::kInvalidArgument);
  REQUIRE(relations() == 0);  // nothing of a refused import was written
  c.Follow(a, b);
  Json r = c.Run("import", Edges({{"1", "2"}, {"2", "1"}, {"3", "1"}}));
  REQUIRE(r.at("followed") == 2);
  REQUIRE(r.at("existing") == 1);
  REQUIRE(c.User(a).at("fans_count") == 2);
  REQUIRE(c.User(a).at("follow_count") == 1);
  REQUIRE(relations() == 6);
  r = c.Run("import", Edges({{"1", "2"}, {"2", "1"}, {"3", "1"}}));  // again
  REQUIRE(r.at("followed") == 0);
  REQUIRE(r.at("existing") == 3);
  REQUIRE(relations() == 6);
  REQUIRE(c.Fsck().at("ok") == true);
}

}  // namespace
}  // namespace weibo
