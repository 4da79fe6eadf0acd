// flows/entities.cc, find.cc and cleaner.cc: messages' attributes as entities, the
// declared indexes, reads that re-check the entity and drop stale hits, and the cleaner —
// its repairs, its backfill of a new index and its resumption after a stop.
#include <map>

#include "tables/entity.h"
#include "test_support.h"

namespace weibo {
namespace {

using test::Cluster;
using test::IdOf;
using test::IdsOf;
using test::RawDb;

Json PostArgs(int64_t user, const std::string& text, Json attrs) {
  return {{"user", user}, {"content", text}, {"attrs", std::move(attrs)}};
}

std::vector<int64_t> Found(Cluster& c, const std::string& query, int count = 20) {
  return IdsOf(c.Run("find", {{"query", query}, {"count", count}}));
}

// Rows of index_<name> across every shard.
int64_t IndexRows(Cluster& c, const std::string& name) {
  int64_t n = 0;
  for (int i = 0; i < c.shards(); ++i)
    n += RawDb(c.ShardPath(i)).Int("SELECT count(*) FROM index_" + name);
  return n;
}

TEST_CASE("entities: weibo-index add, list and drop, and bad names change nothing") {
  Cluster c;
  Json added = c.Run("index_add", {{"name", "link"}, {"property", "link"}});
  REQUIRE(added == Json{{"name", "link"}, {"property", "link"}, {"shard_on", "link"}});
  c.Run("index_add", {{"name", "by_title"}, {"property", "title"}, {"shard_on", "link"}});
  REQUIRE(c.Run("index_list").size() == 2);
  for (int i = 0; i < c.shards(); ++i)
    REQUIRE(RawDb(c.ShardPath(i)).Int("SELECT count(*) FROM index_by_title") == 0);
  const std::string before = test::DumpCluster(c.dir(), c.shards());
  REQUIRE(c.CodeOf("index_add", {{"name", "link"}, {"property", "url"}}) ==
          Code::kInvalidArgument);  // collides
  for (const char* bad : {"Link", "1link", "li-nk", "", "a b", "index;drop"})
    REQUIRE(c.CodeOf("index_add", {{"name", bad}, {"property", "link"}}) == Code::kInvalidArgument);
  REQUIRE(c.CodeOf("index_add", {{"name", "t"}, {"property", "ti tle"}}) == Code::kInvalidArgument);
  REQUIRE(c.CodeOf("index_add", {{"name", "t"}, {"property", "title"}, {"shard_on", "A"}}) ==
          Code::kInvalidArgument);
  REQUIRE(test::DumpCluster(c.dir(), c.shards()) == before);
  REQUIRE(c.Run("index_list").size() == 2);
  c.Run("index_drop", {{"name", "by_title"}});
  REQUIRE(c.Run("index_list").size() == 1);
  REQUIRE(c.CodeOf("index_drop", {{"name", "by_title"}}) == Code::kNotFound);
}

TEST_CASE("entities: posts carry attributes, found newest first, a deleted one never shows") {
  Cluster c;
  c.Run("index_add", {{"name", "link"}, {"property", "link"}});
  // Sharded on the author's attribute: rows of one title live on every shard.
  c.Run("index_add", {{"name", "title"}, {"property", "title"}, {"shard_on", "feed"}});
  int64_t a = c.AddUser("alice"), b = c.AddUser("bob"), d = c.AddUser("dave");
  Json p1 = c.Run("post", PostArgs(a, "one", {"link=https://x.test/1", "title=hello", "feed=f1"}));
  REQUIRE(p1.at("attrs") == Json{{"link", "https://x.test/1"}, {"title", "hello"}, {"feed", "f1"}});
  int64_t m1 = IdOf(p1);
  int64_t m2 = IdOf(c.Run("post", PostArgs(b, "two", {"link=https://x.test/1", "feed=f2"})));
  int64_t m3 = c.Comment(d, m1, "plain");  // no attributes: no entity
  REQUIRE_FALSE(c.Run("show", {{"msg", std::to_string(m3)}}).contains("attrs"));
  int64_t m4 = IdOf(c.Run("comment", {{"user", d},
                                      {"msg", std::to_string(m2)},
                                      {"content", "re"},
                                      {"attrs", {"title=hello", "feed=f3"}}}));
  int64_t m5 = IdOf(c.Run(
      "repost", {{"user", a}, {"msg", std::to_string(m2)}, {"attrs", {"link=https://x.test/1"}}}));
  REQUIRE(Found(c, "link=https://x.test/1") == std::vector<int64_t>{m5, m2, m1});
  REQUIRE(Found(c, "link=https://x.test/1", 2) == std::vector<int64_t>{m5, m2});
  REQUIRE(Found(c, "title=hello") == std::vector<int64_t>{m4, m1});
  REQUIRE(Found(c, "link=https://x.test/2").empty());
  REQUIRE(c.Timeline(a, {{"posts", true}}).at(0).at("attrs").at("link") == "https://x.test/1");
  c.Delete(b, m2);
  REQUIRE(Found(c, "link=https://x.test/1") == std::vector<int64_t>{m5, m1});
  REQUIRE(c.Fsck().at("ok") == true);  // the delete took its entity's rows with it
  REQUIRE(c.CodeOf("find", {{"query", "feed=f1"}}) == Code::kInvalidArgument);  // no index
  REQUIRE(c.CodeOf("find", {{"query", "link"}}) == Code::kInvalidArgument);
}

TEST_CASE("entities: a timeline page shows every post's attributes, read with its rows") {
  // A page's rows come with the entities of the page's id range on each shard, up to 64 of
  // them (tables/msg_page.cc); past that, the rest are looked up one by one. Both paths:
  // 100 posts of one author (one shard, by the gene method), 70 of them with attributes.
  Cluster c;
  int64_t a = c.AddUser("alice"), b = c.AddUser("bob");
  c.Run("follow", {{"user", a}, {"target", b}});
  std::map<std::string, std::string> expected;  // message id -> its link, "" for none
  for (int i = 0; i < 100; ++i) {
    const bool with = i % 10 < 7;
    const std::string link = "https://x.test/" + std::to_string(i);
    Json p = with ? c.Run("post", PostArgs(b, "p" + std::to_string(i), {"link=" + link}))
                  : c.Run("post", {{"user", b}, {"content", "p" + std::to_string(i)}});
    expected[p.at("id").get<std::string>()] = with ? link : "";
  }
  for (int count : {20, 100}) {
    INFO("count " << count);
    Json page = c.Timeline(a, {{"count", count}});
    REQUIRE(page.size() == static_cast<size_t>(count));
    for (const Json& item : page) {
      const std::string& link = expected.at(item.at("id").get<std::string>());
      INFO(item.at("id"));
      if (link.empty())
        REQUIRE_FALSE(item.contains("attrs"));
      else
        REQUIRE(item.at("attrs") == Json{{"link", link}});
    }
  }
}

TEST_CASE("entities: bad --attr is refused and changes nothing") {
  Cluster c;
  int64_t a = c.AddUser("alice");
  c.Post(a, "first");
  const std::string before = test::DumpCluster(c.dir(), c.shards());
  for (const Json& attrs :
       {Json{"link"}, Json{"link=a", "link=b"}, Json{"Link=a"}, Json{"=a"}, Json{"a=b\tc"},
        Json{"t=" + std::string(70000, 'x')}, Json{"a=\xff"}, Json("link=a")}) {
    INFO(test::Shown(attrs));
    Code code = c.CodeOf("post", PostArgs(a, "refused", attrs));
    REQUIRE((code == Code::kInvalidArgument || code == Code::kInvalidUtf8));
  }
  REQUIRE(test::DumpCluster(c.dir(), c.shards()) == before);
}

TEST_CASE("entities: a read re-checks the entity and drops a stale hit, fsck and cleaner fix it") {
  Cluster c;
  c.Run("index_add", {{"name", "link"}, {"property", "link"}});
  int64_t a = c.AddUser("alice");
  int64_t m1 = IdOf(c.Run("post", PostArgs(a, "one", {"link=L1"})));
  int64_t m2 = IdOf(c.Run("post", PostArgs(a, "two", {"link=L2"})));
  // A stale row: the index says m2 has L1, its entity says L2 (a change whose removal of
  // the old row was lost, as after a crash).
  const int l1_shard = EntityValueShard("L1", c.shards());
  RawDb(c.ShardPath(l1_shard))
      .Exec("INSERT INTO index_link VALUES ('L1', x'" + EntityIdHex(MessageEntityId(m2)) + "')");
  REQUIRE(IndexRows(c, "link") == 3);
  REQUIRE(Found(c, "link=L1") == std::vector<int64_t>{m1});
  // A missing row: m1's row of L1 is gone, so the index cannot find it yet.
  const int l2_shard = EntityValueShard("L2", c.shards());
  RawDb(c.ShardPath(l2_shard)).Exec("DELETE FROM index_link WHERE value = 'L2'");
  REQUIRE(Found(c, "link=L2").empty());
  Json report = c.Fsck();
  REQUIRE(report.at("ok") == false);
  REQUIRE(test::ViolationChecks(report) == std::vector<std::string>{"indexes", "indexes"});
  Json cleaned = c.Run("cleaner");
  REQUIRE(cleaned.at("missing_added") == 1);
  REQUIRE(cleaned.at("stale_removed") == 1);
  REQUIRE(cleaned.at("complete") == true);
  REQUIRE(Found(c, "link=L2") == std::vector<int64_t>{m2});
  REQUIRE(IndexRows(c, "link") == 2);
  REQUIRE(c.Fsck().at("ok") == true);
  // fsck --repair mends the same drift.
  RawDb(c.ShardPath(l2_shard)).Exec("DELETE FROM index_link WHERE value = 'L2'");
  REQUIRE(c.Fsck(true).at("violations").size() == 1);
  REQUIRE(c.Fsck().at("ok") == true);
}

TEST_CASE("entities: the cleaner backfills a new index in batches and resumes where it stopped") {
  Cluster c;
  int64_t a = c.AddUser("alice");
  std::vector<int64_t> posts;
  for (int i = 0; i < 7; ++i)
    posts.insert(posts.begin(), IdOf(c.Run("post", PostArgs(a, "p", {"tag=t"}))));
  c.Run("index_add", {{"name", "tag"}, {"property", "tag"}});
  REQUIRE(Found(c, "tag=t").empty());  // written before the declaration: not indexed yet
  int64_t late = IdOf(c.Run("post", PostArgs(a, "late", {"tag=t"})));
  REQUIRE(Found(c, "tag=t") == std::vector<int64_t>{late});  // a write after it is
  // --batch 3: three entities of the walk, then a stop with the cursor saved.
  Json first = c.Run("cleaner", {{"index", "tag"}, {"batch", 3}});
  REQUIRE(first.at("complete") == false);
  REQUIRE(first.at("entities") == 3);
  int64_t saved = 0;
  for (int i = 0; i < c.shards(); ++i)
    saved += RawDb(c.ShardPath(i)).Int("SELECT count(*) FROM cleaner_progress");
  REQUIRE(saved == 1);
  // The newest first: the late post had its row; the next two were backfilled.
  REQUIRE(first.at("missing_added") == 2);
  REQUIRE(Found(c, "tag=t") == std::vector<int64_t>{late, posts[0], posts[1]});
  Json rest = c.Run("cleaner", {{"index", "tag"}, {"batch", 3}});
  REQUIRE(rest.at("missing_added") == 3);
  Json last = c.Run("cleaner", {{"index", "tag"}});
  REQUIRE(last.at("complete") == true);
  std::vector<int64_t> all{late};
  all.insert(all.end(), posts.begin(), posts.end());
  REQUIRE(Found(c, "tag=t") == all);
  // Each entity was examined once across the three runs before the walks finished.
  REQUIRE(first.at("entities").get<int>() + rest.at("entities").get<int>() +
              last.at("entities").get<int>() ==
          8);
  for (int i = 0; i < c.shards(); ++i)
    REQUIRE(RawDb(c.ShardPath(i)).Int("SELECT count(*) FROM cleaner_progress") == 0);
  REQUIRE(c.Run("cleaner").at("missing_added") == 0);
  REQUIRE(c.CodeOf("cleaner", {{"index", "nope"}}) == Code::kNotFound);
  REQUIRE(c.CodeOf("cleaner", {{"batch", 0}}) == Code::kInvalidArgument);
}

TEST_CASE("entities: a backfill past one chunk writes every row, grouped by target shard") {
  Cluster c;
  std::vector<int64_t> users;
  for (int u = 0; u < 4; ++u) users.push_back(c.AddUser("u" + std::to_string(u)));
  // 600 entities (more than two chunks of the walk) on four shards, their tags routing the
  // index rows to every shard.
  for (int i = 0; i < 600; ++i)
    c.Run("post", PostArgs(users[i % 4], "p", {"tag=t" + std::to_string(i % 10)}));
  c.Run("index_add", {{"name", "tag"}, {"property", "tag"}, {"shard_on", "tag"}});
  Json run = c.Run("cleaner", {{"index", "tag"}});
  REQUIRE(run.at("complete") == true);
  REQUIRE(run.at("missing_added") == 600);
  for (int t = 0; t < 10; ++t) REQUIRE(Found(c, "tag=t" + std::to_string(t), 100).size() == 60);
  REQUIRE(c.Fsck().at("ok") == true);
}

}  // namespace
}  // namespace weibo
