// The command-line edge shared by every weibo program (weibo(7), COMMAND-LINE
// CONVENTIONS): the common options, options built from the operation table, content from an
// argument or stdin, running the Request, rendering, and reporting a Status as
// "weibo-x: error: <code>: <message>" with its exit status. A weibo-* command is one line:
// Main("post", argc, argv).
#ifndef WEIBO_CLI_H_
#define WEIBO_CLI_H_

#include <CLI/CLI.hpp>
#include <chrono>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "weibo/ops.h"
#include "weibo/request.h"

struct jq_state;  // libjq's (jq.h)

namespace weibo::cli {

// Prints status to standard error as "<program>: error: <code>: <message>" or, with
// json, as {"error":{"code":...,"message":...}}; returns the exit status of its code.
int ReportError(const std::string& program, const Status& status, bool json = false);
// Prints a warning of a request that succeeded (a committed write whose outbox jobs are
// left pending, Executor::Warnings) to standard error as "<program>: warning: <message>"
// or, with json, as {"warning":{"message":...}}.
void ReportWarning(const std::string& program, const std::string& message, bool json = false);

// Parses argv into app. nullopt: go on. Otherwise the program exits with the value: 0
// once --help or --version printed, else the parse error's, reported by ReportError
// (as JSON when json() says so after the parse) as invalid_argument with a pointer to
// "<app name> --help".
std::optional<int> ParseArgs(CLI::App& app, int argc, char** argv,
                             const std::function<bool()>& json = nullptr);

// --data DIR with WEIBO_DATA, as every program spells it; DataDir gives the directory.
CLI::Option* AddDataOption(CLI::App& app, std::string* dir);
// The data directory when neither --data nor WEIBO_DATA names one: shards/ in the working
// directory or, as git finds .git, in the nearest directory above it that has a
// shards/cluster.json; "./shards" when none has.
std::string FindDataDir();
// given when option (AddDataOption's) was set, by --data or WEIBO_DATA; else FindDataDir().
std::string DataDir(const CLI::Option* option, const std::string& given);

// --jq EXPR: a jq program (jq's own library) compiled once and run over JSON text; each
// output goes on a line of its own, a string as its text, anything else as compact JSON
// (as gh --jq, or jq -r, prints).
class Jq {
 public:
  explicit Jq(const std::string& expression);
  ~Jq();
  Jq(const Jq&) = delete;
  Jq& operator=(const Jq&) = delete;
  // invalid_argument when the expression did not compile, with jq's message.
  Status Check() const;
  // Appends the outputs to *out; invalid_argument on jq's runtime error (the outputs
  // before it are appended all the same).
  Status Run(const std::string& json, std::string* out);

 private:
  jq_state* state_ = nullptr;
  std::string error_;
};

// A one-line progress bar of a long run (weibo-bench, weibo-sim, weibo-fsck, weibo-worker)
// on standard error. On a terminal it is drawn in place, and only once the run has lasted
// two seconds, so short runs never show it; elsewhere (a pipe, a CI log) nothing, unless
// forced (--progress): then a plain line as each stage starts and at each tenth of it.
class Progress {
 public:
  explicit Progress(bool force = false);  // the run starts now
  // A new stage ("push: setup") of total steps (0: of unknown length).
  void Stage(const std::string& label, int64_t total);
  void Step(int64_t done);  // cheap: draws at most ten times a second
  void Clear();             // erases the bar, if one was drawn

 private:
  using Clock = std::chrono::steady_clock;
  bool terminal_, enabled_;
  bool drawn_ = false;
  int last_tenth_ = -1;
  Clock::time_point start_, last_draw_;
  std::string label_;
  int64_t total_ = 0;
};

// weibo-sql (weibo-sql(1)): a read-only SQL query over one shard or every shard.
int SqlMain(int argc, char** argv);
// weibo-explain (weibo-explain(1)): a dry run of another command's line, nothing changed.
int ExplainMain(int argc, char** argv);

// The options of one operation's arguments, as its ArgSpecs spell them (flag, default,
// environment variable, help), added to a CLI11 app or subcommand.
class OpOptions {
 public:
  OpOptions(const OpSpec& op, CLI::App* app);
  OpOptions(const OpOptions&) = delete;  // CLI11 holds pointers to the values
  OpOptions& operator=(const OpOptions&) = delete;

  const OpSpec& op() const { return op_; }
  CLI::App* app() const { return app_; }
  // The request's args once app has parsed: every argument given, every default and every
  // flag; content "-" is read from standard input (Command::Content), a file argument's
  // file is read (Command::FileContent).
  Json Args() const;

 private:
  struct Value {
    const ArgSpec* spec;
    CLI::Option* option = nullptr;
    std::string text;
    int number = 0;
    bool flag = false;
    std::vector<std::string> list;
  };
  const OpSpec& op_;
  CLI::App* app_;
  std::deque<Value> values_;  // a deque: the addresses CLI11 writes to stay put
};

class Command {
 public:
  Command(std::string name, std::string description);

  CLI::App& app() { return app_; }
  // Content is the argument itself, or standard input when it is "-" (one trailing
  // newline is dropped). Standard input is read up to what 140 code points can take
  // (562 bytes); more throws content_too_long without reading the rest.
  static std::string Content(const std::string& arg);
  // The [follower, target] pairs of an edge-list file, or of standard input for "-": one
  // pair a line, two users (ids or @names) separated by blanks or a comma; blank lines
  // and lines starting with # are skipped. invalid_argument names a bad line.
  static Json EdgeList(const std::string& path);
  // The users of a user-list file (weibo-follow --from-file), or of standard input for "-":
  // one id or @name a line, skipping blank lines and lines starting with #.
  static Json UserList(const std::string& path);
  // The bytes of the file at path, base64-encoded (a kFile argument, weibo/ops.h): read
  // here, so that a daemon gets the bytes and never a path of the client's. A missing
  // file is not_found; a directory or an empty file invalid_argument; more than
  // kMaxFileBytes request_too_large, without reading the rest.
  static std::string FileContent(const std::string& path);

  // Parses argv, runs the request build() returns, prints the result; returns the exit
  // status. Lists print as one JSON array with --json, one object a line with --jsonl.
  int Run(int argc, char** argv, const std::function<Request()>& build);

  // What Run hands a runner (set_runner): the request, parsed and built as this command
  // builds it, and where this command would have run it.
  struct Parsed {
    const Request& request;
    std::string data_dir;  // the cluster's, as this command finds it (--data, WEIBO_DATA)
    std::string connect;   // --connect or WEIBO_CONNECT; empty: embedded
    bool json;             // --json, --jsonl or --jq was given
  };
  // Makes Run hand the request to runner instead of running it, and return runner's exit
  // status: weibo-explain(1)'s dry run of this command line.
  void set_runner(std::function<int(const Parsed&)> runner) { runner_ = std::move(runner); }

  // Makes Run repeat the request every interval_ms until SIGTERM or SIGINT, printing only
  // results whose "applied" count is not 0 (weibo-worker). An error still stops it.
  void set_repeat(int interval_ms) { repeat_ms_ = interval_ms; }

 private:
  int Fail(Code code, const std::string& message);
  int Repeat(Executor& executor, const Request& request);
  std::string name_;
  CLI::App app_;
  std::string data_dir_ = "./shards";
  CLI::Option* data_option_ = nullptr;  // --data / WEIBO_DATA (AddDataOption)
  std::string connect_;                 // a daemon's endpoint: run the request there (--connect)
  int timeout_ms_ = 10000;              // with connect_: the whole wait for a reply
  std::string now_;
  std::string token_;
  std::string jq_;                 // --jq EXPR
  std::unique_ptr<Jq> jq_filter_;  // compiled from jq_ once parsed
  bool progress_ = false;          // --progress
  std::unique_ptr<Progress> progress_bar_;
  bool json_ = false, jsonl_ = false, async_ = false, explain_ = false;
  int repeat_ms_ = 0;
  std::function<int(const Parsed&)> runner_;
};

// Two example command lines of an operation, for the end of its --help: its required
// arguments with sample values, then with its first optional one and --json.
std::vector<std::string> Examples(const std::string& program, const OpSpec& op);
// "Examples:" and the lines, indented as CLI11 indents its sections.
std::string ExamplesFooter(const std::vector<std::string>& examples);

// The operations a command runs: the one whose OpSpec::command is `command`, or those
// whose command is `command` and a subcommand ("user" runs "user add", "user show", ...).
std::vector<const OpSpec*> OperationsOf(const std::string& command);

// weibo-<command>, built from the operation table: its options from the ArgSpecs, its
// --help from the summaries (description, when given, heads a command of subcommands).
int Main(const std::string& command, int argc, char** argv, const char* description = nullptr);

// `weibo completion SHELL`: a completion script for bash, zsh or fish, made from the
// operation table (commands, options, feed modes, @names of the cluster), on out; 2 and
// a message for another shell.
int PrintCompletion(const std::string& shell, std::ostream& out);

// `weibo NAME ARGS...`: runs weibo-NAME from the directory of this program, else PATH,
// else, when the operation table has the command NAME, Main(NAME) in this process.
int Dispatch(int argc, char** argv);

}  // namespace weibo::cli

#endif  // WEIBO_CLI_H_
