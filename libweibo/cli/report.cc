// The one error (and warning) reporter and the one parse-and-exit of every weibo program: the
// weibo-* commands, weibod, weibo-cluster and the bench's programs (SPEC §10).
#include <iostream>

#include "weibo/cli.h"

namespace weibo::cli {

int ReportError(const std::string& program, const Status& status, bool json) {
  if (json)
    std::cerr << Json{{"error", {{"code", CodeName(status.code())}, {"message", status.message()}}}}
                     .dump()
              << "\n";
  else
    std::cerr << program << ": error: " << CodeName(status.code()) << ": " << status.message()
              << "\n";
  return ExitStatus(status.code());
}

void ReportWarning(const std::string& program, const std::string& message, bool json) {
  if (json)
    std::cerr << Json{{"warning", {{"message", message}}}}.dump() << "\n";
  else
    std::cerr << program << ": warning: " << message << "\n";
}

namespace {

// CLI11's messages, where they read backwards or in its own words, as weibo says them.
std::string Reworded(const CLI::App& app, const CLI::ParseError& e) {
  if (dynamic_cast<const CLI::ExtrasError*>(&e) != nullptr) {
    // CLI11 lists the extra arguments last first ("not expected: 2 -n").
    std::vector<std::string> extras;
    for (const CLI::App* a = &app; a != nullptr;) {
      for (const std::string& arg : a->remaining()) extras.push_back(arg);
      const CLI::App* next = nullptr;
      for (const CLI::App* sub : a->get_subcommands())
        if (sub->parsed()) next = sub;
      a = next;
    }
    std::string list;
    for (const std::string& arg : extras) list += (list.empty() ? "" : " ") + arg;
    if (!list.empty()) return "unexpected argument(s): " + list;
  }
  std::string what = e.what();
  // "--count: 1 required INT missing" -> "--count needs a value (INT)"
  const std::string missing = ": 1 required ";
  size_t at = what.find(missing);
  if (at != std::string::npos && what.size() > 8 &&
      what.compare(what.size() - 8, 8, " missing") == 0)
    return what.substr(0, at) + " needs a value (" +
           what.substr(at + missing.size(), what.size() - 8 - at - missing.size()) + ")";
  return what;
}

}  // namespace

std::optional<int> ParseArgs(CLI::App& app, int argc, char** argv,
                             const std::function<bool()>& json) {
  try {
    app.parse(argc, argv);
    return std::nullopt;
  } catch (const CLI::ParseError& e) {
    // --help and --version arrive as ParseErrors with exit code 0: CLI11 prints them.
    if (e.get_exit_code() == static_cast<int>(CLI::ExitCodes::Success)) return app.exit(e);
    const std::string& name = app.get_name();
    return ReportError(
        name, Status(Code::kInvalidArgument, Reworded(app, e) + " (see " + name + " --help)"),
        json && json());
  }
}

}  // namespace weibo::cli
