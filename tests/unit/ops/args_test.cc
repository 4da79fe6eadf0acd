// ops/args.cc: validation of untrusted arguments at the edge (SPEC §10: limits count
// Unicode code points; invalid UTF-8, control characters and empty content are refused).
#include "ops/args.h"

#include "test_support.h"

namespace weibo {
namespace {

using test::FailureCode;

const OpSpec& Op(const char* name) {
  const OpSpec* op = FindOperation(name);
  REQUIRE(op != nullptr);
  return *op;
}

Code CodeOf(const char* op, const Json& args) {
  return FailureCode([&] { ValidateArgs(Op(op), args); });
}

std::string Repeat(const std::string& s, int n) {
  std::string out;
  for (int i = 0; i < n; ++i) out += s;
  return out;
}

TEST_CASE("operation table: every core op of SPEC §11 is listed once with its arguments") {
  for (const char* name :
       {"user_add", "user_show", "user_list", "follow", "unfollow", "post", "repost", "comment",
        "delete", "timeline", "show", "comments", "reposts", "count", "init", "fsck"}) {
    INFO(name);
    const OpSpec* op = FindOperation(name);
    REQUIRE(op != nullptr);
    REQUIRE(std::string(op->summary).size() > 0);
  }
  REQUIRE(FindOperation("nope") == nullptr);
  REQUIRE(Op("post").writes);
  REQUIRE_FALSE(Op("timeline").writes);
  std::vector<std::string> names;
  for (const auto& a : Op("timeline").args) names.push_back(a.name);
  // In the order weibo-timeline --help lists its options.
  REQUIRE(names ==
          std::vector<std::string>{"user", "posts", "count", "max_id", "since_id", "page"});
}

TEST_CASE("CountCodePoints: code points of valid UTF-8, -1 for invalid bytes") {
  REQUIRE(CountCodePoints("") == 0);
  REQUIRE(CountCodePoints("abc") == 3);
  REQUIRE(CountCodePoints("微博") == 2);
  REQUIRE(CountCodePoints("😀x") == 2);
  REQUIRE(CountCodePoints("\xff") == -1);
  REQUIRE(CountCodePoints("\xc0\xaf") == -1);          // overlong '/'
  REQUIRE(CountCodePoints("\xed\xa0\x80") == -1);      // a surrogate
  REQUIRE(CountCodePoints("\xf4\x90\x80\x80") == -1);  // above U+10FFFF
  REQUIRE(CountCodePoints("\xe5\xbe") == -1);          // truncated
}

TEST_CASE("content: 140 code points pass, 141 are content_too_long, whatever the bytes") {
  Json ok = ValidateArgs(Op("post"), {{"user", 1}, {"content", Repeat("微", 140)}});
  REQUIRE(ok.at("content") == Repeat("微", 140));
  REQUIRE(CodeOf("post", {{"user", 1}, {"content", Repeat("微", 141)}}) == Code::kContentTooLong);
  REQUIRE(CodeOf("post", {{"user", 1}, {"content", Repeat("a", 141)}}) == Code::kContentTooLong);
  ValidateArgs(Op("post"), {{"user", 1}, {"content", Repeat("😀", 140)}});
  ValidateArgs(Op("comment"), {{"user", 1}, {"msg", 5}, {"content", Repeat("a", 140)}});
  REQUIRE(CodeOf("comment", {{"user", 1}, {"msg", 5}, {"content", Repeat("a", 141)}}) ==
          Code::kContentTooLong);
}

TEST_CASE("content: invalid UTF-8 is invalid_utf8") {
  REQUIRE(CodeOf("post", {{"user", 1}, {"content", std::string("ab\xff")}}) == Code::kInvalidUtf8);
  REQUIRE(CodeOf("post", {{"user", 1}, {"content", std::string("\xed\xa0\x80")}}) ==
          Code::kInvalidUtf8);
}

TEST_CASE("content: empty, blank and control characters are refused") {
  REQUIRE(CodeOf("post", {{"user", 1}, {"content", ""}}) == Code::kInvalidArgument);
  REQUIRE(CodeOf("post", {{"user", 1}, {"content", "   "}}) == Code::kInvalidArgument);
  REQUIRE(CodeOf("post", {{"user", 1}, {"content", "\xe3\x80\x80"}}) == Code::kInvalidArgument);
  for (const char* bad : {"a\x01"
                          "b",
                          "tab\there", "new\nline", "del\x7f", "c1\xc2\x85"}) {
    INFO(bad);
    // status.h files control characters under invalid_utf8, args.cc under
    // invalid_argument; SPEC §10 only says they are refused.
    Code code = CodeOf("post", {{"user", 1}, {"content", bad}});
    REQUIRE((code == Code::kInvalidArgument || code == Code::kInvalidUtf8));
  }
  REQUIRE(CodeOf("post", {{"user", 1}, {"content", 5}}) == Code::kInvalidArgument);
  // A repost's text is optional, and may be empty.
  ValidateArgs(Op("repost"), {{"user", 1}, {"msg", 5}});
  ValidateArgs(Op("repost"), {{"user", 1}, {"msg", 5}, {"content", ""}});
  REQUIRE(CodeOf("repost", {{"user", 1}, {"msg", 5}, {"content", " "}}) == Code::kInvalidArgument);
}

TEST_CASE("names: 1 to 20 code points, no spaces, no '@'") {
  ValidateArgs(Op("user_add"), {{"name", "a"}});
  ValidateArgs(Op("user_add"), {{"name", Repeat("名", 20)}});
  REQUIRE(CodeOf("user_add", {{"name", Repeat("名", 21)}}) == Code::kInvalidArgument);
  REQUIRE(CodeOf("user_add", {{"name", ""}}) == Code::kInvalidArgument);
  REQUIRE(CodeOf("user_add", {{"name", "a b"}}) == Code::kInvalidArgument);
  REQUIRE(CodeOf("user_add", {{"name", "a@b"}}) == Code::kInvalidArgument);
  REQUIRE(CodeOf("user_add", {{"name", "\xe3\x80\x80x"}}) == Code::kInvalidArgument);
  REQUIRE(CodeOf("user_add", {{"name", std::string("\xff")}}) == Code::kInvalidUtf8);
  REQUIRE(CodeOf("user_add", {{"name", 7}}) == Code::kInvalidArgument);
}

TEST_CASE("users: a positive 32-bit id (number or digits) or @name") {
  REQUIRE(ValidateArgs(Op("user_show"), {{"user", "42"}}).at("user") == 42);
  REQUIRE(ValidateArgs(Op("user_show"), {{"user", 42}}).at("user") == 42);
  REQUIRE(ValidateArgs(Op("user_show"), {{"user", "4294967295"}}).at("user") == 4294967295LL);
  REQUIRE(ValidateArgs(Op("user_show"), {{"user", "@alice"}}).at("user") == "@alice");
  for (const Json& bad :
       {Json("0"), Json(0), Json(-1), Json("-1"), Json("4294967296"), Json("abc"), Json("1.5"),
        Json(1.5), Json(""), Json("@"), Json("@a b"), Json(true), Json(" 1")}) {
    INFO(bad.dump());
    REQUIRE(CodeOf("user_show", {{"user", bad}}) == Code::kInvalidArgument);
  }
}

TEST_CASE("message ids: positive 63-bit decimal ids, as numbers or strings") {
  REQUIRE(ValidateArgs(Op("show"), {{"msg", "9223372036854775807"}}).at("msg") ==
          9223372036854775807LL);
  REQUIRE(ValidateArgs(Op("show"), {{"msg", 7}}).at("msg") == 7);
  for (const Json& bad : {Json("9223372036854775808"), Json("0"), Json(-3), Json("x1"),
                          Json("99999999999999999999"), Json::array({1})}) {
    INFO(bad.dump());
    REQUIRE(CodeOf("show", {{"msg", bad}}) == Code::kInvalidArgument);
  }
  REQUIRE(ValidateArgs(Op("count"), {{"msgs", Json::array({"1", 2})}}).at("msgs") ==
          Json::array({1, 2}));
  REQUIRE(CodeOf("count", {{"msgs", Json::array()}}) == Code::kInvalidArgument);
  REQUIRE(CodeOf("count", {{"msgs", "1"}}) == Code::kInvalidArgument);
  REQUIRE(CodeOf("count", {{"msgs", Json::array({"1", "x"})}}) == Code::kInvalidArgument);
  Json many = Json::array();
  for (int i = 1; i <= 200; ++i) many.push_back(i);
  ValidateArgs(Op("count"), {{"msgs", many}});
  many.push_back(201);
  REQUIRE(CodeOf("count", {{"msgs", many}}) == Code::kInvalidArgument);
}

TEST_CASE("count and page: count 1..200, page 0 and up") {
  ValidateArgs(Op("timeline"), {{"user", 1}, {"count", 1}});
  ValidateArgs(Op("timeline"), {{"user", 1}, {"count", "200"}});
  REQUIRE(CodeOf("timeline", {{"user", 1}, {"count", 0}}) == Code::kInvalidArgument);
  REQUIRE(CodeOf("timeline", {{"user", 1}, {"count", 201}}) == Code::kInvalidArgument);
  REQUIRE(CodeOf("timeline", {{"user", 1}, {"count", "ten"}}) == Code::kInvalidArgument);
  ValidateArgs(Op("timeline"), {{"user", 1}, {"page", 0}});
  REQUIRE(CodeOf("timeline", {{"user", 1}, {"page", -1}}) == Code::kInvalidArgument);
  REQUIRE(CodeOf("timeline", {{"user", 1}, {"posts", "yes"}}) == Code::kInvalidArgument);
  ValidateArgs(Op("timeline"), {{"user", 1}, {"posts", true}});
}

TEST_CASE("requests: missing, unknown and non-object arguments are invalid_request") {
  REQUIRE(CodeOf("post", {{"user", 1}}) == Code::kInvalidRequest);
  REQUIRE(CodeOf("post", {{"user", 1}, {"content", nullptr}}) == Code::kInvalidRequest);
  REQUIRE(CodeOf("post", {{"user", 1}, {"content", "x"}, {"colour", "red"}}) ==
          Code::kInvalidRequest);
  REQUIRE(CodeOf("post", Json::array()) == Code::kInvalidRequest);
  REQUIRE(CodeOf("user_list", {{"x", 1}}) == Code::kInvalidRequest);
  // Optional arguments given as null are left out.
  Json out = ValidateArgs(Op("timeline"), {{"user", 1}, {"count", nullptr}});
  REQUIRE_FALSE(out.contains("count"));
}

}  // namespace
}  // namespace weibo
