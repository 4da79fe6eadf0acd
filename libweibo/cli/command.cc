#include <unistd.h>

#include <chrono>
#include <csignal>
#include <cstdlib>
#include <iostream>
#include <iterator>
#include <thread>

#include "storage/clock.h"
#include "storage/gene_id.h"
#include "weibo/cli.h"
#include "weibo/render.h"
#include "weibo/version.h"

namespace weibo::cli {

Command::Command(std::string name, std::string description)
    : name_(std::move(name)), app_(std::move(description), name_) {
  // Common options may follow a subcommand ("weibo-user add NAME --json").
  app_.fallthrough();
  app_.set_version_flag("--version", std::string(name_) + " " + kVersion);
  app_.add_option("--data", data_dir_, "data directory holding cluster.json and the shards")
      ->envname("WEIBO_DATA")
      ->capture_default_str();
  app_.add_option("--connect", connect_,
                  "send the request to the weibod daemon at this ZeroMQ endpoint")
      ->envname("WEIBO_CONNECT")
      ->type_name("ENDPOINT");
  app_.add_option("--timeout", timeout_ms_,
                  "with --connect: milliseconds to wait for the reply (1 to 3600000)")
      ->envname("WEIBO_TIMEOUT")
      ->type_name("MS")
      ->check(CLI::Range(1, 3600000).description(""))
      ->capture_default_str();
  app_.add_option("--now", now_, "fixed clock: epoch seconds or ISO 8601 (golden tests)")
      ->envname("WEIBO_NOW");
  app_.add_option("--token", token_, "access token sent with --connect (not checked yet)")
      ->envname("WEIBO_TOKEN");
  app_.add_flag("--json", json_, "print one JSON object (lists as one JSON array)");
  app_.add_flag("--jsonl", jsonl_, "print lists as JSON Lines, one object a line");
  app_.add_flag("--async", async_, "return before the outbox jobs this write created are applied");
  app_.add_flag("--explain", explain_, "after the result, print each shard and statement touched");
}

void Command::AddUser(std::string* user) {
  app_.add_option("-u,--user", *user, "the acting user: an id or @name")
      ->envname("WEIBO_USER")
      ->required();
}

std::string Command::Content(const std::string& arg) {
  if (arg != "-") return arg;
  std::string text((std::istreambuf_iterator<char>(std::cin)), std::istreambuf_iterator<char>());
  if (!text.empty() && text.back() == '\n') text.pop_back();
  if (!text.empty() && text.back() == '\r') text.pop_back();
  return text;
}

int Command::Fail(Code code, const std::string& message) {
  if (json_ || jsonl_)
    std::cerr << Json{{"error", {{"code", CodeName(code)}, {"message", message}}}}.dump() << "\n";
  else
    std::cerr << name_ << ": error: " << CodeName(code) << ": " << message << "\n";
  return ExitStatus(code);
}

namespace {
volatile std::sig_atomic_t g_stop = 0;
void OnStopSignal(int) { g_stop = 1; }
}  // namespace

int Command::Repeat(Executor& executor, const Request& request) {
  std::signal(SIGTERM, OnStopSignal);
  std::signal(SIGINT, OnStopSignal);
  while (!g_stop) {
    Result<Json> result = executor.Execute(request);
    if (!result.ok()) return Fail(result.status().code(), result.status().message());
    bool worked = result.value().value("applied", int64_t{0}) != 0;
    if (worked)
      std::cout << (json_ || jsonl_ ? result.value().dump() + "\n"
                                    : RenderText(request.op, result.value()))
                << std::flush;
    if (!worked) std::this_thread::sleep_for(std::chrono::milliseconds(repeat_ms_));
  }
  return 0;
}

int Command::Run(int argc, char** argv, const std::function<Request()>& build) {
  try {
    app_.parse(argc, argv);
  } catch (const CLI::Success& e) {
    return app_.exit(e);
  } catch (const CLI::ParseError& e) {
    std::string message = e.what();
    return Fail(Code::kInvalidArgument, message + " (see " + name_ + " --help)");
  }
  int64_t now_ms = 0;
  if (!now_.empty()) {
    auto ms = ParseTime(now_);
    // Message ids count milliseconds from 2020-01-01 in 41 bits (the gene method), and
    // the last whole week of them is the last a clock may be in (storage/gene_id.h).
    if (!ms || !ClockInRange(*ms))
      return Fail(Code::kInvalidArgument, "--now must be epoch seconds or ISO 8601 " +
                                              ClockRange() + ", not '" + now_ + "'");
    now_ms = *ms;
  }
  Request request;
  try {
    request = build();
  } catch (const std::exception& e) {
    return Fail(Code::kInvalidArgument, e.what());
  }
  request.now_ms = now_ms;
  request.async = async_;
  // The same request, run here or by a daemon: only the executor differs (STYLE rule 2).
  std::unique_ptr<Executor> executor;
  if (!connect_.empty()) {
    RemoteOptions options;
    options.endpoint = connect_;
    options.timeout_ms = timeout_ms_;
    options.token = token_;
    options.explain = explain_;
    executor = OpenRemote(options);
  } else {
    EmbeddedOptions options;
    options.data_dir = data_dir_;
    options.explain = explain_;
    executor = OpenEmbedded(options);
  }
  if (repeat_ms_ > 0) return Repeat(*executor, request);
  Result<Json> result = executor->Execute(request);
  if (!result.ok()) return Fail(result.status().code(), result.status().message());
  const Json& value = result.value();
  if (jsonl_ && value.is_array()) {
    for (const auto& item : value) std::cout << item.dump() << "\n";
  } else if (json_ || jsonl_) {
    std::cout << value.dump() << "\n";
  } else {
    std::cout << RenderText(request.op, value);
  }
  if (explain_) {
    // Keep stdout pure JSON when JSON was asked for.
    std::ostream& out = json_ || jsonl_ ? std::cerr : std::cout;
    out << "-- explain: " << request.op << "\n";
    for (const auto& line : executor->Explain()) out << line << "\n";
  }
  std::cout.flush();
  // A report whose "ok" is false (weibo-fsck found violations) exits 1.
  return value.is_object() && value.value("ok", true) == false ? 1 : 0;
}

// The common options (weibo(7)) that `weibo` accepts before the command name and passes
// on after it: `weibo --data DIR fsck` runs `weibo-fsck --data DIR`. The ones in
// kValued take a value, as the next argument or after '='.
static bool IsCommonOption(const std::string& arg, bool* takes_value) {
  static const char* const kValued[] = {"--data", "--connect", "--timeout", "--now", "--token"};
  static const char* const kFlags[] = {"--json", "--jsonl", "--async", "--explain"};
  for (const char* o : kValued) {
    if (arg == o) return *takes_value = true;
    if (arg.rfind(std::string(o) + "=", 0) == 0) return !(*takes_value = false);
  }
  *takes_value = false;
  for (const char* o : kFlags)
    if (arg == o) return true;
  return false;
}

int Dispatch(int argc, char** argv) {
  const char* usage =
      "usage: weibo [COMMON_OPTION...] COMMAND [ARGS...]\n"
      "Runs weibo-COMMAND ARGS.... Common options (--data, --connect, --timeout, --now,\n"
      "--token, --json, --jsonl, --async, --explain) may come before COMMAND and are\n"
      "passed on to it. See weibo(1) and weibo(7), and `weibo-COMMAND --help`.\n";
  if (argc < 2 || std::string(argv[1]) == "--help" || std::string(argv[1]) == "-h") {
    std::cout << usage;
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
                << usage;
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
    std::cerr << "weibo: error: invalid_argument: no command after the options\n" << usage;
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
  std::cerr << "weibo: error: invalid_argument: '" << argv[i] << "' is not a weibo command\n";
  return 2;
}

}  // namespace weibo::cli
