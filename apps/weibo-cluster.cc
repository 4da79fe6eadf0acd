// weibo-cluster: start, inspect and stop a laptop cluster of weibod nodes and a broker
// (man/weibo-cluster.1). Everything is libweibo's ClusterUp/ClusterStatus/ClusterDown.
#include <CLI/CLI.hpp>
#include <iostream>
#include <memory>

#include "weibo/cli.h"
#include "weibo/cluster.h"
#include "weibo/version.h"

namespace {

// Prints JSON (through --jq when given) or text; returns the exit status.
int Print(const std::string& json, const std::string& text, bool as_json, weibo::cli::Jq* jq) {
  if (jq != nullptr) {
    std::string out;
    weibo::Status s = jq->Run(json, &out);
    std::cout << out;
    if (!s.ok()) return weibo::cli::ReportError("weibo-cluster", s, true);
  } else {
    std::cout << (as_json ? json + "\n" : text);
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  weibo::ClusterOptions options;
  bool json = false;
  std::string jq_expression;
  CLI::App app("Run several weibod nodes and a broker as one cluster.", "weibo-cluster");
  app.set_version_flag("--version", std::string("weibo-cluster ") + weibo::kVersion);
  app.require_subcommand(1);
  app.fallthrough();
  CLI::Option* data = weibo::cli::AddDataOption(app, &options.data_dir);
  app.add_flag("--json", json, "print one JSON object");
  app.add_option("--jq", jq_expression,
                 "print what the jq expression EXPR makes of the JSON output (implies --json)")
      ->type_name("EXPR");
  CLI::App* up = app.add_subcommand("up", "start the broker and every node that is down");
  up->add_option("--nodes", options.nodes,
                 "number of nodes K; node i owns the shards s with s mod K = i")
      ->type_name("K")
      ->check(CLI::Range(1, 256).description(""));
  up->add_option("--base-port", options.base_port,
                 "broker on P, node i on P+1+i, the broker's backend on P+1+K")
      ->type_name("P")
      ->check(CLI::Range(1, 65000).description(""))
      ->capture_default_str();
  up->add_option("--host", options.host, "the address every endpoint binds to")
      ->type_name("ADDR")
      ->capture_default_str();
  up->add_option("--wait", options.wait_ms, "milliseconds to wait for every node to answer")
      ->type_name("MS")
      ->check(CLI::Range(100, 600000).description(""))
      ->capture_default_str();
  up->add_flag("--allow-clock", options.allow_clock,
               "start the nodes with --allow-clock: they take a request's fixed clock (tests)");
  up->add_flag("--auth", options.auth,
               "start the nodes with --auth: every request needs an access token");
  up->add_option("--rate", options.rate,
                 "requests a second per client (per token with --auth), and the burst, "
                 "counted by the broker; 0: no limit (the default: a laptop's clients are "
                 "local)")
      ->type_name("R")
      ->check(CLI::NonNegativeNumber.description(""))
      ->capture_default_str();
  up->add_option("--events", options.events,
                 "the broker publishes every node's events (token revocations) on a ZeroMQ "
                 "PUB socket bound here (weibod(1), EVENTS)")
      ->type_name("ENDPOINT");
  CLI::App* status = app.add_subcommand("status", "show the broker and each node");
  app.add_subcommand("down", "stop every node and the broker (SIGTERM, then wait)");
  app.footer(
      "Examples:\n  weibo-cluster up --nodes 3\n  weibo-cluster --data /srv/weibo/shards status "
      "--json");
  if (auto exit =
          weibo::cli::ParseArgs(app, argc, argv, [&] { return json || !jq_expression.empty(); }))
    return *exit;
  options.data_dir = weibo::cli::DataDir(data, options.data_dir);
  std::unique_ptr<weibo::cli::Jq> jq;
  if (!jq_expression.empty()) {
    jq = std::make_unique<weibo::cli::Jq>(jq_expression);
    if (!jq->Check().ok()) return weibo::cli::ReportError("weibo-cluster", jq->Check(), true);
    json = true;
  }
  if (*up) {
    if (!json) options.print = [](const std::string& line) { std::cout << line << std::endl; };
    weibo::Status s = weibo::ClusterUp(options);
    if (!s.ok()) return weibo::cli::ReportError("weibo-cluster", s, json);
    if (!json) return 0;
  }
  if (*status || *up) {  // up --json prints the status of what it started
    auto r = weibo::ClusterStatus(options);
    if (!r.ok()) return weibo::cli::ReportError("weibo-cluster", r.status(), json);
    int printed =
        Print(r.value().dump(), weibo::FormatClusterStatus(r.value(), false), json, jq.get());
    if (printed != 0) return printed;
    return weibo::ClusterAllUp(r.value()) ? 0 : weibo::ExitStatus(weibo::Code::kUnavailable);
  }
  auto r = weibo::ClusterDown(options);
  if (!r.ok()) return weibo::cli::ReportError("weibo-cluster", r.status(), json);
  // Text: what was stopped, one line each, so a script's log says it.
  std::string text;
  for (const auto& p : r.value().at("stopped"))
    text += "stopped " + p.at("name").get<std::string>() + " pid " +
            std::to_string(p.at("pid").get<int64_t>()) + "\n";
  if (text.empty())
    text = "nothing to stop: no node or broker of " + options.data_dir + " is running\n";
  return Print(r.value().dump(), text, json, jq.get());
}
