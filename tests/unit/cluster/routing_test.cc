// cluster/routing.cc: the home shard of every op (weibo-cluster(1), Routing), and
// ParseShardList (weibod --shards).
#include "cluster/routing.h"

#include "storage/shard_set.h"
#include "test_support.h"
#include "weibo/cluster.h"

namespace weibo::cluster {
namespace {

int Home(const std::string& op, Json args, const NameResolver& resolve = nullptr) {
  return HomeShard(Request{op, std::move(args)}, 16, resolve);
}

TEST_CASE("requests route to the shard they write first") {
  CHECK(Home("post", {{"user", 5}, {"content", "x"}}) == 5);
  CHECK(Home("follow", {{"user", "21"}, {"target", 3}}) == 5);
  CHECK(Home("timeline", {{"user", 17}}) == 1);
  CHECK(Home("comment", {{"user", 2}, {"msg", "794354201395200001"}, {"content", "c"}}) == 2);
  CHECK(Home("delete", {{"user", 2}, {"msg", "794354201395200001"}}) == 794354201395200001 % 16);
  CHECK(Home("show", {{"msg", "794354201395200003"}}) == 3);
  CHECK(Home("user_add", {{"name", "alice"}}) == ShardOfName("alice", 16));
}

TEST_CASE("@name users route by the name's shard, or by the resolved id") {
  CHECK(Home("user_show", {{"user", "@bob"}}) == ShardOfName("bob", 16));
  auto resolve = [](const std::string& name) -> std::optional<int64_t> {
    if (name == "bob") return 35;
    return std::nullopt;
  };
  CHECK(Home("user_show", {{"user", "@bob"}}, resolve) == 3);
  CHECK(Home("user_show", {{"user", "@nobody"}}, resolve) == ShardOfName("nobody", 16));
}

TEST_CASE("requests with no home shard, and invalid ones, go to any node") {
  CHECK(Home("user_list", Json::object()) == -1);
  CHECK(Home("count", {{"msgs", {"1", "2"}}}) == -1);
  CHECK(Home("drain", Json::object()) == -1);
  CHECK(Home("fsck", Json::object()) == -1);
  CHECK(Home("post", {{"user", 5}}) == -1);  // no content: any node gives the error
  CHECK(Home("no_such_op", Json::object()) == -1);
}

TEST_CASE("shard lists") {
  auto l = ParseShardList("1,3,5-7", 8);
  REQUIRE(l.ok());
  CHECK(l.value() == std::vector<int>{1, 3, 5, 6, 7});
  CHECK(!ParseShardList("", 8).ok());
  CHECK(!ParseShardList("1,x", 8).ok());
  CHECK(!ParseShardList("3-1", 8).ok());
  CHECK(!ParseShardList("8", 8).ok());
  CHECK(ParseShardList("200", 0).ok());
}

}  // namespace
}  // namespace weibo::cluster
