// Commands built from the operation table: each ArgSpec becomes one CLI11 option or
// positional, and a command of several operations gets one subcommand each (weibo-user).
#include <algorithm>

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

}  // namespace

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
    } else if (spec.type == ArgType::kMsgList) {
      args[spec.name] = v.list;
    } else if (IsNumber(spec.type)) {
      args[spec.name] = v.number;
    } else {
      args[spec.name] = spec.type == ArgType::kText ? Command::Content(v.text) : v.text;
    }
  }
  return args;
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

int Main(const std::string& command, int argc, char** argv, const char* description) {
  const std::vector<const OpSpec*> ops = OperationsOf(command);
  if (ops.empty())
    return ReportError("weibo",
                       Status(Code::kInvalidArgument, "'" + command + "' is not a weibo command"));
  const bool single = ops.size() == 1 && ops[0]->command == command;
  Command cmd("weibo-" + command, description != nullptr ? description
                                  : single               ? ops[0]->summary
                                                         : "");
  std::deque<OpOptions> options;
  if (single) {
    options.emplace_back(*ops[0], &cmd.app());
  } else {
    cmd.app().require_subcommand(1);
    for (const OpSpec* op : ops) {
      const std::string sub = std::string(op->command).substr(command.size() + 1);
      options.emplace_back(*op, cmd.app().add_subcommand(sub, op->summary));
    }
  }
  return cmd.Run(argc, argv, [&] {
    // One subcommand was parsed (require_subcommand), or the command is the operation.
    const OpOptions* chosen = &options.front();
    for (const OpOptions& o : options)
      if (o.app()->parsed()) chosen = &o;
    return Request{chosen->op().name, chosen->Args()};
  });
}

}  // namespace weibo::cli
