// `weibo [COMMON_OPTION...] COMMAND [ARGS...]`, git-style: runs weibo-COMMAND. The common
// options it accepts before COMMAND are the ones every Command declares (command.cc).
#include <unistd.h>

#include <iostream>
#include <sstream>

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

}  // namespace

int Dispatch(int argc, char** argv) {
  if (argc < 2 || std::string(argv[1]) == "--help" || std::string(argv[1]) == "-h") {
    std::cout << Usage();
    return argc < 2 ? 2 : 0;
  }
  if (std::string(argv[1]) == "--version") {
    std::cout << "weibo " << kVersion << "\n";
    return 0;
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
  char self[4096];
  ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
  std::vector<char*> args;
  args.push_back(command.data());
  args.insert(args.end(), leading.begin(), leading.end());
  args.insert(args.end(), argv + i + 1, argv + argc);
  args.push_back(nullptr);
  if (n > 0) {
    self[n] = '\0';
    std::string dir(self);
    dir = dir.substr(0, dir.rfind('/') + 1);
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
