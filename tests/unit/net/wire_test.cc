// net/wire.cc: a reply read back is the result that was written, key order included (the
// client prints what the embedded command would), whatever the shape; what is not a reply
// of the protocol is refused.
#include "net/wire.h"

#include <catch2/catch.hpp>

#include "storage/clock.h"

namespace weibo::net {
namespace {

Json ReadBack(const Json& result) {
  WireReply reply;
  REQUIRE(ParseReply(EncodeReply(Json("r1"), Result<Json>(result), nullptr), &reply));
  REQUIRE(reply.status.ok());
  REQUIRE(reply.id == Json("r1"));
  return reply.result;
}

TEST_CASE("wire: a reply's result reads back as written, key order and nesting included") {
  Json many = Json::object();  // more fields than the parser reserves room for
  for (int i = 20; i > 0; --i) many["k" + std::to_string(i)] = Json::array({i, "v", nullptr});
  Json page = Json::array();
  for (int i = 0; i < 3; ++i)
    page.push_back(Json{{"id", std::to_string(i)},
                        {"content", "多语言 \"quoted\" \\ \n"},
                        {"counts", {{"comments", i}, {"views", 1.5}}},
                        {"root", i == 1 ? Json{{"id", "7"}, {"deleted", true}} : Json()},
                        {"many", many}});
  for (const Json& result : {page, Json::array(), Json::object(), Json(42), Json("s"), many}) {
    Json back = ReadBack(result);
    CHECK(back == result);
    CHECK(back.dump() == result.dump());
  }
}

TEST_CASE("wire: a repeated key keeps its first place and its last value, as Json::parse") {
  std::string body = R"({"id":"x","ok":true,"result":{"a":1,"b":2,"a":3}})";
  WireReply reply;
  REQUIRE(ParseReply(body, &reply));
  Json want = Json::parse(R"({"a":1,"b":2,"a":3})");
  CHECK(reply.result == want);
  CHECK(reply.result.dump() == R"({"a":3,"b":2})");
}

TEST_CASE("wire: a result reads as Json::parse reads it, at the edges of numbers and nesting") {
  std::string deep(2000, '[');  // past simdjson's depth limit: nlohmann reads it
  deep += std::string(2000, ']');
  for (std::string result :
       {std::string("[-9223372036854775808,9223372036854775807,18446744073709551615]"),
        std::string("[18446744073709551616,-9223372036854775809,1e300,-0,0.1,1E-7,2.5e+3]"),
        std::string(R"(["\u00e9\ud83d\ude00","\u0000","tab\tend",true,false,null,{}])"), deep}) {
    INFO(result.substr(0, 80));
    Json want = Json::parse(result);
    WireReply reply;
    REQUIRE(ParseReply(R"({"id":"n","ok":true,"result":)" + result + "}", &reply));
    CHECK(reply.result == want);
    CHECK(reply.result.dump() == want.dump());
    // The same kinds of number too (== compares 1 and 1u equal): a check for an unsigned
    // one, such as a request's now, must see what Json::parse would give it.
    for (size_t i = 0; want.is_array() && i < want.size(); ++i)
      CHECK(reply.result[i].type() == want[i].type());
  }
}

TEST_CASE("wire: a reply's bytes are Json::dump's, escapes, non-ASCII and numbers included") {
  Json odd = Json::object();
  odd["quote\"d"] = "a\\b\"c";
  odd["ctl"] = std::string("\x01\x1f\t\n\r\b\f", 7);
  odd["del"] = "x\x7fy";
  odd["utf8"] = "多语言 é 😀";
  odd["bad"] = "\xff\xfe ok";  // replaced by U+FFFD, as the daemon always did
  odd["nums"] = Json::array({0, -1, INT64_MIN, INT64_MAX, UINT64_MAX, 1.5, -0.0, 1e300, 0.1});
  odd["nest"] = Json{{"empty_object", Json::object()},
                     {"empty_array", Json::array()},
                     {"null", nullptr},
                     {"bools", Json::array({true, false})}};
  for (const Json& result : {odd, Json::array(), Json(""), Json(7), Json(-7), Json(2.5),
                             Json(nullptr), Json(true), Json(false)}) {
    const std::string want = R"({"id":"r","ok":true,"result":)" +
                             result.dump(-1, ' ', false, Json::error_handler_t::replace) + "}";
    CHECK(EncodeReply(Json("r"), Result<Json>(result), nullptr) == want);
  }
}

TEST_CASE("wire: a reply of a result given as text is the reply of that result's document") {
  const Json result = Json::parse(R"([{"id":"7","counts":{"likes":1}},{"id":"8","counts":{}}])");
  const std::vector<std::string> explain = {"shard-00: SELECT 1"};
  const std::vector<std::string> warnings = {"held \"back\""};
  const std::vector<std::string> none;
  for (const Json& id : {Json("r"), Json(nullptr)})
    for (const auto* e : {static_cast<const std::vector<std::string>*>(nullptr), &explain})
      for (const auto* w : {&none, &warnings})
        CHECK(EncodeReplyText(id, result.dump(), e, w) ==
              EncodeReply(id, Result<Json>(result), e, w));
}

TEST_CASE(
    "wire: a request's bytes are Json::dump's of its fields, and bad UTF-8 throws as dump does") {
  Json ids = Json::array();
  for (int i = 0; i < 200; ++i) ids.push_back(std::to_string(1000000000000000000LL + i));
  Request count{"count", Json{{"msgs", ids}}};
  Request odd{"post", Json{{"content", "多语言 \"q\" \\ \n\x01"}, {"n", -3}, {"x", 0.5}}};
  odd.now_ms = 1704067200000LL;
  odd.async = true;
  Request bare{"drain", Json()};
  for (const Request* r : {&count, &odd, &bare})
    for (const std::string token : {"", "tok\"en"})
      for (bool explain : {false, true}) {
        Json want = {{"id", "i1"}, {"op", r->op}, {"args", r->args}};
        if (!token.empty()) want["token"] = token;
        if (r->now_ms != 0) want["now"] = FormatTime(r->now_ms);
        if (r->async) want["async"] = true;
        if (explain) want["explain"] = true;
        CHECK(EncodeRequest("i1", *r, token, explain) == want.dump());
      }
  Request bad{"post", Json{{"content", "\xff\xfe"}}};
  CHECK_THROWS_AS(EncodeRequest("i2", bad, "", false), nlohmann::json::exception);
}

TEST_CASE("wire: a request reads as Json::parse reads it, numbers' kinds included") {
  const std::string body =
      R"({"id":"q","op":"count","args":{"msgs":["1","2"],"n":5,"m":-5,"x":1.5,"a":1,"a":2}})";
  WireRequest wire;
  REQUIRE(ParseRequest(body, WireLimits{}, &wire).ok());
  Json want = Json::parse(body).at("args");
  CHECK(wire.request.args == want);
  CHECK(wire.request.args.dump() == want.dump());
  for (const char* key : {"n", "m", "x", "a"})
    CHECK(wire.request.args[key].type() == want[key].type());
  CHECK(wire.request.args["n"].is_number_unsigned());
  WireRequest bad;
  CHECK(ParseRequest(R"({"op":"count","args":{"msgs":[1,]}})", WireLimits{}, &bad).code() ==
        Code::kInvalidRequest);
}

TEST_CASE("wire: a request that is not UTF-8 is refused as such, whatever else is wrong") {
  // Overlong, surrogate, past U+10FFFF, a lone continuation, truncated, a stray byte.
  for (std::string bad :
       {"\xc0\xaf", "\xed\xa0\x80", "\xf4\x90\x80\x80", "\x80", "\xe4\xb8", "\xff"}) {
    for (std::string body : {R"({"op":"post","args":{"content":")" + bad + R"("}})",
                             R"({"op":"post",")" + bad + R"(":1})", R"({"op":)" + bad}) {
      INFO(body);
      WireRequest wire;
      Status s = ParseRequest(body, WireLimits{}, &wire);
      CHECK(s.code() == Code::kInvalidRequest);
      CHECK(s.message() == "the request is not valid UTF-8");
    }
  }
  WireRequest good;
  CHECK(ParseRequest(R"({"op":"post","args":{"content":"多语言 😀"}})", WireLimits{}, &good).ok());
  CHECK(good.request.args.at("content") == "多语言 😀");
  WireRequest not_json;
  CHECK(ParseRequest(R"({"op":"post",)", WireLimits{}, &not_json).message() ==
        "the request is not valid JSON");
}

TEST_CASE("wire: a request's clock must lie in the message ids' range, up to its last week") {
  WireRequest wire;
  // Out of range is invalid_argument (issue 11: from 2089-08-31 on, the id range's last,
  // partial week, is refused too); not a time at all is invalid_request.
  for (const char* now : {"2019-12-31T23:59:59Z", "2089-08-31T00:00:00Z", "2089-09-06T15:47:35Z",
                          "4052-02-01T00:00:00Z"}) {
    INFO(now);
    std::string body = std::string(R"({"op":"post","now":")") + now + R"(","args":{}})";
    Status s = ParseRequest(body, WireLimits{}, &wire);
    CHECK(s.code() == Code::kInvalidArgument);
    CHECK_THAT(s.message(), Catch::Contains("to 2089-08-30T23:59:59Z"));
  }
  CHECK(ParseRequest(R"({"op":"post","now":"yesterday","args":{}})", WireLimits{}, &wire).code() ==
        Code::kInvalidRequest);
  REQUIRE(
      ParseRequest(R"({"op":"post","now":"2089-08-30T23:59:59Z","args":{}})", WireLimits{}, &wire)
          .ok());
}

TEST_CASE("wire: a reply read as text gives the result's own bytes, the rest as ParseReply") {
  const std::string text = R"([{"id":"7","counts":{"likes":1}},{"id":"8","counts":{}}])";
  const std::vector<std::string> explain = {"shard-00: SELECT 1"};
  const std::vector<std::string> warnings = {"held \"back\""};
  for (const Json& id : {Json("r"), Json(nullptr)}) {
    WireReply reply;
    std::string got = "stale";
    REQUIRE(ParseReplyText(EncodeReplyText(id, text, &explain, &warnings), &reply, &got));
    CHECK(got == text);
    CHECK(reply.result.is_null());
    CHECK(reply.status.ok());
    CHECK(reply.id == id);
    CHECK(reply.explain == explain);
    CHECK(reply.warnings == warnings);
  }
  const std::string object = R"({"a":[1,2],"b":"多语言 \"q\""})";
  WireReply reply;
  std::string got;
  REQUIRE(ParseReplyText(EncodeReplyText(Json("o"), object, nullptr), &reply, &got));
  CHECK(got == object);
  // A scalar result, an error and a repeated key are read as ParseReply reads them.
  for (const std::string& body :
       {EncodeReply(Json("s"), Result<Json>(Json(42)), nullptr),
        EncodeReply(Json("e"), Result<Json>(Status(Code::kNotFound, "gone")), nullptr),
        std::string(R"({"id":"d","ok":true,"result":[1],"result":[2]})")}) {
    INFO(body);
    WireReply want;
    REQUIRE(ParseReply(body, &want));
    got = "stale";
    REQUIRE(ParseReplyText(body, &reply, &got));
    CHECK(got.empty());
    CHECK(reply.result == want.result);
    CHECK(reply.status.code() == want.status.code());
    CHECK(reply.id == want.id);
  }
  // What ParseReply refuses, this refuses.
  for (const char* body : {"", "{\"id\":\"x\",\"ok\":true,\"result\":[1,}",
                           "{\"id\":\"x\",\"ok\":true,\"result\":[\"\xc3\"]}",
                           "{\"id\":\"x\",\"ok\":true,\"result\":[1]} 2"}) {
    INFO(body);
    CHECK_FALSE(ParseReplyText(body, &reply, &got));
    CHECK(got.empty());
  }
}

TEST_CASE("wire: what is not a reply of the protocol is refused") {
  WireReply reply;
  for (const char* body :
       {"", "{", "[]", "{\"id\":\"x\"}", "{\"id\":\"x\",\"ok\":true}",
        "{\"id\":\"x\",\"ok\":true,\"result\":[1,}", "\xff\xfe", "{\"id\":\"x\",\"ok\":false}",
        "{\"id\":\"x\",\"ok\":true,\"result\":\"\xc3\"}",
        "{\"id\":\"x\",\"ok\":true,\"result\":1} 2"}) {
    INFO(body);
    CHECK_FALSE(ParseReply(body, &reply));
  }
  // A string that is not UTF-8, and content after the document.
  CHECK_FALSE(ParseReply("{\"id\":\"x\",\"ok\":true,\"result\":\"\xc3\"}", &reply));
  CHECK_FALSE(ParseReply("{\"id\":\"x\",\"ok\":true,\"result\":1} 2", &reply));
  REQUIRE(ParseReply(EncodeReply(Json("e"), Result<Json>(Status(Code::kNotFound, "gone")), nullptr),
                     &reply));
  CHECK(reply.status.code() == Code::kNotFound);
  CHECK(reply.status.message() == "gone");
}

}  // namespace
}  // namespace weibo::net
