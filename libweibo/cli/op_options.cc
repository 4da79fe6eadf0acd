// Commands built from the operation table: each ArgSpec becomes one CLI11 option or
// positional, and a command of several operations gets one subcommand each (weibo-user).
#include <algorithm>

#include "cli/table_command.h"
#include "weibo/cli.h"

namespace weibo::cli {
namespace {

std::string FlagOf(const ArgSpec& spec) {
  if (spec.flag != nullptr) return spec.flag;
  std::string flag = std::string("--") + spec.name;
  std::replace(flag.begin(), flag.end(), '_', '-');
  return flag;
}

bool IsNumber(ArgType type) { return type == ArgType::kCount || type == ArgType::kPage; }

// A value of the argument's type for an example: the names and ids of weibo(7)'s own.
std::string SampleValue(const ArgSpec& spec) {
  const bool option = spec.flag == nullptr || spec.flag[0] == '-';
  switch (spec.type) {
    case ArgType::kUser:
      return option || std::string(spec.name) != "target" ? "@alice" : "@bob";
    case ArgType::kMsg:
      return "794762915348480257";
    case ArgType::kMsgList:
      return "794762915348480257 794762915348480001";
    case ArgType::kText:
      return spec.required ? "'hello, weibo'" : "'worth reading'";
    case ArgType::kName:
      return "alice";
    case ArgType::kCount:
    case ArgType::kPage: {  // twice the default keeps within every bound of the table
      const int d = spec.default_value.is_number() ? spec.default_value.get<int>() : 0;
      return std::to_string(d > 0 ? 2 * d : 1);
    }
    case ArgType::kFlag:
      return "";
    case ArgType::kString:
      return spec.default_value.is_string() ? spec.default_value.get<std::string>() : "VALUE";
    case ArgType::kEdgeList:
      return "follows.txt";
    case ArgType::kUserList:
      return "users.txt";
    case ArgType::kFile:
      return "face.jpg";
    case ArgType::kAttrList:
      return "link=https://example.com/";
  }
  return "";
}

// How the argument is written in an example: "-u @alice", "--posts", "794762915348480257".
std::string SampleArg(const ArgSpec& spec) {
  const std::string value = SampleValue(spec);
  if (spec.flag != nullptr && spec.flag[0] != '-') return value;  // a positional
  std::string flag = FlagOf(spec);
  flag = flag.substr(0, flag.find(','));  // "-u" of "-u,--user"
  return value.empty() ? flag : flag + " " + value;
}

}  // namespace

std::vector<std::string> Examples(const std::string& program, const OpSpec& op) {
  // The required arguments alone, then with the first optional one and --json.
  std::string base = program, optional;
  for (const ArgSpec& spec : op.args) {
    if (spec.required)
      base += " " + SampleArg(spec);
    else if (optional.empty())
      optional = " " + SampleArg(spec);
  }
  return {base, base + optional + " --json"};
}

std::string ExamplesFooter(const std::vector<std::string>& examples) {
  std::string out = "Examples:";  // CLI11 ends the footer with a newline of its own
  for (const std::string& e : examples) out += "\n  " + e;
  return out;
}

OpOptions::OpOptions(const OpSpec& op, CLI::App* app) : op_(op), app_(app) {
  for (const ArgSpec& spec : op.args) {
    Value& v = values_.emplace_back();
    v.spec = &spec;
    const std::string flag = FlagOf(spec);
    const bool defaulted = !spec.default_value.is_null();
    if (spec.type == ArgType::kFlag) {
      v.option = app->add_flag(flag, v.flag, spec.help);
    } else if (spec.type == ArgType::kMsgList) {
      v.option = app->add_option(flag, v.list, spec.help);
    } else if (spec.type == ArgType::kAttrList) {
      // One value per --attr, so that a positional after it is not taken as a second pair.
      v.option = app->add_option(flag, v.list, spec.help)
                     ->type_name("KEY=VALUE")
                     ->expected(1)
                     ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
    } else if (IsNumber(spec.type)) {
      if (defaulted) v.number = spec.default_value.get<int>();
      v.option = app->add_option(flag, v.number, spec.help);
    } else {
      if (defaulted) v.text = spec.default_value.get<std::string>();
      v.option = app->add_option(flag, v.text, spec.help);
    }
    if (spec.env != nullptr) v.option->envname(spec.env);
    if (spec.required) v.option->required();
    if (defaulted) v.option->capture_default_str();
  }
}

Json OpOptions::Args() const {
  Json args = Json::object();
  for (const Value& v : values_) {
    const ArgSpec& spec = *v.spec;
    if (spec.type == ArgType::kFlag) {
      args[spec.name] = v.flag;
    } else if (v.option->count() == 0 && spec.default_value.is_null()) {
      continue;  // not given, and no default to send
    } else if (spec.type == ArgType::kMsgList || spec.type == ArgType::kAttrList) {
      args[spec.name] = v.list;
    } else if (IsNumber(spec.type)) {
      args[spec.name] = v.number;
    } else {
      args[spec.name] = spec.type == ArgType::kText       ? Json(Command::Content(v.text))
                        : spec.type == ArgType::kEdgeList ? Command::EdgeList(v.text)
                        : spec.type == ArgType::kUserList ? Command::UserList(v.text)
                        : spec.type == ArgType::kFile     ? Json(Command::FileContent(v.text))
                                                          : Json(v.text);
    }
  }
  return args;
}

std::vector<std::string> TableCommands() {
  std::vector<std::string> out;
  for (const OpSpec& op : Operations()) {
    if (op.command == nullptr) continue;
    const std::string word = std::string(op.command).substr(0, std::string(op.command).find(' '));
    if (std::find(out.begin(), out.end(), word) == out.end()) out.push_back(word);
  }
  return out;
}

std::vector<const OpSpec*> OperationsOf(const std::string& command) {
  std::vector<const OpSpec*> ops;
  for (const OpSpec& op : Operations()) {
    if (op.command == nullptr) continue;
    const std::string name = op.command;
    if (name == command || name.rfind(command + " ", 0) == 0) ops.push_back(&op);
  }
  return ops;
}

std::unique_ptr<TableCommand> BuildCommand(const std::string& command, const char* description) {
  const std::vector<const OpSpec*> ops = OperationsOf(command);
  if (ops.empty()) return nullptr;
  auto built = std::make_unique<TableCommand>();
  const bool single = ops.size() == 1 && ops[0]->command == command;
  const std::string program = "weibo-" + command;
  built->cmd = std::make_unique<Command>(program, description != nullptr ? description
                                                  : single               ? ops[0]->summary
                                                                         : "");
  CLI::App& top = built->cmd->app();
  if (single) {
    built->options.emplace_back(*ops[0], &top);
    top.footer(ExamplesFooter(Examples(program, *ops[0])));
  } else {
    top.require_subcommand(1);
    std::vector<std::string> firsts;  // the first example of each of the first two
    for (const OpSpec* op : ops) {
      const std::string sub = std::string(op->command).substr(command.size() + 1);
      CLI::App* app = top.add_subcommand(sub, op->summary);
      built->options.emplace_back(*op, app);
      const std::vector<std::string> examples = Examples(program + " " + sub, *op);
      // CLI11 lists a subcommand's own options only; the common ones are the command's,
      // taken before or after the subcommand.
      app->footer("Common options: those of " + program + " (" + program +
                  " --help), before or after '" + sub + "'.\n\n" + ExamplesFooter(examples));
      if (firsts.size() < 2) firsts.push_back(examples[firsts.empty() ? 0 : 1]);
    }
    top.footer(ExamplesFooter(firsts));
  }
  return built;
}

int Main(const std::string& command, int argc, char** argv, const char* description) {
  std::unique_ptr<TableCommand> built = BuildCommand(command, description);
  if (!built)
    return ReportError("weibo",
                       Status(Code::kInvalidArgument, "'" + command + "' is not a weibo command"));
  return RunTableCommand(*built, argc, argv);
}

int RunTableCommand(TableCommand& built, int argc, char** argv) {
  return built.cmd->Run(argc, argv, [&] {
    // One subcommand was parsed (require_subcommand), or the command is the operation.
    const OpOptions* chosen = &built.options.front();
    for (const OpOptions& o : built.options)
      if (o.app()->parsed()) chosen = &o;
    return Request{chosen->op().name, chosen->Args()};
  });
}

}  // namespace weibo::cli
