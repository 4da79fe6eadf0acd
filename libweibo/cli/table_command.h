// A weibo-<command> built from the operation table, for running it (cli::Main) and for
// describing it without running it (weibo help, weibo completion).
#ifndef WEIBO_CLI_TABLE_COMMAND_H_
#define WEIBO_CLI_TABLE_COMMAND_H_

#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "weibo/cli.h"

namespace weibo::cli {

struct TableCommand {
  std::unique_ptr<Command> cmd;   // its common options
  std::deque<OpOptions> options;  // one per operation: the app's or a subcommand's
};

// nullptr when no operation has that command. description heads a command of
// subcommands (weibo-user's); a command of one operation has its summary.
std::unique_ptr<TableCommand> BuildCommand(const std::string& command,
                                           const char* description = nullptr);

// Parses argv as built's command line and runs the request of the operation it names
// (Command::Run); returns the exit status. cli::Main is BuildCommand and this.
int RunTableCommand(TableCommand& built, int argc, char** argv);

// Every command of the table, in table order, each once ("user" for "user add").
std::vector<std::string> TableCommands();

// The first line of `program --help`: its description (searching PATH when program has
// no slash). Out of line, as Help, so that the check of man pages' ENVIRONMENT sections
// finds which programs read PATH (tests/man/check_environment.py).
std::string FirstHelpLine(const std::string& program);
// `weibo help COMMAND` (weibo(1)); returns the exit status.
int Help(const std::string& command);

// The directory of the running program, with its '/'; empty when /proc does not say.
std::string SelfDir();
// The weibo-* programs beside it that are no command of the table ("cluster", "sql"),
// sorted.
std::vector<std::string> OtherPrograms();

}  // namespace weibo::cli

#endif  // WEIBO_CLI_TABLE_COMMAND_H_
