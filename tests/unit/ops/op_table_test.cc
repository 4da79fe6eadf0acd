// ops/op_table.cc: the operation table is the one source. Every row carries what dispatch,
// routing, the daemon and the commands need, so a new operation is one row and one
// handler file; these tests check each row has it and that each reader takes it from there.
#include <set>

#include "cluster/routing.h"
#include "storage/shard_set.h"
#include "test_support.h"
#include "weibo/ops.h"
#include "weibo/render.h"

namespace weibo {
namespace {

// A valid value of each argument type, for requests built from a row alone.
Json Sample(ArgType type) {
  switch (type) {
    case ArgType::kUser:
      return 21;
    case ArgType::kMsg:
      return "794354201395200003";
    case ArgType::kMsgList:
      return Json::array({"794354201395200003"});
    case ArgType::kText:
      return "hello";
    case ArgType::kName:
      return "alice";
    case ArgType::kCount:
      return 5;
    case ArgType::kPage:
      return 0;
    case ArgType::kFlag:
      return false;
    case ArgType::kString:
      return "x";
    case ArgType::kEdgeList:
      return Json::array({Json::array({21, 22})});
    case ArgType::kUserList:
      return Json::array({22});
    case ArgType::kFile:
      return "R0lGODlh";  // "GIF89a" in base64
    case ArgType::kAttrList:
      return Json::array({"link=x"});
  }
  return nullptr;
}

const char* KeyOf(HomeKey home) {
  switch (home) {
    case HomeKey::kUser:
      return "user";
    case HomeKey::kMessage:
      return "msg";
    case HomeKey::kName:
      return "name";
    case HomeKey::kToken:
      return "token";
    case HomeKey::kNone:
    case HomeKey::kEveryNode:
      break;
  }
  return nullptr;
}

TEST_CASE("operation table: every row has one handler, a known home and unique names") {
  std::set<std::string> names, commands;
  for (const OpSpec& op : Operations()) {
    INFO(op.name);
    REQUIRE(names.insert(op.name).second);
    REQUIRE(FindOperation(op.name) == &op);
    REQUIRE(std::string(op.summary).size() > 0);
    // Exactly one way to run it; a local op names the command that runs it, which the
    // daemon's refusal points to.
    REQUIRE((op.handler != nullptr) != (op.local != nullptr));
    if (op.local != nullptr) REQUIRE(op.command != nullptr);
    if (op.command != nullptr) REQUIRE(commands.insert(op.command).second);
    std::set<std::string> args;
    for (const ArgSpec& a : op.args) {
      INFO(a.name);
      REQUIRE(args.insert(a.name).second);
      REQUIRE(std::string(a.help).size() > 0);
      // A default is what the command sends: it must pass the argument's own validation.
      if (a.type == ArgType::kFlag) REQUIRE(a.default_value.is_null());
      if (a.type == ArgType::kCount || a.type == ArgType::kPage)
        REQUIRE((a.default_value.is_null() || a.default_value.is_number_integer()));
      if (a.type == ArgType::kString)
        REQUIRE((a.default_value.is_null() || a.default_value.is_string()));
    }
    // The home key names a required argument: routing never lacks it.
    if (const char* key = KeyOf(op.home)) {
      bool found = false;
      for (const ArgSpec& a : op.args) found = found || (key == std::string(a.name) && a.required);
      REQUIRE(found);
    }
  }
}

TEST_CASE("routing reads the home key of the table: a request goes to its key's shard") {
  for (const OpSpec& op : Operations()) {
    INFO(op.name);
    Json args = Json::object();
    for (const ArgSpec& a : op.args)
      if (a.required) args[a.name] = Sample(a.type);
    int home = cluster::HomeShard(Request{op.name, args}, 16, nullptr);
    switch (op.home) {
      case HomeKey::kUser:
        CHECK(home == 21 % 16);
        break;
      case HomeKey::kMessage:
        CHECK(home == 794354201395200003 % 16);
        break;
      case HomeKey::kName:
        CHECK(home == ShardOfName("alice", 16));
        break;
      case HomeKey::kToken: {  // "x" is no token (any node says so); a token names its user
        CHECK(home == -1);
        // base64url of format 1, user 21 (big-endian) and 25 zero bytes.
        const std::string token = "AQAAABUAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA";
        CHECK(cluster::HomeShard(Request{op.name, {{"token", token}}}, 16, nullptr) == 21 % 16);
        break;
      }
      case HomeKey::kNone:
      case HomeKey::kEveryNode:
        CHECK(home == -1);
        break;
    }
  }
}

TEST_CASE("rendering reads the table: a row's renderer, else messages as blocks") {
  const Json drained{{"applied", 2}, {"pending", 1}};
  CHECK(RenderText("drain", drained) == "applied 2 job(s), 1 pending\n");
  CHECK(RenderText("drain", drained) == FindOperation("drain")->render(drained));
  // No renderer of its own (post) or no row at all: the default.
  CHECK(FindOperation("post")->render == nullptr);
  CHECK(RenderText("post", Json::array()) == "");
  CHECK(RenderText("no_such_op", Json{{"a", 1}}) == "{\n  \"a\": 1\n}\n");
}

}  // namespace
}  // namespace weibo
