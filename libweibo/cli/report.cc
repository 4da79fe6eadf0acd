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
        name, Status(Code::kInvalidArgument, std::string(e.what()) + " (see " + name + " --help)"),
        json && json());
  }
}

}  // namespace weibo::cli
