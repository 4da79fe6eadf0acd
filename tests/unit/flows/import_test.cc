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

TEST_CASE("import: bad edges refuse the whole import, existing edges are skipped") {
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

// weibo-follow --from-file: one follower, a list of targets, through import's batches.
TEST_CASE("follow --from-file: the rows, counts and timelines of follow by follow") {
  for (const char* feed : {"push", "pull", "hybrid"}) {
    ClusterOptions options;
    options.shards = 4;
    options.feed = feed;
    Cluster bulk(options), single(options);
    for (Cluster* c : {&bulk, &single}) {
      for (int i = 1; i <= 9; ++i) c->AddUser("u" + std::to_string(i));
      for (int64_t u = 2; u <= 9; ++u) c->Post(u, "before " + std::to_string(u));
      c->Follow(1, 5);  // already followed: skipped and counted
    }
    Json list = Json::array({"2", "@u3", "4", "@u5", "6", "7", "@u8", "9"});
    Json r = bulk.Run("follow", {{"user", "@u1"}, {"from_file", list}});
    INFO(feed << ": " << r.dump());
    REQUIRE(r.at("users") == 8);
    REQUIRE(r.at("followed") == 7);
    REQUIRE(r.at("existing") == 1);
    REQUIRE(r.at("user").at("follow_count") == 8);
    for (int64_t t = 2; t <= 9; ++t)
      if (t != 5) single.Follow(1, t);
    for (int64_t u = 1; u <= 9; ++u) {
      REQUIRE(bulk.User(u).at("follow_count") == single.User(u).at("follow_count"));
      REQUIRE(bulk.User(u).at("fans_count") == single.User(u).at("fans_count"));
    }
    REQUIRE(bulk.WholeTimeline(1) == single.WholeTimeline(1));
    REQUIRE(bulk.WholeTimeline(1).size() == 8);
    r = bulk.Run("follow", {{"user", "@u1"}, {"from_file", list}});  // again: nothing new
    REQUIRE(r.at("followed") == 0);
    REQUIRE(r.at("existing") == 8);
    REQUIRE(bulk.Fsck().at("ok") == true);
  }
}

TEST_CASE("follow --from-file: a bad list refuses it all and writes nothing") {
  Cluster c;
  for (const char* name : {"alice", "bob", "carol", "dave"}) c.AddUser(name);
  auto relations = [&] {
    int64_t n = 0;
    for (int i = 0; i < c.shards(); ++i)
      n += RawDb(c.ShardPath(i)).Int("SELECT count(*) FROM user_relation");
    return n;
  };
  auto follow = [&](Json list) { return Json{{"user", "@alice"}, {"from_file", list}}; };
  REQUIRE(c.CodeOf("follow", follow({"@bob", "@nobody"})) == Code::kNotFound);
  REQUIRE(c.CodeOf("follow", follow({"@bob", "99"})) == Code::kNotFound);
  REQUIRE(c.CodeOf("follow", follow({"@bob", "@alice"})) == Code::kCannotFollowSelf);
  REQUIRE(c.CodeOf("follow", follow({"@bob", "@carol", "2"})) == Code::kInvalidArgument);
  REQUIRE(c.CodeOf("follow", follow(Json::array())) == Code::kInvalidArgument);
  REQUIRE(c.CodeOf("follow", follow({"bob!"})) == Code::kInvalidArgument);
  Json both = follow({"@bob"});
  both["target"] = "@carol";
  REQUIRE(c.CodeOf("follow", both) == Code::kInvalidArgument);
  REQUIRE(c.CodeOf("follow", Json{{"user", "@alice"}}) == Code::kInvalidRequest);
  REQUIRE(relations() == 0);
  REQUIRE(c.User(1).at("follow_count") == 0);
  // The message names the entry and the one it repeats.
  const std::string message = c.Fail("follow", follow({"@bob", "@carol", "@bob"})).message();
  REQUIRE(message.find("entry 3 (@bob)") != std::string::npos);
  REQUIRE(message.find("already entry 1") != std::string::npos);
}

}  // namespace
}  // namespace weibo
