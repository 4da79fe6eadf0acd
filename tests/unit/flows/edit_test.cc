// flows/edit.cc: the author edits an original or a repost (seed 003's update): the text in
// place, edited and edits in every view, the old text in msg_history, and the refusals.
#include "test_support.h"

namespace weibo {
namespace {

using test::Cluster;
using test::IdOf;

Json EditArgs(int64_t user, int64_t msg, const std::string& text) {
  return Json{{"user", user}, {"msg", std::to_string(msg)}, {"content", text}};
}

TEST_CASE("edit: new text, edited time and count, the old text in the history") {
  Cluster c;
  int64_t a = c.AddUser("alice"), b = c.AddUser("bob");
  c.Follow(b, a);
  int64_t m = c.Post(a, "first text");
  REQUIRE_FALSE(c.Run("show", {{"msg", std::to_string(m)}}).contains("edited"));
  c.SetNow(test::kNow + 60000);
  Json e = c.Run("edit", EditArgs(a, m, "second text"));
  REQUIRE(e.at("content") == "second text");
  REQUIRE(e.at("edits") == 1);
  REQUIRE(e.at("edited") == "2023-11-14T22:14:20Z");
  REQUIRE(e.at("time") == "2023-11-14T22:13:20Z");  // the post keeps its time and id
  c.SetNow(test::kNow + 120000);
  c.Run("edit", EditArgs(a, m, "third text"));
  // Timelines hold ids: the follower sees the new text at once.
  Json home = c.Timeline(b);
  REQUIRE(home.size() == 1);
  REQUIRE(home[0].at("content") == "third text");
  REQUIRE(home[0].at("edits") == 2);
  Json shown = c.Run("show", {{"msg", std::to_string(m)}, {"history", true}});
  REQUIRE(shown.at("history") == Json::parse(R"([
    {"version":1,"content":"first text","time":"2023-11-14T22:13:20Z"},
    {"version":2,"content":"second text","time":"2023-11-14T22:14:20Z"}])"));
  // The same text again is no edit.
  REQUIRE(c.Run("edit", EditArgs(a, m, "third text")).at("edits") == 2);
  REQUIRE(c.Fsck().at("ok") == true);
}

TEST_CASE("edit: a repost's text, a repost shows its edited root's new text") {
  Cluster c;
  int64_t a = c.AddUser("alice"), b = c.AddUser("bob");
  int64_t m = c.Post(a, "original");
  int64_t r = c.Repost(b, m, "look");
  REQUIRE(c.Run("edit", EditArgs(b, r, "look at this")).at("content") == "look at this");
  c.Run("edit", EditArgs(a, m, "original, edited"));
  Json shown = c.Run("show", {{"msg", std::to_string(r)}});
  REQUIRE(shown.at("root").at("content") == "original, edited");
  REQUIRE(shown.at("root").at("edits") == 1);
}

TEST_CASE("edit: refusals change nothing") {
  Cluster c;
  int64_t a = c.AddUser("alice"), b = c.AddUser("bob");
  int64_t m = c.Post(a, "mine");
  int64_t k = c.Comment(b, m, "a comment");
  auto unchanged = [&] {
    Json shown = c.Run("show", {{"msg", std::to_string(m)}, {"history", true}});
    REQUIRE(shown.at("content") == "mine");
    REQUIRE(shown.at("history").empty());
  };
  REQUIRE(c.CodeOf("edit", EditArgs(b, m, "not yours")) == Code::kForbidden);
  unchanged();
  REQUIRE(c.CodeOf("edit", EditArgs(b, k, "edited comment")) == Code::kForbidden);
  REQUIRE(c.Run("show", {{"msg", std::to_string(k)}}).at("content") == "a comment");
  REQUIRE(c.CodeOf("edit", EditArgs(a, m, std::string(141, 'x'))) == Code::kContentTooLong);
  REQUIRE(c.CodeOf("edit", EditArgs(a, m, "bad \xff utf8")) == Code::kInvalidUtf8);
  REQUIRE(c.CodeOf("edit", EditArgs(a, m, "   ")) == Code::kInvalidArgument);
  unchanged();
  REQUIRE(c.Run("edit", EditArgs(a, m, std::string(140, 'y'))).at("edits") == 1);
  c.Delete(a, m);
  REQUIRE(c.CodeOf("edit", EditArgs(a, m, "gone")) == Code::kNotFound);
  REQUIRE(c.CodeOf("edit", EditArgs(a, 12345, "never was")) == Code::kNotFound);
  REQUIRE(c.Fsck().at("ok") == true);
}

TEST_CASE("edit: deleting a message deletes its history") {
  Cluster c;
  int64_t a = c.AddUser("alice");
  int64_t m = c.Post(a, "one");
  c.Run("edit", EditArgs(a, m, "two"));
  c.Delete(a, m);
  test::RawDb db(c.ShardPath(static_cast<int>(m % c.shards())));
  REQUIRE(db.Int("SELECT count(*) FROM msg_history") == 0);
}

}  // namespace
}  // namespace weibo
