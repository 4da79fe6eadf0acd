// weibo-cluster: start, inspect and stop a laptop cluster of weibod nodes and a broker
// (man/weibo-cluster.1). Everything is libweibo's ClusterUp/ClusterStatus/ClusterDown.
#include <CLI/CLI.hpp>
#include <iostream>

#include "weibo/cluster.h"
#include "weibo/version.h"

namespace {

int Fail(weibo::Code code, const std::string& message) {
  std::cerr << "weibo-cluster: error: " << weibo::CodeName(code) << ": " << message << "\n";
  return weibo::ExitStatus(code);
}

}  // namespace

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
  CLI::App* status = app.add_subcommand("status", "show the broker and each node");
  status->add_flag("--json", json, "print one JSON object");
  app.add_subcommand("down", "stop every node and the broker (SIGTERM, then wait)");
  try {
    app.parse(argc, argv);
  } catch (const CLI::Success& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == static_cast<int>(CLI::ExitCodes::Success)) return app.exit(e);
    return Fail(weibo::Code::kInvalidArgument,
                std::string(e.what()) + " (see weibo-cluster --help)");
  }
  if (*up) {
    options.print = [](const std::string& line) { std::cout << line << std::endl; };
    weibo::Status s = weibo::ClusterUp(options);
    return s.ok() ? 0 : Fail(s.code(), s.message());
  }
  if (*status) {
    auto r = weibo::ClusterStatus(options);
    if (!r.ok()) return Fail(r.status().code(), r.status().message());
    const weibo::Json& v = r.value();
    bool all = v.value("broker_alive", false);
    for (const auto& n : v["nodes"]) all = all && n.value("alive", false);
    if (json) {
      std::cout << v.dump() << "\n";
    } else {
      std::cout << "broker " << v.value("broker", "") << " pid " << v.value("broker_pid", 0)
                << (v.value("broker_alive", false) ? " up" : " down") << "\n";
      for (const auto& n : v["nodes"]) {
        std::string shards;
        for (const auto& s : n["shards"]) shards += (shards.empty() ? "" : ",") + s.dump();
        std::cout << n.value("node", "") << " " << n.value("endpoint", "") << " pid "
                  << n.value("pid", 0) << (n.value("alive", false) ? " up" : " down") << " shards "
                  << shards << "\n";
      }
    }
    return all ? 0 : weibo::ExitStatus(weibo::Code::kUnavailable);
  }
  weibo::Status s = weibo::ClusterDown(options);
  return s.ok() ? 0 : Fail(s.code(), s.message());
}
