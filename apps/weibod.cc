// weibod: serve every operation over ZeroMQ (man/weibod.1). Parses options, prints the
// endpoint once bound, and hands over to RunDaemon — or, in a cluster (weibo-cluster(1)),
// to RunNode (--shards/--join) or RunBroker (--broker).
#include <CLI/CLI.hpp>
#include <iostream>

#include "weibo/cluster.h"
#include "weibo/daemon.h"
#include "weibo/version.h"

namespace {

int Fail(weibo::Code code, const std::string& message) {
  std::cerr << "weibod: error: " << weibo::CodeName(code) << ": " << message << "\n";
  return weibo::ExitStatus(code);
}

}  // namespace

int main(int argc, char** argv) {
  weibo::DaemonOptions options;
  CLI::App app("Serve every weibo operation over a ZeroMQ ROUTER socket.", "weibod");
  app.set_version_flag("--version", std::string("weibod ") + weibo::kVersion);
  app.add_option("--data", options.data_dir, "data directory holding cluster.json and the shards")
      ->envname("WEIBO_DATA")
      ->type_name("DIR")
      ->capture_default_str();
  app.add_option("--bind", options.bind, "ZeroMQ endpoint to listen on (port * picks a free one)")
      ->type_name("ENDPOINT")
      ->capture_default_str();
  app.add_option("--max-msg-size", options.max_msg_size,
                 "largest request frame in bytes (256 to 2^30)")
      ->type_name("BYTES")
      ->check(CLI::Range(size_t{256}, size_t{1} << 30).description(""))
      ->capture_default_str();
  app.add_option("--max-depth", options.max_depth, "deepest JSON nesting of a request (2 to 1000)")
      ->type_name("N")
      ->check(CLI::Range(2, 1000).description(""))
      ->capture_default_str();
  app.add_option("--rate", options.rate, "requests a second per peer, and the burst; 0: no limit")
      ->type_name("N")
      ->check(CLI::Range(0.0, 1e9).description(""))
      ->capture_default_str();
  app.add_option("--dedup", options.dedup,
                 "replies to write requests kept for retries (0 to 10000000); 0: none")
      ->type_name("N")
      ->check(CLI::Range(size_t{0}, size_t{10000000}).description(""))
      ->capture_default_str();
  app.add_option("--group-commit", options.group_commit,
                 "deliveries whose done marks may wait for one shared sync of each shard "
                 "(synced within 50 ms at most); 0: every request syncs its own")
      ->type_name("N")
      ->check(CLI::Range(size_t{0}, size_t{100000}).description(""))
      ->capture_default_str();
  app.add_option("--drain-interval", options.drain_interval_ms,
                 "apply the outboxes' pending jobs (--async writes, crashed processes) "
                 "this often, between requests; 0: never")
      ->type_name("MS")
      ->check(CLI::Range(0, 3600000).description(""))
      ->capture_default_str();
  app.add_flag("--allow-clock", options.allow_clock,
               "take a request's \"now\" (a fixed clock, for tests); refused without it");
  std::string shards, join, node_name, backend = "tcp://127.0.0.1:5549";
  bool broker = false;
  app.add_option("--shards", shards, "cluster node: own only these shards, e.g. 1,3 or 0-7")
      ->type_name("LIST");
  app.add_option("--join", join, "cluster node: the broker's backend endpoint to register with")
      ->type_name("ENDPOINT");
  app.add_option("--node", node_name, "cluster node: its name, unique in the cluster")
      ->type_name("NAME");
  app.add_flag("--broker", broker,
               "run as a cluster's broker: clients on --bind, nodes on --backend");
  app.add_option("--backend", backend, "broker: the endpoint nodes join")
      ->type_name("ENDPOINT")
      ->capture_default_str();
  try {
    app.parse(argc, argv);
  } catch (const CLI::Success& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    return Fail(weibo::Code::kInvalidArgument, std::string(e.what()) + " (see weibod --help)");
  }
  options.on_ready = [](const std::string& endpoint) { std::cout << endpoint << std::endl; };
  options.log = [](const std::string& line) { std::cerr << "weibod: " << line << std::endl; };
  weibo::Status status;
  if (broker) {
    if (!shards.empty() || !join.empty())
      return Fail(weibo::Code::kInvalidArgument, "--broker takes no --shards or --join");
    weibo::BrokerOptions bo;
    bo.frontend = options.bind;
    bo.backend = backend;
    bo.max_msg_size = options.max_msg_size;
    bo.max_depth = options.max_depth;
    bo.on_ready = options.on_ready;
    bo.log = options.log;
    status = weibo::RunBroker(bo);
  } else if (!shards.empty() || !join.empty()) {
    if (shards.empty() || join.empty())
      return Fail(weibo::Code::kInvalidArgument, "a cluster node needs both --shards and --join");
    auto list = weibo::ParseShardList(shards, 0);
    if (!list.ok()) return Fail(list.status().code(), list.status().message());
    weibo::NodeOptions no;
    no.daemon = options;
    no.join = join;
    no.name = node_name.empty() ? "shards-" + shards : node_name;
    no.shards = list.value();
    if (app.count("--drain-interval") > 0) {
      // A node's passes also carry its jobs for other nodes' shards: it cannot go without.
      if (options.drain_interval_ms == 0)
        return Fail(weibo::Code::kInvalidArgument,
                    "a cluster node drains its outboxes: --drain-interval must be at least 1");
      no.drain_interval_ms = options.drain_interval_ms;
    }
    status = weibo::RunNode(no);
  } else {
    status = weibo::RunDaemon(options);
  }
  if (!status.ok()) return Fail(status.code(), status.message());
  return 0;
}
