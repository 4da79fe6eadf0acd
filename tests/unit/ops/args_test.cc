// ops/args.cc: validation of untrusted arguments at the edge (SPEC §10: limits count
// Unicode code points; invalid UTF-8, control characters and empty content are refused).
#include "ops/args.h"

#include "test_support.h"

namespace weibo {
namespace {

using test::FailureCode;
using test::Shown;

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
       {"user_add", "user_show",   "user_list",   "follow",      "unfollow",     "post",
        "repost",   "comment",     "delete",      "timeline",    "show",         "comments",
        "reposts",  "count",       "init",        "fsck",        "like",         "unlike",
        "likes",    "notify_send", "notify_list", "notify_read", "notify_unread"}) {
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
  REQUIRE(names == std::vector<std::string>{"user", "posts", "count", "max_id", "since_id", "page",
                                            "unread"});
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

// Issue 11 (7): one name however it is typed; no invisible characters in names; no
// reordering controls in content.
TEST_CASE("names: kept in NFKC, format characters refused") {
  auto name = [](const std::string& n) {
    return ValidateArgs(Op("user_add"), {{"name", n}}).at("name").get<std::string>();
  };
  REQUIRE(name("alice") == "alice");
  REQUIRE(name("\xef\xbd\x81\xef\xbd\x8c\xef\xbd\x89\xef\xbd\x83\xef\xbd\x85") ==
          "alice");                          // ａｌｉｃｅ
  REQUIRE(name("e\xcc\x81") == "\xc3\xa9");  // NFD é -> NFC é
  REQUIRE(name("\xc3\xa9") == "\xc3\xa9");
  REQUIRE(name("\xe3\x8d\xbf") ==
          "\xe6\xa0\xaa\xe5\xbc\x8f\xe4\xbc\x9a\xe7\xa4\xbe");              // ㍿ -> 株式会社
  REQUIRE(name("Alice") == "Alice");                                        // case is kept
  REQUIRE(name("\xe5\xbe\xae\xe5\x8d\x9a") == "\xe5\xbe\xae\xe5\x8d\x9a");  // 微博
  // The limits hold for the stored form: ＠ is '@', and 6 ㍿ are 24 code points.
  REQUIRE(CodeOf("user_add", {{"name",
                               "a\xef\xbc\xa0"
                               "b"}}) == Code::kInvalidArgument);
  REQUIRE(CodeOf("user_add", {{"name", Repeat("\xe3\x8d\xbf", 6)}}) == Code::kInvalidArgument);
  for (const char* cf : {"\xe2\x80\xae", "\xe2\x80\x8b", "\xe2\x80\x8d", "\xef\xbb\xbf",
                         "\xe2\x81\xa6", "\xc2\xad"}) {  // RLO, ZWSP, ZWJ, BOM, LRI, SHY
    INFO(Shown(Json(cf)));
    REQUIRE(CodeOf("user_add", {{"name", std::string("ali") + cf + "ce"}}) ==
            Code::kInvalidArgument);
  }
  // A user named by @name is looked up by the same form.
  REQUIRE(ValidateArgs(Op("user_show"),
                       {{"user", "@\xef\xbd\x81\xef\xbd\x8c\xef\xbd\x89\xef\xbd\x83\xef\xbd\x85"}})
              .at("user") == "@alice");
  REQUIRE(CodeOf("user_show", {{"user",
                                "@ali\xe2\x80\xae"
                                "ce"}}) == Code::kInvalidArgument);
}

TEST_CASE("content: bidirectional controls refused, emoji joiners kept") {
  for (const char* bidi : {"\xe2\x80\xaa", "\xe2\x80\xab", "\xe2\x80\xac", "\xe2\x80\xad",
                           "\xe2\x80\xae", "\xe2\x81\xa6", "\xe2\x81\xa7", "\xe2\x81\xa8",
                           "\xe2\x81\xa9"}) {  // U+202A..U+202E, U+2066..U+2069
    INFO(Shown(Json(bidi)));
    REQUIRE(CodeOf("post", {{"user", 1}, {"content", std::string("pay ") + bidi + "100"}}) ==
            Code::kInvalidArgument);
  }
  // 👩‍💻 (woman, ZWJ, laptop) and a zero-width non-joiner stay as written.
  const std::string emoji = "\xf0\x9f\x91\xa9\xe2\x80\x8d\xf0\x9f\x92\xbb";
  REQUIRE(ValidateArgs(Op("post"), {{"user", 1}, {"content", emoji}}).at("content") == emoji);
  ValidateArgs(Op("post"), {{"user", 1},
                            {"content",
                             "a\xe2\x80\x8c"
                             "b"}});
  // Left-to-right and right-to-left marks (U+200E, U+200F) are not embeddings: allowed.
  ValidateArgs(Op("post"), {{"user", 1}, {"content", "\xd7\xa9\xe2\x80\x8f!"}});
}

TEST_CASE("init: each setting's message states the range its check holds") {
  auto message = [](const Json& args) {
    try {
      ValidateArgs(Op("init"), args);
    } catch (const Failure& f) {
      REQUIRE(f.status().code() == Code::kInvalidArgument);
      return f.status().message();
    }
    FAIL("accepted " << args.dump());
    return std::string();
  };
  REQUIRE(message({{"page_size", -1}}) == "--page-size must be from 1 to 1000");
  REQUIRE(message({{"page_size", 1001}}) == "--page-size must be from 1 to 1000");
  REQUIRE(message({{"shards", 0}}) == "--shards must be from 1 to 256");
  REQUIRE(message({{"shards", 512}}) == "--shards must be from 1 to 256");
  REQUIRE(message({{"inbox_cap", 0}}) == "--inbox-cap must be from 1 to 1000000");
  REQUIRE(message({{"tier_fans", -5}}) == "--tier-fans must be from 1 to 1000000");
  ValidateArgs(Op("init"), {{"page_size", 1000}, {"shards", 256}, {"inbox_cap", 1}});
  // A page number keeps its own range.
  REQUIRE(CodeOf("comments", {{"msg", "1"}, {"page", 1000001}}) == Code::kInvalidArgument);
  ValidateArgs(Op("comments"), {{"msg", "1"}, {"page", 0}});
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
