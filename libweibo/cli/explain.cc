// weibo-explain(1): a dry run of any command of the operation table. The command line after
// "--" is parsed by that command's own Command (its options, its checks, its errors), and
// the request it builds is handed here instead of being run (Command::set_runner): it runs
// on a Snapshot of the data directory with the explain log on, and the log is printed
// grouped as weibo-sim's --explain groups it.
#include "cli/explain.h"

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <sstream>

#include "cli/table_command.h"
#include "ops/args.h"
#include "storage/failure.h"
#include "storage/shard_set.h"
#include "storage/snapshot.h"
#include "tables/outbox.h"
#include "weibo/cli.h"
#include "weibo/render.h"
#include "weibo/version.h"

namespace weibo::cli {
namespace {

constexpr const char* kProgram = "weibo-explain";
constexpr size_t kShownValueBytes = 60;  // the text output's longest value; JSON has all
constexpr const char* kNoDaemon =
    "--connect (or WEIBO_CONNECT): a dry run copies the cluster's files, which a client of "
    "weibod need not see; run weibo-explain where the files are, without it";

// text with every occurrence of from replaced by to.
std::string Replaced(std::string text, const std::string& from, const std::string& to) {
  for (size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size()))
    text.replace(at, from.size(), to);
  return text;
}

// An SQL literal's text: 'it''s' is it's.
std::string Unquoted(const std::string& literal) {
  if (literal.size() < 2 || literal.front() != '\'') return literal;
  return Replaced(literal.substr(1, literal.size() - 2), "''", "'");
}

// A long value cut at a code point boundary, its full length said.
std::string Shown(const std::string& value) {
  if (value.size() <= kShownValueBytes) return value;
  size_t cut = kShownValueBytes - 10;
  while (cut > 0 && (static_cast<unsigned char>(value[cut]) & 0xC0) == 0x80) --cut;
  return value.substr(0, cut) + "...(" + std::to_string(value.size()) + " bytes)";
}

std::string ShardName(int index) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "shard-%02d", index);
  return buf;
}

std::vector<const StatementRun*> RunsOf(const ExplainLog& log, const std::string& phase) {
  std::vector<const StatementRun*> runs;
  for (const StatementRun& run : log.runs())
    if (run.phase == phase) runs.push_back(&run);
  return runs;
}

struct Totals {
  std::vector<std::string> shards;  // in the order first touched
  int64_t rows_read = 0, rows_written = 0;
};

Totals TotalsOf(const std::vector<StatementGroup>& groups,
                const std::vector<const StatementRun*>& runs) {
  Totals t;
  for (const StatementRun* run : runs)
    if (std::find(t.shards.begin(), t.shards.end(), run->shard) == t.shards.end())
      t.shards.push_back(run->shard);
  for (const StatementGroup& g : groups) {
    t.rows_read += g.rows_read;
    t.rows_written += g.rows_written;
  }
  return t;
}

std::string Joined(const std::vector<std::string>& items, const char* separator) {
  std::string out;
  for (const std::string& item : items) out += (out.empty() ? "" : separator) + item;
  return out;
}

// One phase's statements: "N statements on M shards (...)", then each group as weibo-sim
// prints it, then each run of the group with its values and rows.
void PhaseText(const std::string& title, const std::vector<const StatementRun*>& runs,
               std::ostream& out) {
  const std::vector<StatementGroup> groups = GroupStatements(runs);
  const Totals t = TotalsOf(groups, runs);
  out << "-- " << title << ": " << runs.size() << " statements on " << t.shards.size()
      << (t.shards.size() == 1 ? " shard" : " shards") << " (" << Joined(t.shards, ", ")
      << "), rows read " << t.rows_read << ", written " << t.rows_written << "\n";
  for (const StatementGroup& g : groups) {
    out << "  " << g.runs.size() << "x on " << g.shards.size()
        << (g.shards.size() == 1 ? " shard:  " : " shards: ") << g.sql << "\n";
    for (const StatementRun* run : g.runs) {
      std::vector<std::string> shown;
      for (const std::string& v : run->values) shown.push_back(Shown(v));
      out << "      " << run->shard << " (" << Joined(shown, ", ") << ") read " << run->rows_read
          << " written " << run->rows_written << "\n";
    }
  }
}

Json PhaseJson(const std::vector<const StatementRun*>& runs) {
  const std::vector<StatementGroup> groups = GroupStatements(runs);
  const Totals t = TotalsOf(groups, runs);
  Json phase{{"shards", t.shards},
             {"statements", runs.size()},
             {"rows_read", t.rows_read},
             {"rows_written", t.rows_written},
             {"groups", Json::array()}};
  for (const StatementGroup& g : groups) {
    Json group{{"sql", g.sql},
               {"count", g.runs.size()},
               {"shards", g.shards},
               {"rows_read", g.rows_read},
               {"rows_written", g.rows_written},
               {"runs", Json::array()}};
    for (const StatementRun* run : g.runs)
      group["runs"].push_back({{"shard", run->shard},
                               {"values", run->values},
                               {"rows_read", run->rows_read},
                               {"rows_written", run->rows_written}});
    phase["groups"].push_back(std::move(group));
  }
  return phase;
}

// The strategy cluster.json records ("gene" when it records none: every cluster made
// before the field was).
std::string ClusterStrategy(const std::string& data_dir) {
  std::ifstream in(data_dir + "/cluster.json");
  Json j = Json::parse(in, nullptr, false);
  if (j.is_discarded() || !j.is_object()) return "gene";
  const Json& s = j.contains("strategy") ? j["strategy"] : Json("gene");
  return s.is_string() ? s.get<std::string>() : "gene";
}

// Why weibo-explain cannot run `words`, or an empty string when it can; *command is then
// the table command they name.
std::string Refusal(std::vector<std::string>& words, std::string* command) {
  if (words.empty())
    return "no command after '--': weibo-explain [OPTIONS] -- COMMAND [ARGS...], say "
           "weibo-explain -- weibo-post -u @alice hello";
  std::string name = words[0].substr(words[0].rfind('/') + 1);
  if (name == "weibo" && words.size() > 1) {  // `weibo post ...`, the dispatcher's form
    words.erase(words.begin());
    name = words[0];
  }
  if (name.rfind("weibo-", 0) == 0) name = name.substr(6);
  if (name == "explain") return "weibo-explain explains a command, not weibo-explain itself";
  if (name == "worker")
    return "weibo-worker drains every pending job and is not explained; weibo-explain "
           "--with-drain shows the drain of the jobs a command creates";
  if (!BuildCommand(name))
    return "'" + words[0] +
           "' is not a command of the operation table (weibo help lists them first: those "
           "weibo-explain can explain)";
  *command = name;
  return "";
}

// weibo-explain's options, for the runner of the command it explains.
struct Settings {
  std::string strategy;  // empty: the cluster's
  bool with_drain, json;
  Jq* filter;           // --jq, or nullptr
  std::string program;  // "weibo-post": the explained command, named in its own errors
};

// The runner handed to the explained command (Command::set_runner): its request, checked,
// run dry and printed; the exit status.
int Explain(const Command::Parsed& parsed, const Settings& settings) {
  const bool as_json = settings.json || parsed.json;
  if (!parsed.connect.empty())
    return ReportError(kProgram, Status(Code::kInvalidArgument, kNoDaemon), as_json);
  const OpSpec* op = FindOperation(parsed.request.op);
  if (op->local != nullptr)
    return ReportError(
        kProgram,
        Status(Code::kInvalidArgument,
               settings.program + " makes a cluster rather than running an operation on one; "
                                  "weibo-explain explains the operations of an existing one"),
        as_json);
  DryRun run;
  run.request = parsed.request;
  run.data_dir = parsed.data_dir;
  run.with_drain = settings.with_drain;
  // Checked before anything is copied. The request keeps its args as given (ids as strings
  // in the JSON); the executor checks them again.
  try {
    ValidateArgs(*op, parsed.request.args);
  } catch (const Failure& f) {
    return ReportError(settings.program, f.status(), as_json);
  }
  run.strategy = ClusterStrategy(run.data_dir);
  if (!settings.strategy.empty() && settings.strategy != run.strategy)
    return ReportError(
        kProgram,
        Status(Code::kInvalidArgument, "the cluster in " + run.data_dir + " is sharded by " +
                                           run.strategy + "; --strategy " + settings.strategy +
                                           " explains a cluster made with weibo-init --strategy " +
                                           settings.strategy),
        as_json);
  Status done = RunDry(&run);
  if (!done.ok()) return ReportError(settings.program, done, as_json);
  if (settings.filter != nullptr) {
    std::string out;
    Status filtered = settings.filter->Run(ExplainJson(run).dump(), &out);
    std::cout << out << std::flush;
    return filtered.ok() ? 0 : ReportError(kProgram, filtered, true);
  }
  std::cout << (as_json ? ExplainJson(run).dump() + "\n" : ExplainText(run)) << std::flush;
  return 0;
}

}  // namespace

Status RunDry(DryRun* run) {
  try {
    Snapshot snapshot(run->data_dir);
    Status status;
    {
      EmbeddedOptions options;
      options.data_dir = snapshot.dir();
      options.explain = true;
      options.explain_log = &run->log;
      options.drain = run->with_drain;
      std::unique_ptr<Executor> executor = OpenEmbedded(options);
      Result<Json> result = executor->Execute(run->request);
      if (result.ok())
        run->result = result.value();
      else
        status = result.status();
    }  // the executor closes the copy's shards before the copy goes
    if (!status.ok())
      return Status(status.code(), Replaced(status.message(), snapshot.dir(), run->data_dir));
    return Status::Ok();
  } catch (const Failure& f) {
    return f.status();
  }
}

std::vector<PlannedJob> PlannedJobs(const ExplainLog& log) {
  std::vector<PlannedJob> jobs;
  for (const StatementRun& run : log.runs()) {
    if (!run.phase.empty() || run.sql != kInsertJobSql || run.values.size() != 4) continue;
    PlannedJob job;
    job.source = run.shard;
    job.target = ShardName(std::atoi(run.values[0].c_str()));
    job.kind = Unquoted(run.values[1]);
    job.payload = Json::parse(Unquoted(run.values[2]), nullptr, false);
    if (job.payload.is_discarded()) job.payload = Unquoted(run.values[2]);
    jobs.push_back(std::move(job));
  }
  return jobs;
}

std::string ExplainText(const DryRun& run) {
  std::ostringstream out;
  out << "-- weibo-explain: " << run.request.op << " (strategy " << run.strategy
      << "), a dry run on a copy of " << run.data_dir << ": nothing in it was changed\n";
  out << RenderText(run.request.op, run.result);
  PhaseText(run.request.op, RunsOf(run.log, ""), out);
  const std::vector<PlannedJob> jobs = PlannedJobs(run.log);
  out << "-- outbox: " << jobs.size() << (jobs.size() == 1 ? " job" : " jobs") << "\n";
  for (const PlannedJob& job : jobs)
    out << "  " << job.source << " -> " << job.target << " " << job.kind << " "
        << job.payload.dump() << "\n";
  if (!run.with_drain || run.request.async)
    out << "-- drain: not run (--with-drain shows it)\n";
  else
    PhaseText("drain", RunsOf(run.log, "drain"), out);
  return out.str();
}

Json ExplainJson(const DryRun& run) {
  Json jobs = Json::array();
  for (const PlannedJob& job : PlannedJobs(run.log))
    jobs.push_back({{"source", job.source},
                    {"target", job.target},
                    {"kind", job.kind},
                    {"payload", job.payload}});
  const bool drained = run.with_drain && !run.request.async;
  return Json{{"op", run.request.op},
              {"args", run.request.args},
              {"data", run.data_dir},
              {"strategy", run.strategy},
              {"result", run.result},
              {"run", PhaseJson(RunsOf(run.log, ""))},
              {"jobs", std::move(jobs)},
              {"drain", drained ? PhaseJson(RunsOf(run.log, "drain")) : Json(nullptr)}};
}

int ExplainMain(int argc, char** argv) {
  CLI::App app("Dry-run a command: the shards, statements, rows and jobs it would touch", kProgram);
  app.set_version_flag("--version", std::string(kProgram) + " " + kVersion);
  std::string strategy, data_dir = "./shards", now, jq;
  bool json = false, with_drain = false;
  std::vector<std::string> words;
  app.add_option("--strategy", strategy,
                 "explain under this sharding strategy: gene, uid-mapping or tid; default: the "
                 "cluster's")
      ->type_name("S");
  app.add_flag("--with-drain", with_drain,
               "also run the drain of the jobs the command creates, as the command would, and "
               "show its statements");
  app.add_flag("--json", json, "print one JSON object (weibo-explain(1), OUTPUT)");
  app.add_option("--jq", jq,
                 "print what the jq expression EXPR makes of the JSON object, a string as its "
                 "text (implies --json)")
      ->type_name("EXPR");
  CLI::Option* data_option = AddDataOption(app, &data_dir);
  app.add_option("--now", now, "fixed clock for the command, as its own --now")
      ->envname("WEIBO_NOW")
      ->type_name("TIME");
  app.add_option("COMMAND", words, "the command line to explain, after '--'");
  if (auto exit = ParseArgs(app, argc, argv, [&] { return json || !jq.empty(); })) return *exit;
  json = json || !jq.empty();
  std::unique_ptr<Jq> filter;
  if (!jq.empty()) {  // compiled first: a mistyped filter explains nothing
    filter = std::make_unique<Jq>(jq);
    Status compiled = filter->Check();
    if (!compiled.ok()) return ReportError(kProgram, compiled, true);
  }
  if (!strategy.empty()) {
    try {
      CheckStrategy(strategy);
    } catch (const Failure& f) {
      return ReportError(kProgram, f.status(), json);
    }
  }
  std::string command;
  const std::string refused = Refusal(words, &command);
  if (!refused.empty()) return ReportError(kProgram, Status(Code::kInvalidArgument, refused), json);
  // The command's own parse finds --data and --now as it always does; given to
  // weibo-explain, they are where it looks when its command line has none.
  if (data_option->count() > 0) setenv("WEIBO_DATA", data_dir.c_str(), 1);
  if (!now.empty()) setenv("WEIBO_NOW", now.c_str(), 1);
  std::unique_ptr<TableCommand> built = BuildCommand(command);
  const Settings settings{strategy, with_drain, json, filter.get(), "weibo-" + command};
  built->cmd->set_runner([&](const Command::Parsed& parsed) { return Explain(parsed, settings); });
  std::vector<char*> inner;
  words[0] = settings.program;  // the command's own name in its messages and --help
  for (std::string& w : words) inner.push_back(&w[0]);
  inner.push_back(nullptr);
  return RunTableCommand(*built, static_cast<int>(inner.size()) - 1, inner.data());
}

}  // namespace weibo::cli
