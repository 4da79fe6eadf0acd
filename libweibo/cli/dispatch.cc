// `weibo [COMMON_OPTION...] COMMAND [ARGS...]`, git-style: runs weibo-COMMAND. The common
// options it accepts before COMMAND are the ones every Command declares (command.cc).
// `weibo help [COMMAND]` lists the commands or opens one's page; `weibo completion SHELL`
// prints a completion script (completion.cc).
#include <dirent.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <iostream>
#include <sstream>

#include "cli/table_command.h"
#include "weibo/cli.h"
#include "weibo/version.h"

namespace weibo::cli {
namespace {

// The common options, as a Command declares them: name -> whether it takes a value.
std::vector<std::pair<std::string, bool>> CommonOptions() {
  Command probe("weibo", "");
  std::vector<std::pair<std::string, bool>> out;
  for (const CLI::Option* o : probe.app().get_options()) {
    const std::string name = o->get_name();
    if (name == "--help" || name == "--version") continue;
    out.emplace_back(name, o->get_items_expected_max() != 0);  // flags expect 0
  }
  return out;
}

// Whether arg is a common option, and whether it takes its value as the next argument
// (rather than after '=', or none).
bool IsCommonOption(const std::string& arg, bool* takes_value) {
  *takes_value = false;
  for (const auto& [name, valued] : CommonOptions()) {
    if (arg == name) return *takes_value = valued, true;
    if (valued && arg.rfind(name + "=", 0) == 0) return true;
  }
  return false;
}

// Words wrapped greedily into lines of at most 80 columns.
std::string Wrap(const std::string& text) {
  std::istringstream words(text);
  std::string word, line, out;
  while (words >> word) {
    if (!line.empty() && line.size() + 1 + word.size() > 80) {
      out += line + "\n";
      line.clear();
    }
    line += (line.empty() ? "" : " ") + word;
  }
  return out + line + "\n";
}

std::string Usage() {
  std::string names;
  for (const auto& option : CommonOptions()) names += (names.empty() ? "" : ", ") + option.first;
  return "usage: weibo [COMMON_OPTION...] COMMAND [ARGS...]\n" +
         Wrap("Runs weibo-COMMAND ARGS.... Common options (" + names +
              ") may come before COMMAND and are passed on to it. See weibo(1) and weibo(7), "
              "and `weibo-COMMAND --help`.");
}

// `weibo help` and `weibo --help`: every command with its one-line summary, the table's
// first, then the other weibo-* programs beside this one.
std::string CommandList() {
  std::vector<std::pair<std::string, std::string>> rows;
  for (const OpSpec& op : Operations())
    if (op.command != nullptr) rows.emplace_back(op.command, op.summary);
  const std::string dir = SelfDir();
  for (const std::string& command : OtherPrograms())
    rows.emplace_back(command, FirstHelpLine(dir + "weibo-" + command));
  rows.emplace_back("help", "list the commands; `weibo help COMMAND` opens its manual page");
  rows.emplace_back("completion", "print a bash, zsh or fish completion script");
  std::string out = "\nCommands:\n";
  for (const auto& [name, summary] : rows) {
    std::string line = "  " + name;
    line.resize(std::max<size_t>(line.size() + 2, 16), ' ');
    out += line + summary + "\n";
  }
  return out;
}

}  // namespace

// The first line of `program --help`: its description.
std::string FirstHelpLine(const std::string& program) {
  std::string line;
  FILE* pipe = popen(("'" + program + "' --help 2>/dev/null").c_str(), "r");
  if (pipe == nullptr) return line;
  char buf[512];
  if (fgets(buf, sizeof buf, pipe) != nullptr) line = buf;
  pclose(pipe);
  while (!line.empty() && (line.back() == '\n' || line.back() == '.')) line.pop_back();
  return line;
}

// `weibo help COMMAND`: its manual page, from beside this program (an install's share/man,
// or the source tree of a build's bin/), else man's own search; its --help when man has
// no page for it.
int Help(const std::string& command) {
  const std::string page = command == "weibo" ? "weibo" : "weibo-" + command;
  const std::string dir = SelfDir();
  std::vector<std::string> argv{"man"};
  for (const std::string& local :
       {dir + "../share/man/man1/" + page + ".1", dir + "../../man/" + page + ".1"})
    if (!dir.empty() && access(local.c_str(), R_OK) == 0) {
      argv = {"man", "-l", local};
      break;
    }
  if (argv.size() == 1) argv = {"man", "1", page};
  pid_t pid = fork();
  if (pid == 0) {
    std::vector<char*> args;
    for (std::string& a : argv) args.push_back(a.data());
    args.push_back(nullptr);
    execvp("man", args.data());
    _exit(127);
  }
  int status = 0;
  if (pid > 0) waitpid(pid, &status, 0);
  if (pid > 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0) return 0;
  // No man(1), or no page: the command's own --help says most of it.
  std::cerr << "weibo: no manual page for " << page << "; its --help:\n";
  const std::string program = dir + page;
  if (!dir.empty() && access(program.c_str(), X_OK) == 0)
    execl(program.c_str(), page.c_str(), "--help", static_cast<char*>(nullptr));
  if (BuildCommand(command)) {
    char name[] = "weibo", help[] = "--help";
    char* args[] = {name, help, nullptr};
    return Main(command, 2, args);
  }
  std::cerr << "weibo: error: invalid_argument: '" << command << "' is not a weibo command\n";
  return 2;
}

std::string SelfDir() {
  char self[4096];
  ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
  if (n <= 0) return "";
  self[n] = '\0';
  std::string dir(self);
  return dir.substr(0, dir.rfind('/') + 1);
}

std::vector<std::string> OtherPrograms() {
  const std::vector<std::string> table = TableCommands();
  const std::string dir = SelfDir();
  std::vector<std::string> others;
  if (DIR* d = dir.empty() ? nullptr : opendir(dir.c_str())) {
    while (dirent* e = readdir(d)) {
      const std::string name = e->d_name;
      if (name.rfind("weibo-", 0) != 0) continue;
      const std::string command = name.substr(6);
      if (std::find(table.begin(), table.end(), command) != table.end()) continue;
      if (access((dir + name).c_str(), X_OK) == 0) others.push_back(command);
    }
    closedir(d);
  }
  std::sort(others.begin(), others.end());
  return others;
}

int Dispatch(int argc, char** argv) {
  const std::string first = argc < 2 ? "" : argv[1];
  if (argc < 2) {
    std::cout << Usage() << "`weibo help` lists the commands.\n";
    return 2;
  }
  if (first == "--help" || first == "-h" || (first == "help" && argc == 2)) {
    std::cout << Usage() << CommandList();
    return 0;
  }
  if (first == "--version") {
    std::cout << "weibo " << kVersion << "\n";
    return 0;
  }
  if (first == "help") return Help(argv[2]);
  if (first == "completion") {
    if (argc != 3) {
      std::cerr << "weibo: error: invalid_argument: usage: weibo completion bash|zsh|fish\n";
      return 2;
    }
    return PrintCompletion(argv[2], std::cout);
  }
  std::vector<char*> leading;
  int i = 1;
  for (; i < argc && argv[i][0] == '-'; ++i) {
    bool takes_value = false;
    if (!IsCommonOption(argv[i], &takes_value)) {
      std::cerr << "weibo: error: invalid_argument: '" << argv[i]
                << "' is not a common option; options of a command go after its name\n"
                << Usage();
      return 2;
    }
    leading.push_back(argv[i]);
    if (takes_value) {
      if (i + 1 >= argc) {
        std::cerr << "weibo: error: invalid_argument: " << argv[i] << " needs a value\n";
        return 2;
      }
      leading.push_back(argv[++i]);
    }
  }
  if (i >= argc) {
    std::cerr << "weibo: error: invalid_argument: no command after the options\n" << Usage();
    return 2;
  }
  std::string command = std::string("weibo-") + argv[i];
  // The common options go after the command's own arguments (before a "--", if any), so
  // that they reach a subcommand too: `weibo --json bench run` is `weibo-bench run --json`.
  std::vector<char*> args;
  args.push_back(command.data());
  char** end =
      std::find_if(argv + i + 1, argv + argc, [](const char* a) { return std::string(a) == "--"; });
  args.insert(args.end(), argv + i + 1, end);
  args.insert(args.end(), leading.begin(), leading.end());
  args.insert(args.end(), end, argv + argc);
  args.push_back(nullptr);
  const std::string dir = SelfDir();
  if (!dir.empty()) {
    std::string local = dir + command;
    if (access(local.c_str(), X_OK) == 0) execv(local.c_str(), args.data());
  }
  execvp(command.c_str(), args.data());
  // No program of that name: an operation of the table is run here all the same.
  if (!OperationsOf(argv[i]).empty())
    return Main(argv[i], static_cast<int>(args.size()) - 1, args.data());
  std::cerr << "weibo: error: invalid_argument: '" << argv[i] << "' is not a weibo command\n";
  return 2;
}

}  // namespace weibo::cli
