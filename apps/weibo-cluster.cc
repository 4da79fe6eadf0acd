// weibo-cluster: start, inspect and stop a laptop cluster of weibod nodes and a broker
// (man/weibo-cluster.1). Everything is libweibo's ClusterUp/ClusterStatus/ClusterDown.
#include <CLI/CLI.hpp>
#include <iostream>

#include "weibo/cli.h"
#include "weibo/cluster.h"
#include "weibo/version.h"

int main(int argc, char** argv) {
  weibo::ClusterOptions options;
  bool json = false;
  CLI::App app("Run several weibod nodes and a broker as one cluster.", "weibo-cluster");
  app.set_version_flag("--version", std::string("weibo-cluster ") + weibo::kVersion);
  app.require_subcommand(1);
  app.fallthrough();
  app.add_option("--data", options.data_dir, "data directory holding cluster.json and the shards")
      ->envname("WEIBO_DATA")
      ->type_name("DIR")
      ->capture_default_str();
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
  CLI::App* status = app.add_subcommand("status", "show the broker and each node");
  status->add_flag("--json", json, "print one JSON object");
  app.add_subcommand("down", "stop every node and the broker (SIGTERM, then wait)");
  if (auto exit = weibo::cli::ParseArgs(app, argc, argv)) return *exit;
  if (*up) {
    options.print = [](const std::string& line) { std::cout << line << std::endl; };
    weibo::Status s = weibo::ClusterUp(options);
    return s.ok() ? 0 : weibo::cli::ReportError("weibo-cluster", s);
  }
  if (*status) {
    auto r = weibo::ClusterStatus(options);
    if (!r.ok()) return weibo::cli::ReportError("weibo-cluster", r.status());
    std::cout << weibo::FormatClusterStatus(r.value(), json);
    return weibo::ClusterAllUp(r.value()) ? 0 : weibo::ExitStatus(weibo::Code::kUnavailable);
  }
  weibo::Status s = weibo::ClusterDown(options);
  return s.ok() ? 0 : weibo::cli::ReportError("weibo-cluster", s);
}
