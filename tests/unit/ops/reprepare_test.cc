// No statement the ops run is prepared again at a new bind. SQLite re-prepares a cached
// statement at every bind whose value may change its plan: a parameter compared with the
// column a partial index's WHERE names, for instance. Schema 17's user_relation_followers
// (type = 1) did that to every Related, so each post's fan list and each home read's
// followee list were parsed and planned each time, which the unit tests never saw. This runs
// the common ops twice through the op table on one ShardSet, in each feed mode, and requires
// that the second round, with other users and messages, re-prepared no statement the
// shards had cached.
#include <map>
#include <string>

#include "jobs/context.h"
#include "ops/args.h"
#include "storage/shard_set.h"
#include "test_support.h"
#include "weibo/ops.h"

namespace weibo {
namespace {

using test::Cluster;
using test::ClusterOptions;
using test::IdOf;

// Every statement the shards have cached, by its text: how many times it was re-prepared.
std::map<std::string, int> Reprepared(ShardSet& set, int shards) {
  std::map<std::string, int> out;
  for (int i = 0; i < shards; ++i) test::AddReprepared(set.At(i).db(), &out);
  return out;
}

TEST_CASE("ops: a second round of the common ops re-prepares no cached statement") {
  for (const char* feed : {"push", "pull", "hybrid"}) {
    INFO("feed " << feed);
    Cluster c(ClusterOptions{4, feed});
    ShardSet set(c.dir(), nullptr);
    auto run = [&](const std::string& op, const Json& args) {
      const OpSpec* spec = FindOperation(op);
      REQUIRE(spec != nullptr);
      Context ctx(set, Clock(test::kNow));
      INFO(op << " " << args.dump());
      return spec->handler(ctx, ValidateArgs(*spec, args));
    };
    auto round = [&](const std::string& tag) {
      int64_t a = IdOf(run("user_add", {{"name", "a" + tag}}));
      int64_t b = IdOf(run("user_add", {{"name", "b" + tag}}));
      int64_t d = IdOf(run("user_add", {{"name", "d" + tag}}));
      run("follow", {{"user", b}, {"target", a}});
      run("follow", {{"user", d}, {"target", a}});
      run("follow", {{"user", a}, {"target", b}});
      const std::string m1 = std::to_string(IdOf(run("post", {{"user", a}, {"content", "x"}})));
      run("post", {{"user", b}, {"content", "y"}});
      run("repost", {{"user", d}, {"msg", m1}});
      run("comment", {{"user", b}, {"msg", m1}, {"content", "z"}});
      run("like", {{"user", b}, {"msg", m1}});
      for (int64_t reader : {a, b, d}) run("timeline", {{"user", reader}});
      run("show", {{"msg", m1}});
      run("count", {{"msgs", Json::array({m1})}});
      run("comments", {{"msg", m1}});
      run("reposts", {{"msg", m1}});
      run("user_show", {{"user", a}});
      run("unfollow", {{"user", d}, {"target", a}});
      run("delete", {{"user", a}, {"msg", m1}});
      run("timeline", {{"user", b}});
    };
    round("1");  // every statement prepared and cached (opening may re-prepare: not a bind)
    const auto before = Reprepared(set, c.shards());
    round("2");
    const auto after = Reprepared(set, c.shards());
    REQUIRE(after.size() >= 30);  // the check sees the statements the ops ran
    for (const auto& [sql, n] : after) {
      INFO(sql);
      auto was = before.find(sql);
      CHECK(n == (was != before.end() ? was->second : 0));
    }
  }
}

}  // namespace
}  // namespace weibo
