// The command-line edge shared by every weibo-* program (weibo(7), COMMAND-LINE
// CONVENTIONS): common options, reading content from an argument or stdin, running the
// Request, rendering, and mapping a Status to "weibo-x: error: <code>: <message>" and an
// exit status. A command only declares its own options and builds its Request.
#ifndef WEIBO_CLI_H_
#define WEIBO_CLI_H_

#include <CLI/CLI.hpp>
#include <functional>
#include <string>

#include "weibo/request.h"

namespace weibo::cli {

class Command {
 public:
  Command(std::string name, std::string description);

  CLI::App& app() { return app_; }
  // -u/--user U (env WEIBO_USER), required: an id or @name.
  void AddUser(std::string* user);
  // Content is the argument itself, or standard input when it is "-" (one trailing
  // newline is dropped).
  static std::string Content(const std::string& arg);

  // Parses argv, runs the request build() returns, prints the result; returns the exit
  // status. Lists print as one JSON array with --json, one object a line with --jsonl.
  int Run(int argc, char** argv, const std::function<Request()>& build);

  // Makes Run repeat the request every interval_ms until SIGTERM or SIGINT, printing only
  // results whose "applied" count is not 0 (weibo-worker). An error still stops it.
  void set_repeat(int interval_ms) { repeat_ms_ = interval_ms; }

 private:
  int Fail(Code code, const std::string& message);
  int Repeat(Executor& executor, const Request& request);
  std::string name_;
  CLI::App app_;
  std::string data_dir_ = "./shards";
  std::string connect_;     // a daemon's endpoint: run the request there (--connect)
  int timeout_ms_ = 10000;  // with connect_: the whole wait for a reply
  std::string now_;
  std::string token_;
  bool json_ = false, jsonl_ = false, async_ = false, explain_ = false;
  int repeat_ms_ = 0;
};

// `weibo NAME ARGS...`: runs weibo-NAME from the directory of this program, else PATH.
int Dispatch(int argc, char** argv);

}  // namespace weibo::cli

#endif  // WEIBO_CLI_H_
