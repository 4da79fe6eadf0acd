// Command: the common options of every weibo-* command, and running its Request.
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <iterator>
#include <memory>
#include <sstream>
#include <thread>
#include <vector>

#include "flows/avatar_image.h"
#include "ops/args.h"
#include "storage/failure.h"
#include "weibo/cli.h"
#include "weibo/render.h"
#include "weibo/time.h"
#include "weibo/version.h"

namespace weibo::cli {

Command::Command(std::string name, std::string description)
    : name_(std::move(name)), app_(std::move(description), name_) {
  // Common options may follow a subcommand ("weibo-user add NAME --json").
  app_.fallthrough();
  // The command's own options come first in --help ("Options:", where CLI11 puts -h), the
  // ones every command shares after them.
  const std::string common = "Common options";
  app_.set_version_flag("--version", std::string(name_) + " " + kVersion)->group(common);
  data_option_ = AddDataOption(app_, &data_dir_)->group(common);
  app_.add_option("--connect", connect_,
                  "send the request to the weibod daemon at this ZeroMQ endpoint")
      ->envname("WEIBO_CONNECT")
      ->type_name("ENDPOINT")
      ->group(common);
  app_.add_option("--timeout", timeout_ms_,
                  "with --connect: milliseconds to wait for the reply (1 to 3600000)")
      ->envname("WEIBO_TIMEOUT")
      ->type_name("MS")
      ->check(CLI::Range(1, 3600000).description(""))
      ->capture_default_str()
      ->group(common);
  app_.add_option("--now", now_,
                  "fixed clock: epoch seconds or ISO 8601, seconds may have a fraction (golden "
                  "tests)")
      ->envname("WEIBO_NOW")
      ->type_name("TIME")
      ->group(common);
  app_.add_option("--token", token_, "access token sent with --connect (weibod --auth checks it)")
      ->envname("WEIBO_TOKEN")
      ->type_name("TOKEN")
      ->group(common);
  app_.add_flag("--json", json_, "print one JSON object (lists as one JSON array)")->group(common);
  app_.add_flag("--jsonl", jsonl_, "print lists as JSON Lines, one object a line")->group(common);
  app_.add_option("--jq", jq_,
                  "print what the jq expression EXPR makes of the JSON output, a string as "
                  "its text (implies --json)")
      ->type_name("EXPR")
      ->group(common);
  app_.add_flag("--async", async_, "return before the outbox jobs this write created are applied")
      ->group(common);
  app_.add_flag("--explain", explain_, "after the result, print each shard and statement touched")
      ->group(common);
  app_.add_flag("--progress", progress_,
                "report a long run's progress on standard error even when it is not a terminal "
                "(fsck, the worker)")
      ->group(common);
}

std::string Command::Content(const std::string& arg) {
  if (arg != "-") return arg;
  // Never more than content can be: kMaxContent code points of at most 4 bytes, and the
  // line end dropped below. One byte more proves the input too long without reading the
  // rest of it (a gigabyte piped in stays in the pipe).
  constexpr size_t kMaxBytes = kMaxContent * 4 + 2;
  std::string text(kMaxBytes + 1, '\0');
  std::cin.read(&text[0], static_cast<std::streamsize>(text.size()));
  text.resize(static_cast<size_t>(std::cin.gcount()));
  if (text.size() > kMaxBytes)
    weibo::Fail(Code::kContentTooLong, "standard input holds more than " +
                                           std::to_string(kMaxBytes) + " bytes, more than " +
                                           std::to_string(kMaxContent) +
                                           " characters can take; the rest was not read");
  if (!text.empty() && text.back() == '\n') text.pop_back();
  if (!text.empty() && text.back() == '\r') text.pop_back();
  return text;
}

namespace {

// The users of a list file, want of them a line: blank lines and lines starting with # are
// skipped, a comma separates like a blank. invalid_argument names the file (what) if it
// cannot be read, and a line with another number of users.
Json UserLines(const std::string& path, const char* what, size_t want, const char* shape) {
  std::ifstream file;
  if (path != "-") {
    file.open(path);
    if (!file) weibo::Fail(Code::kInvalidArgument, std::string("cannot read ") + what + " " + path);
  }
  std::istream& in = path == "-" ? std::cin : file;
  Json rows = Json::array();
  std::string line;
  for (int64_t number = 1; std::getline(in, line); ++number) {
    std::replace(line.begin(), line.end(), ',', ' ');
    std::istringstream words(line);
    std::vector<std::string> users;
    for (std::string w; words >> w;) users.push_back(w);
    if (users.empty() || users[0][0] == '#') continue;
    if (users.size() != want)
      weibo::Fail(Code::kInvalidArgument,
                  path + ": line " + std::to_string(number) + ": want " + shape);
    rows.push_back(want == 1 ? Json(users[0]) : Json(users));
  }
  return rows;
}

}  // namespace

Json Command::EdgeList(const std::string& path) {
  return UserLines(path, "edge list", 2, "two users, FOLLOWER TARGET");
}

Json Command::UserList(const std::string& path) {
  return UserLines(path, "user list", 1, "one user, an id or @name");
}

std::string Command::FileContent(const std::string& path) {
  struct stat st;
  if (stat(path.c_str(), &st) != 0)
    weibo::Fail(Code::kNotFound, "cannot read " + path + ": " + std::strerror(errno));
  if (S_ISDIR(st.st_mode))
    weibo::Fail(Code::kInvalidArgument, path + " is a directory, not a file");
  std::ifstream in(path, std::ios::binary);
  // One byte past the limit proves a file too large without reading the rest (a FIFO or
  // /dev/zero has no size to stat).
  std::string bytes(kMaxFileBytes + 1, '\0');
  in.read(&bytes[0], static_cast<std::streamsize>(bytes.size()));
  if (in.bad() || (!in && !in.eof()))
    weibo::Fail(Code::kNotFound, "cannot read " + path + ": " + std::strerror(errno));
  bytes.resize(static_cast<size_t>(in.gcount()));
  if (bytes.empty()) weibo::Fail(Code::kInvalidArgument, path + " is empty (0 bytes)");
  if (bytes.size() > kMaxFileBytes)
    weibo::Fail(Code::kRequestTooLarge,
                path + " holds more than " + std::to_string(kMaxFileBytes) + " bytes, the limit");
  return EncodeBase64(bytes);
}

int Command::Fail(Code code, const std::string& message) {
  return ReportError(name_, Status(code, message), json_ || jsonl_ || !jq_.empty());
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
    if (progress_bar_) progress_bar_->Clear();
    if (!result.ok()) return Fail(result.status().code(), result.status().message());
    bool worked = result.value().value("applied", int64_t{0}) != 0;
    if (worked) {
      std::string out;
      if (jq_filter_) {
        Status filtered = jq_filter_->Run(result.value().dump(), &out);
        if (!filtered.ok()) return Fail(filtered.code(), filtered.message());
      } else {
        out =
            json_ || jsonl_ ? result.value().dump() + "\n" : RenderText(request.op, result.value());
      }
      std::cout << out << std::flush;
    }
    if (!worked) std::this_thread::sleep_for(std::chrono::milliseconds(repeat_ms_));
  }
  return 0;
}

int Command::Run(int argc, char** argv, const std::function<Request()>& build) {
  if (auto exit = ParseArgs(app_, argc, argv, [this] { return json_ || jsonl_ || !jq_.empty(); }))
    return *exit;
  if (!jq_.empty()) {
    // Compiled before the request runs, so that a mistyped filter changes nothing.
    jq_filter_ = std::make_unique<Jq>(jq_);
    Status compiled = jq_filter_->Check();
    if (!compiled.ok()) return Fail(compiled.code(), compiled.message());
  }
  int64_t now_ms = 0;
  if (!now_.empty()) {
    // Message ids count milliseconds from 2020-01-01 in 41 bits (the gene method), and
    // the last whole week of them is the last a clock may be in (weibo/time.h).
    auto ms = ParseClock(now_);
    if (!ms)
      return Fail(Code::kInvalidArgument, "--now must be epoch seconds or ISO 8601 " +
                                              ClockRange() + ", not '" + now_ + "'");
    now_ms = *ms;
  }
  Request request;
  try {
    request = build();
  } catch (const Failure& f) {  // Content(): standard input too long
    return Fail(f.status().code(), f.status().message());
  } catch (const std::exception& e) {
    return Fail(Code::kInvalidArgument, e.what());
  }
  request.now_ms = now_ms;
  request.async = async_;
  // init creates ./shards where it is run; every other op finds the cluster (DataDir).
  const OpSpec* spec = FindOperation(request.op);
  const std::string data_dir =
      spec != nullptr && spec->local != nullptr && data_option_->count() == 0
          ? data_dir_
          : DataDir(data_option_, data_dir_);
  if (runner_) return runner_(Parsed{request, data_dir, connect_, json_ || jsonl_ || !jq_.empty()});
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
    // A bar on a terminal (or forced) for the ops that say how far they are: fsck, drain.
    progress_bar_ = std::make_unique<Progress>(progress_);
    options.progress = [this, stage = std::string()](const char* now, int64_t done,
                                                     int64_t total) mutable {
      if (stage != now) progress_bar_->Stage(stage = now, total);
      progress_bar_->Step(done);
    };
    options.data_dir = data_dir;
    options.explain = explain_;
    executor = OpenEmbedded(options);
  }
  if (repeat_ms_ > 0) return Repeat(*executor, request);
  // --json prints what an op writing its result as text (count) wrote, byte for byte the
  // dump of its Json (Executor::ExecuteForReply): through a daemon, the reply's own bytes.
  std::string text;
  const bool plain_json = json_ && !jsonl_ && !jq_filter_;
  Result<Json> result =
      plain_json ? executor->ExecuteForReply(request, &text) : executor->Execute(request);
  if (progress_bar_) progress_bar_->Clear();
  if (!result.ok()) return Fail(result.status().code(), result.status().message());
  const Json& value = result.value();
  if (!text.empty()) {
    std::cout << text << "\n";
  } else if (jq_filter_) {
    std::string out;
    Status filtered = jq_filter_->Run(value.dump(), &out);
    std::cout << out << std::flush;
    if (!filtered.ok()) return Fail(filtered.code(), filtered.message());
  } else if (jsonl_ && value.is_array()) {
    for (const auto& item : value) std::cout << item.dump() << "\n";
  } else if (json_ || jsonl_) {
    std::cout << value.dump() << "\n";
  } else {
    std::cout << RenderText(request.op, value);
  }
  if (explain_) {
    // Keep stdout pure JSON when JSON was asked for.
    std::ostream& out = json_ || jsonl_ || jq_filter_ ? std::cerr : std::cout;
    out << "-- explain: " << request.op << "\n";
    for (const auto& line : executor->Explain()) out << line << "\n";
  }
  std::cout.flush();
  // A write that committed but left outbox jobs pending succeeded: the result above, exit
  // 0, and the warning on stderr (weibo(7), WRITES THAT LEAVE JOBS PENDING).
  for (const auto& warning : executor->Warnings())
    ReportWarning(name_, warning, json_ || jsonl_ || jq_filter_);
  // A report whose "ok" is false (weibo-fsck found violations) exits 1.
  return value.is_object() && value.value("ok", true) == false ? 1 : 0;
}

}  // namespace weibo::cli
