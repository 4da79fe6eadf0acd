// flows/search.cc and tables/search_index.cc: the search index fed through the outbox
// (SPEC §7): trigram substrings in Chinese and English, FTS5 syntax as plain text, author
// and time bounds, the timeline's cursor, edits and deletes, --async and the drain, fsck
// and --rebuild.
#include <algorithm>

#include "storage/shard_set.h"
#include "tables/outbox.h"
#include "tables/search_index.h"
#include "test_support.h"

namespace weibo {
namespace {

using test::Cluster;
using test::IdsOf;

std::vector<int64_t> Found(Cluster& c, const std::string& query, Json extra = Json::object()) {
  extra["query"] = query;
  return IdsOf(c.Run("search", extra));
}

TEST_CASE("search: TrigramQuery quotes every trigram, Contains folds ASCII case only") {
  REQUIRE(TrigramQuery("abcd") == R"("abc" AND "bcd")");
  REQUIRE(TrigramQuery(R"(a"b)") == R"("a""b")");
  REQUIRE(TrigramQuery("天气很好") == R"("天气很" AND "气很好")");
  REQUIRE(TrigramQuery("NEAR") == R"("NEA" AND "EAR")");
  REQUIRE(CodePoints("天气a") == 3);
  REQUIRE(Contains("Hello World", "o wOR"));
  REQUIRE_FALSE(Contains("Hello", "hellO!"));
  REQUIRE(Contains("今天天气很好", "天气很"));
  REQUIRE_FALSE(Contains("天气", "天气很"));
}

TEST_CASE("search: any substring of 3 or more characters, Chinese and English, newest first") {
  Cluster c;
  int64_t a = c.AddUser("alice"), b = c.AddUser("bob");
  int64_t m1 = c.Post(a, "今天天气很好 hello world");
  c.SetNow(test::kNow + 1000);
  int64_t m2 = c.Post(b, "天气预报说明天下雨");
  c.SetNow(test::kNow + 2000);
  int64_t m3 = c.Comment(b, m1, "天气很热, HELLO again");
  c.SetNow(test::kNow + 3000);
  int64_t r = c.Repost(a, m2);  // no text: nothing to index
  REQUIRE(Found(c, "天气很") == std::vector<int64_t>{m3, m1});
  REQUIRE(Found(c, "天气预报说明天") == std::vector<int64_t>{m2});
  REQUIRE(Found(c, "hello") == std::vector<int64_t>{m3, m1});  // ASCII case is folded
  REQUIRE(Found(c, "lo wor") == std::vector<int64_t>{m1});
  REQUIRE(Found(c, "not there").empty());
  REQUIRE(IdsOf(c.Run("search", {{"author", b}})) == std::vector<int64_t>{m3, m2});
  REQUIRE(IdsOf(c.Run("search", {{"author", a}})) == std::vector<int64_t>{r, m1});
  REQUIRE(Found(c, "天气很", {{"author", "@alice"}}) == std::vector<int64_t>{m1});
}

TEST_CASE("search: FTS5 syntax is text, short queries are refused") {
  Cluster c;
  int64_t a = c.AddUser("alice");
  int64_t q = c.Post(a, R"(say "hi" NEAR x-y:z *star* a OR b)");
  int64_t p = c.Post(a, "plain hi NEAR here");
  for (const char* text : {R"("hi")", "NEAR", "x-y:z", "*star*", "a OR b", R"(" NEAR)", "(xy"})
    REQUIRE(Found(c, text) == (std::string(text) == "NEAR"  ? std::vector<int64_t>{p, q}
                               : std::string(text) == "(xy" ? std::vector<int64_t>{}
                                                            : std::vector<int64_t>{q}));
  REQUIRE(c.CodeOf("search", {{"query", "hi"}}) == Code::kInvalidArgument);
  REQUIRE(c.CodeOf("search", {{"query", "天气"}}) == Code::kInvalidArgument);
  REQUIRE(c.CodeOf("search", Json::object()) == Code::kInvalidArgument);
  REQUIRE(c.CodeOf("search", {{"query", "bad \xff utf8"}}) == Code::kInvalidUtf8);
  REQUIRE(c.CodeOf("search", {{"query", "abc"}, {"since", "yesterday"}}) == Code::kInvalidArgument);
  REQUIRE(c.CodeOf("search", {{"query", "abc"}, {"author", "@nobody"}}) == Code::kNotFound);
}

TEST_CASE("search: time bounds and the --max-id cursor page with no gaps or repeats") {
  Cluster c;
  int64_t a = c.AddUser("alice"), b = c.AddUser("bob");
  std::vector<int64_t> posted;
  for (int i = 0; i < 9; ++i) {
    c.SetNow(test::kNow + i * 1000);
    posted.push_back(c.Post(i % 2 ? a : b, "post number " + std::to_string(i)));
  }
  std::vector<int64_t> all;
  Json args{{"query", "number"}, {"count", 2}};
  for (;;) {
    auto page = IdsOf(c.Run("search", args));
    all.insert(all.end(), page.begin(), page.end());
    if (page.size() < 2) break;
    args["max_id"] = std::to_string(page.back());
  }
  REQUIRE(all == std::vector<int64_t>(posted.rbegin(), posted.rend()));
  // since is inclusive, until exclusive: 1700000002 to 1700000005 holds posts 2, 3 and 4.
  REQUIRE(Found(c, "number", {{"since", "1700000002"}, {"until", "2023-11-14T22:13:25Z"}}) ==
          std::vector<int64_t>{posted[4], posted[3], posted[2]});
}

TEST_CASE("search: a message indexed out of id order keeps newest first (docids renumbered)") {
  Cluster c;
  // Users 1 and 5 share shard 1 of 4 (and not their gene): alternate clocks put each of
  // user 1's posts below user 5's earlier ones, between ids already indexed.
  for (const char* name : {"u1", "u2", "u3", "u4", "u5"}) c.AddUser(name);
  const int64_t a = 1, f = 5;
  std::vector<int64_t> ids;
  for (int i = 0; i < 6; ++i) {
    c.SetNow(test::kNow + (i % 2 ? 100000 - i * 1000 : i * 1000));
    ids.push_back(c.Post(i % 2 ? f : a, "ordered text " + std::to_string(i)));
  }
  std::vector<int64_t> want = ids;
  std::sort(want.rbegin(), want.rend());
  REQUIRE(Found(c, "ordered") == want);
  REQUIRE(c.Fsck().at("ok") == true);
}

TEST_CASE("search: edits and deletes reach the index, an old text is never shown") {
  Cluster c;
  int64_t a = c.AddUser("alice");
  int64_t m = c.Post(a, "the old wording");
  c.Run("edit", {{"user", a}, {"msg", std::to_string(m)}, {"content", "the new phrasing"}});
  REQUIRE(Found(c, "old wording").empty());
  REQUIRE(Found(c, "new phras") == std::vector<int64_t>{m});
  c.Delete(a, m);
  REQUIRE(Found(c, "new phras").empty());
  REQUIRE(c.Fsck().at("ok") == true);
}

TEST_CASE("search: --async leaves the index behind, the drain catches up, re-check hides lag") {
  Cluster c;
  int64_t a = c.AddUser("alice");
  int64_t m = c.Post(a, "indexed at once");
  c.SetDrain(false);
  int64_t late = c.Post(a, "indexed later");
  c.Run("edit", {{"user", a}, {"msg", std::to_string(m)}, {"content", "changed meanwhile"}});
  REQUIRE(Found(c, "indexed").empty());  // the late post is not in yet; m's old text hides
  REQUIRE(Found(c, "changed").empty());
  c.Run("drain");
  REQUIRE(Found(c, "indexed") == std::vector<int64_t>{late});
  REQUIRE(Found(c, "changed") == std::vector<int64_t>{m});
}

TEST_CASE("search: a server holds index jobs back and applies them before it searches") {
  test::ClusterOptions options;
  options.group_commit = 1000;  // a server's executor (GroupCommit::defer_merged)
  Cluster c(options);
  int64_t a = c.AddUser("alice");
  int64_t m = c.Post(a, "held back together");
  int64_t n = c.Post(a, "held back as well");
  auto pending = [&] {
    ShardSet set(c.dir(), nullptr);
    return CountJobs(set.At(static_cast<int>(a % options.shards)), 0);
  };
  REQUIRE(pending() == 2);  // both posts' search_index jobs, nothing else (no fans)
  // Another process sharing the directory does not see them yet...
  EmbeddedOptions other;
  other.data_dir = c.dir();
  other.now_ms = test::kNow;
  Result<Json> elsewhere =
      OpenEmbedded(other)->Execute(Request{"search", Json{{"query", "held back"}}});
  REQUIRE(elsewhere.ok());
  CHECK(elsewhere.value().empty());
  // ...the server's own search applies them first, in one batch.
  CHECK(Found(c, "held back") == std::vector<int64_t>{n, m});
  CHECK(pending() == 0);
  // And the server applies them whenever it is idle: then every process finds them.
  int64_t k = c.Post(a, "held back until idle");
  REQUIRE(pending() == 1);
  c.executor().Idle();
  CHECK(pending() == 0);
  Result<Json> after_idle =
      OpenEmbedded(other)->Execute(Request{"search", Json{{"query", "until idle"}}});
  REQUIRE(after_idle.ok());
  CHECK(IdsOf(after_idle.value()) == std::vector<int64_t>{k});
  Json report = c.Fsck();
  INFO(report.dump());
  CHECK(report.at("ok") == true);
}

TEST_CASE("search: fsck finds a stale index and --repair, like --rebuild, rebuilds it") {
  Cluster c;
  int64_t a = c.AddUser("alice");
  int64_t m = c.Post(a, "something to find");
  int64_t n = c.Post(a, "another thing");
  std::string search = c.dir() + "/" + SearchFileName(static_cast<int>(m % c.shards()), 4);
  {
    test::RawDb db(search);
    const std::string id = std::to_string(m);
    db.Exec("DELETE FROM msg_fts WHERE rowid = (SELECT docid FROM doc WHERE msg_id = " + id + ")");
    db.Exec("DELETE FROM doc WHERE msg_id = " + id);
    db.Exec("INSERT INTO doc(msg_id, docid) VALUES (7, 1000)");
    db.Exec("INSERT INTO msg_fts(rowid, content, user_id) VALUES (1000, 'a ghost row', 1)");
  }
  c.Reopen();
  REQUIRE(Found(c, "something").empty());
  REQUIRE(Found(c, "ghost").empty());  // no msg_info row behind it: never shown
  Json report = c.Fsck();
  REQUIRE(report.at("ok") == false);
  REQUIRE(report.at("violations")[0].at("check") == "search");
  Json repair = c.Fsck(true);
  REQUIRE(repair.at("violations")[0].at("repaired") == true);
  REQUIRE(repair.at("ok") == true);
  REQUIRE(c.Fsck().at("ok") == true);
  REQUIRE(Found(c, "something") == std::vector<int64_t>{m});
  {
    test::RawDb db(search);
    db.Exec("DELETE FROM msg_fts");
    db.Exec("DELETE FROM doc");
  }
  c.Reopen();
  Json rebuilt = c.Run("search", {{"rebuild", true}});
  REQUIRE(rebuilt.at("indexed") == 2);
  REQUIRE(Found(c, "thing") == std::vector<int64_t>{n, m});
}

}  // namespace
}  // namespace weibo
