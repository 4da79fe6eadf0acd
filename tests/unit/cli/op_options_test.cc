// cli/op_options.cc: every command's options are generated from its operation's ArgSpecs,
// so a row of the table is all a new command needs (weibo-<name> is one line, Main).
#include <cctype>

#include "ops/args.h"
#include "test_support.h"
#include "weibo/cli.h"

namespace weibo::cli {
namespace {

// What a user types for an argument of this type, and what the command sends for it.
struct Typed {
  std::string text;
  Json sent;
};

Typed Sample(ArgType type) {
  switch (type) {
    case ArgType::kUser:
      return {"@alice", "@alice"};
    case ArgType::kMsg:
    case ArgType::kMsgList:
      return {"794354201395200003", "794354201395200003"};
    case ArgType::kText:
      return {"hello", "hello"};
    case ArgType::kName:
      return {"alice", "alice"};
    case ArgType::kCount:
    case ArgType::kPage:
      return {"7", 7};
    case ArgType::kString:
      return {"push", "push"};
    case ArgType::kUserList: {  // the file's users, one a line; an empty list is refused
      const std::string path = std::filesystem::temp_directory_path().string() +
                               "/weibo-op-options-" + std::to_string(getpid()) + ".users";
      std::ofstream(path) << "# a comment\n\n@alice\n";
      return {path, Json::array({"@alice"})};
    }
    case ArgType::kEdgeList:  // the file's lines: an empty file, no edges
      return {"/dev/null", Json::array()};
    case ArgType::kFile: {  // a file the command reads and sends in base64
      const std::string path = std::filesystem::temp_directory_path().string() +
                               "/weibo-op-options-" + std::to_string(getpid()) + ".gif";
      std::ofstream(path) << "GIF89a";
      return {path, "R0lGODlh"};
    }
    case ArgType::kAttrList:
      return {"link=x", "link=x"};
    case ArgType::kFlag:
      break;
  }
  return {"", true};
}

bool IsPositional(const ArgSpec& a) {
  return a.flag != nullptr && std::isupper(static_cast<unsigned char>(a.flag[0]));
}

// The long name the command line knows an option by.
std::string LongName(const ArgSpec& a) {
  if (a.flag == nullptr) {
    std::string flag = std::string("--") + a.name;
    for (char& c : flag)
      if (c == '_') c = '-';
    return flag;
  }
  std::string flag = a.flag;
  return flag.substr(flag.rfind(',') + 1);
}

// Parses argv (without the program name) with op's generated options; the args sent.
Json Parse(const OpSpec& op, std::vector<std::string> argv) {
  CLI::App app("test", "weibo-test");
  OpOptions options(op, &app);
  argv.insert(argv.begin(), "weibo-test");
  std::vector<char*> raw;
  for (auto& a : argv) raw.push_back(a.data());
  app.parse(static_cast<int>(raw.size()), raw.data());
  return options.Args();
}

TEST_CASE("every command's options are its operation's ArgSpecs, one for one") {
  for (const OpSpec& op : Operations()) {
    INFO(op.name);
    CLI::App app("test", "weibo-test");
    OpOptions options(op, &app);
    std::vector<const CLI::Option*> generated;
    for (const CLI::Option* o : app.get_options())
      if (o->get_name() != "--help") generated.push_back(o);
    REQUIRE(generated.size() == op.args.size());
    for (size_t i = 0; i < op.args.size(); ++i) {
      const ArgSpec& a = op.args[i];
      const CLI::Option& o = *generated[i];
      INFO(a.name);
      CHECK(o.get_required() == a.required);
      CHECK(o.get_envname() == (a.env != nullptr ? a.env : ""));
      CHECK(o.get_description() == a.help);
      if (IsPositional(a))
        CHECK(o.get_name(true) == a.flag);
      else
        CHECK(o.check_lname(LongName(a).substr(2)));
      if (!a.default_value.is_null())
        CHECK(o.get_default_str() == (a.default_value.is_string()
                                          ? a.default_value.get<std::string>()
                                          : a.default_value.dump()));
    }
  }
}

TEST_CASE("every argument given on the command line reaches the request under its name") {
  for (const OpSpec& op : Operations()) {
    INFO(op.name);
    std::vector<std::string> argv;
    Json expected = Json::object();
    for (const ArgSpec& a : op.args) {
      Typed t = Sample(a.type);
      if (a.type == ArgType::kFlag) {
        argv.push_back(LongName(a));
      } else {
        if (!IsPositional(a)) argv.push_back(LongName(a));
        argv.push_back(t.text);
      }
      const bool list = a.type == ArgType::kMsgList || a.type == ArgType::kAttrList;
      expected[a.name] = list ? Json::array({t.sent}) : t.sent;
    }
    Json sent = Parse(op, argv);
    CHECK(sent == expected);
    // What the command sends passes the edge's validation as it stands.
    CHECK_NOTHROW(ValidateArgs(op, sent));
  }
}

TEST_CASE("attrs: --attr takes one pair each time, a positional after it stays one") {
  Json sent = Parse(*FindOperation("post"),
                    {"-u", "5", "--attr", "link=u", "--attr", "title=a b", "the text"});
  CHECK(sent.at("attrs") == Json::array({"link=u", "title=a b"}));
  CHECK(sent.at("content") == "the text");
  CHECK_FALSE(Parse(*FindOperation("post"), {"-u", "5", "hi"}).contains("attrs"));
}

TEST_CASE("left out, an option sends its default, a flag false, and anything else nothing") {
  Json sent = Parse(*FindOperation("timeline"), {"-u", "5"});
  CHECK(sent ==
        Json{{"user", "5"}, {"posts", false}, {"count", 20}, {"page", 0}, {"unread", false}});
  Json init = Parse(*FindOperation("init"), {});
  CHECK(init.at("shards") == ClusterConfig().shards);
  CHECK(init.at("feed") == ClusterConfig().feed);
  CHECK(init.at("force") == false);
}

// A made-up operation, as a reviewer adds one: a row (here outside the table) and a
// handler. Its command's options, defaults and --help follow from the row alone.
Json Wave(Context&, const Json& args) { return args; }

TEST_CASE("a made-up operation gets its command from its row alone") {
  const OpSpec wave{
      "wave",
      true,
      "Wave at a message.",
      {{"user", ArgType::kUser, true, "the acting user", "-u,--user", nullptr, "WEIBO_USER"},
       {"msg", ArgType::kMsg, true, "the message waved at", "MSG"},
       {"times", ArgType::kCount, false, "how many waves", nullptr, 3},
       {"loud", ArgType::kFlag, false, "wave loudly"},
       {"content", ArgType::kText, false, "what to say", "TEXT"}},
      HomeKey::kUser,
      "wave",
      Wave};
  CHECK(Parse(wave, {"-u", "@bob", "794354201395200003"}) ==
        Json{{"user", "@bob"}, {"msg", "794354201395200003"}, {"times", 3}, {"loud", false}});
  CHECK(Parse(wave, {"794354201395200003", "-u", "7", "--times", "2", "--loud", "hi"}) ==
        Json{{"user", "7"},
             {"msg", "794354201395200003"},
             {"times", 2},
             {"loud", true},
             {"content", "hi"}});
  CHECK_THROWS_AS(Parse(wave, {"794354201395200003"}), CLI::RequiredError);
  CLI::App app("Wave at a message.", "weibo-wave");
  OpOptions options(wave, &app);
  const std::string help = app.help();
  for (const char* word : {"MSG", "TEXT", "--user", "WEIBO_USER", "--times", "INT=3", "--loud",
                           "how many waves", "wave loudly"}) {
    INFO(word);
    CHECK(help.find(word) != std::string::npos);
  }
}

}  // namespace
}  // namespace weibo::cli
