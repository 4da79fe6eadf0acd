// flows/post.cc: an original message (SPEC §4.2): msg_info, msg_count, the author's inbox
// row, the fan-out, gene ids, and the content rules.
#include "storage/gene_id.h"
#include "test_support.h"

namespace weibo {
namespace {

using test::Cluster;
using test::ClusterOptions;
using test::IdOf;
using test::RawDb;

std::vector<std::string> Keys(const Json& j) {
  std::vector<std::string> keys;
  for (const auto& item : j.items()) keys.push_back(item.key());
  return keys;
}

std::string Repeat(const std::string& s, int n) {
  std::string out;
  for (int i = 0; i < n; ++i) out += s;
  return out;
}

TEST_CASE("post: the result is the message JSON of SPEC §10") {
  Cluster c;
  int64_t a = c.AddUser("alice");
  Json m = c.Run("post", {{"user", "@alice"}, {"content", "你好, world"}});
  REQUIRE(Keys(m) == std::vector<std::string>{"id", "user_id", "user_name", "type", "content",
                                              "time", "ref", "page_index", "counts", "root"});
  REQUIRE(m.at("id").is_string());
  REQUIRE(IdOf(m) == GeneIdFloor(test::kNow, a));  // the first id of that millisecond
  REQUIRE(m.at("user_id") == "1");
  REQUIRE(m.at("user_name") == "alice");
  REQUIRE(m.at("type") == "original");
  REQUIRE(m.at("content") == "你好, world");
  REQUIRE(m.at("time") == "2023-11-14T22:13:20Z");
  REQUIRE(m.at("ref").is_null());
  REQUIRE(m.at("page_index").is_null());
  REQUIRE(m.at("root").is_null());
  REQUIRE(m.at("counts") == Json{{"comments", 0},
                                 {"commented", 0},
                                 {"reposts", 0},
                                 {"reposted", 0},
                                 {"likes", 0},
                                 {"views", 0}});
  REQUIRE(c.User(a).at("msg_count") == 1);
}

TEST_CASE("post: rows on the author's shard only — msg_info, msg_counter, own inbox row") {
  Cluster c(ClusterOptions{4});
  c.AddUser("a");
  int64_t u = c.AddUser("b");  // user 2: shard 2
  int64_t id = c.Post(u, "x");
  for (int s = 0; s < 4; ++s) {
    RawDb db(c.ShardPath(s));
    int64_t want = s == 2 ? 1 : 0;
    REQUIRE(db.Int("SELECT count(*) FROM msg_info") == want);
    REQUIRE(db.Int("SELECT count(*) FROM msg_counter") == want);
    REQUIRE(db.Int("SELECT count(*) FROM msg_index") == want);
  }
  RawDb db(c.ShardPath(2));
  REQUIRE(db.Rows("SELECT user_id, msg_id, author_id, time FROM msg_index") ==
          "2|" + std::to_string(id) + "|2|" + std::to_string(test::kNow) + "\n");
  REQUIRE(db.Rows("SELECT user_id, type, content, ref_msg_id FROM msg_info") == "2|0|x|NULL\n");
}

TEST_CASE("post: message ids carry the author's gene for every shard count") {
  int n = GENERATE(1, 2, 16, 256);
  Cluster c(ClusterOptions{n, "push"});
  std::vector<int64_t> users;
  for (int i = 1; i <= 6; ++i) users.push_back(c.AddUser("u" + std::to_string(i)));
  for (int64_t u : users) {
    for (int k = 0; k < 2; ++k) {
      int64_t id = c.Post(u, "post " + std::to_string(k));
      for (int m = 1; m <= 256; m *= 2) REQUIRE(id % m == u % m);
      // found from the id alone
      REQUIRE(c.Run("show", {{"msg", std::to_string(id)}}).at("user_id") == std::to_string(u));
    }
  }
}

TEST_CASE("post: ids strictly increase, on a fixed clock and a moving one") {
  Cluster c;
  int64_t a = c.AddUser("alice");
  int64_t last = 0;
  for (int i = 0; i < 10; ++i) {
    if (i == 5) c.SetNow(test::kNow + 1);
    int64_t id = c.Post(a, "p" + std::to_string(i));
    REQUIRE(id > last);
    last = id;
  }
  REQUIRE(GeneIdTimeMs(last) == test::kNow + 1);
}

TEST_CASE("post: an exhausted millisecond borrows the next one through the flow") {
  Cluster c;
  int64_t a = c.AddUser("alice");
  int64_t first = c.Post(a, "first");
  // Pretend 16382 more ids were handed out in this millisecond: one sequence number is left.
  {
    RawDb db(c.ShardPath(static_cast<int>(a % c.shards())));
    db.Exec("UPDATE msg_seq SET last_id = " + std::to_string(first + 16382LL * 256) +
            " WHERE low8 = " + std::to_string(a));
  }
  int64_t last_of_ms = c.Post(a, "last of the millisecond");
  int64_t borrowed = c.Post(a, "borrowed");
  int64_t next = c.Post(a, "next");
  REQUIRE(last_of_ms == first + 16383LL * 256);
  REQUIRE(GeneIdTimeMs(last_of_ms) == test::kNow);
  REQUIRE(borrowed == GeneIdFloor(test::kNow + 1, a));
  REQUIRE(next == borrowed + 256);
  REQUIRE(c.Run("show", {{"msg", std::to_string(borrowed)}}).at("time") == "2023-11-14T22:13:20Z");
}

TEST_CASE("post: content rules — 140 code points, UTF-8, not empty") {
  Cluster c;
  int64_t a = c.AddUser("alice");
  std::string longest = Repeat("微", 140);
  REQUIRE(c.Run("post", {{"user", a}, {"content", longest}}).at("content") == longest);
  REQUIRE(c.CodeOf("post", {{"user", a}, {"content", Repeat("微", 141)}}) == Code::kContentTooLong);
  REQUIRE(c.CodeOf("post", {{"user", a}, {"content", std::string("bad \xff")}}) ==
          Code::kInvalidUtf8);
  REQUIRE(c.CodeOf("post", {{"user", a}, {"content", ""}}) == Code::kInvalidArgument);
  REQUIRE(c.CodeOf("post", {{"user", a}, {"content", " \t"}}) != Code::kOk);
  REQUIRE(c.CodeOf("post", {{"user", 9}, {"content", "x"}}) == Code::kNotFound);
  REQUIRE(c.CodeOf("post", {{"user", "@ghost"}, {"content", "x"}}) == Code::kNotFound);
  REQUIRE(c.CodeOf("post", {{"user", a}}) == Code::kInvalidRequest);
  REQUIRE(c.User(a).at("msg_count") == 1);
}

TEST_CASE("post: fans get the post in their home timeline in every feed mode") {
  std::string feed = GENERATE("push", "pull", "hybrid");
  Cluster c(ClusterOptions{4, feed});
  int64_t a = c.AddUser("alice"), b = c.AddUser("bob"), d = c.AddUser("dora");
  c.Follow(b, a);
  int64_t p = c.Post(a, "hello fans");
  REQUIRE(c.TimelineIds(b) == std::vector<int64_t>{p});
  REQUIRE(c.TimelineIds(a) == std::vector<int64_t>{p});
  REQUIRE(c.TimelineIds(d).empty());
  REQUIRE(c.Fsck().at("ok") == true);
  if (feed != "pull") {
    RawDb db(c.ShardPath(static_cast<int>(b % 4)));
    REQUIRE(db.Int("SELECT count(*) FROM msg_index WHERE user_id = 2") == 1);
  }
}

TEST_CASE("post in push mode: one inbox row per follower across every shard") {
  Cluster c(ClusterOptions{4, "push"});
  int64_t author = c.AddUser("star");
  for (int i = 2; i <= 13; ++i) c.Follow(c.AddUser("fan" + std::to_string(i)), author);
  int64_t p = c.Post(author, "to everyone");
  int64_t rows = 0;
  for (int s = 0; s < 4; ++s)
    rows += RawDb(c.ShardPath(s))
                .Int("SELECT count(*) FROM msg_index WHERE msg_id = " + std::to_string(p));
  REQUIRE(rows == 13);  // 12 fans and the author
  for (int64_t fan = 2; fan <= 13; ++fan) REQUIRE(c.TimelineIds(fan) == std::vector<int64_t>{p});
}

}  // namespace
}  // namespace weibo
