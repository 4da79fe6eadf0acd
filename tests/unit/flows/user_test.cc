// flows/user.cc: user_add / user_show / user_list (SPEC §2 sequential ids, unique names).
#include "storage/shard_set.h"
#include "test_support.h"

namespace weibo {
namespace {

using test::Cluster;
using test::ClusterOptions;
using test::RawDb;

std::vector<std::string> Keys(const Json& j) {
  std::vector<std::string> keys;
  for (const auto& item : j.items()) keys.push_back(item.key());
  return keys;
}

TEST_CASE("user_add: ids are sequential from 1, the result is the user JSON of SPEC §10") {
  Cluster c;
  Json first = c.Run("user_add", {{"name", "alice"}});
  REQUIRE(first == Json{{"id", "1"},
                        {"name", "alice"},
                        {"msg_count", 0},
                        {"fans_count", 0},
                        {"follow_count", 0}});
  REQUIRE(Keys(first) ==
          std::vector<std::string>{"id", "name", "msg_count", "fans_count", "follow_count"});
  for (int64_t i = 2; i <= 9; ++i) REQUIRE(c.AddUser("user" + std::to_string(i)) == i);
}

TEST_CASE("user_add: names are unique (user_exists), case-sensitive, and up to 20 code points") {
  Cluster c;
  c.AddUser("alice");
  Status s = c.Fail("user_add", {{"name", "alice"}});
  REQUIRE(s.code() == Code::kUserExists);
  REQUIRE(s.message().find("@alice") != std::string::npos);
  REQUIRE(c.AddUser("Alice") == 2);
  REQUIRE(c.AddUser("一二三四五六七八九十一二三四五六七八九十") == 3);
  REQUIRE(c.CodeOf("user_add", {{"name", "一二三四五六七八九十一二三四五六七八九十一"}}) ==
          Code::kInvalidArgument);
  REQUIRE(c.CodeOf("user_add", {{"name", "has space"}}) == Code::kInvalidArgument);
  REQUIRE(c.CodeOf("user_add", {{"name", "@at"}}) == Code::kInvalidArgument);
  REQUIRE(c.CodeOf("user_add", {}) == Code::kInvalidRequest);
  // A refused add burns no id.
  REQUIRE(c.AddUser("dave") == 4);
}

TEST_CASE("user_show: by id, by digits, by @name, unknown users are not_found") {
  Cluster c;
  c.AddUser("alice");
  int64_t bob = c.AddUser("小明");
  REQUIRE(c.Run("user_show", {{"user", bob}}).at("name") == "小明");
  REQUIRE(c.Run("user_show", {{"user", "2"}}).at("id") == "2");
  REQUIRE(c.Run("user_show", {{"user", "@小明"}}).at("id") == "2");
  REQUIRE(c.Run("user_show", {{"user", "@alice"}}).at("id") == "1");
  REQUIRE(c.CodeOf("user_show", {{"user", 3}}) == Code::kNotFound);
  REQUIRE(c.CodeOf("user_show", {{"user", "@nobody"}}) == Code::kNotFound);
  REQUIRE(c.CodeOf("user_show", {{"user", "abc"}}) == Code::kInvalidArgument);
  REQUIRE(c.CodeOf("user_show", {{"user", 0}}) == Code::kInvalidArgument);
}

TEST_CASE("user_list: every user of every shard, by id") {
  Cluster c(ClusterOptions{8});
  REQUIRE(c.Run("user_list") == Json::array());
  for (int i = 1; i <= 20; ++i) c.AddUser("u" + std::to_string(i));
  Json all = c.Run("user_list");
  REQUIRE(all.size() == 20);
  for (int i = 0; i < 20; ++i) {
    REQUIRE(all[i].at("id") == std::to_string(i + 1));
    REQUIRE(all[i].at("name") == "u" + std::to_string(i + 1));
  }
}

TEST_CASE("user_add: the user's row is on shard(id mod N), the name on its hash's shard") {
  Cluster c(ClusterOptions{8});
  for (int i = 1; i <= 12; ++i) c.AddUser("n" + std::to_string(i));
  ShardSet set(c.dir(), nullptr);
  for (int64_t id = 1; id <= 12; ++id) {
    for (int s = 0; s < 8; ++s) {
      RawDb db(c.ShardPath(s));
      int64_t rows = db.Int("SELECT count(*) FROM user_info WHERE user_id = " + std::to_string(id));
      REQUIRE(rows == (s == id % 8 ? 1 : 0));
      std::string name = "n" + std::to_string(id);
      int64_t names = db.Int("SELECT count(*) FROM user_name WHERE user_name = '" + name +
                             "' AND user_id = " + std::to_string(id));
      REQUIRE(names == (s == set.ShardOfName(name) ? 1 : 0));
    }
  }
  RawDb shard0(c.ShardPath(0));
  REQUIRE(shard0.Int("SELECT value FROM meta WHERE key = 'next_user_id'") == 13);
}

TEST_CASE("user_add: created and last_active come from the clock") {
  Cluster c;
  int64_t a = c.AddUser("alice");
  RawDb db(c.ShardPath(static_cast<int>(a % c.shards())));
  REQUIRE(db.Rows("SELECT created, last_active FROM user_info WHERE user_id = 1") ==
          std::to_string(test::kNow) + "|" + std::to_string(test::kNow) + "\n");
  c.SetNow(test::kNow + 5000);
  c.Post(a, "hi");
  REQUIRE(db.Int("SELECT last_active FROM user_info WHERE user_id = 1") == test::kNow + 5000);
}

}  // namespace
}  // namespace weibo
