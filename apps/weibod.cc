// weibod: serve every operation over ZeroMQ (man/weibod.1). Parses options, prints the
// endpoint once bound, and hands over to RunDaemon — or, in a cluster (weibo-cluster(1)),
// to RunNode (--shards/--join) or RunBroker (--broker).
#include <CLI/CLI.hpp>
#include <iostream>
#include <string>
#include <vector>

#include "weibo/cli.h"
#include "weibo/cluster.h"
#include "weibo/daemon.h"
#include "weibo/version.h"

namespace {

int Fail(weibo::Code code, const std::string& message) {
  return weibo::cli::ReportError("weibod", {code, message});
}

// The options that make weibod a cluster's broker or one of its nodes (weibo-cluster(1)).
struct ClusterFlags {
  std::string shards, join, node_name, backend = "tcp://127.0.0.1:5549";
  std::vector<std::string> layout;  // --layout NODE=LIST, repeated
  bool broker = false;
};

void AddDaemonOptions(CLI::App& app, weibo::DaemonOptions& options) {
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
                 "deliveries held back and applied together, their done marks waiting for one "
                 "shared sync of each shard (within 50 ms at most); 0: every request applies "
                 "and syncs its own")
      ->type_name("N")
      ->check(CLI::Range(size_t{0}, size_t{100000}).description(""))
      ->capture_default_str();
  app.add_flag_callback(
      "--no-background-applies", [&options] { options.background_applies = false; },
      "apply the held batches on the request that finds one due, not on a thread of the "
      "daemon's own with connections of its own");
  app.add_option("--counter-cache", options.counter_cache,
                 "hot counters: the counters of this many recently read messages kept in "
                 "memory for count (0 to 10000000); 0: every read goes to its shard")
      ->type_name("N")
      ->check(CLI::Range(size_t{0}, size_t{10000000}).description(""))
      ->capture_default_str();
  app.add_option("--seen-cache", options.seen_cache,
                 "last-read ids: the stored ids of this many users kept in memory for notify "
                 "unread, 32 bytes each (0 to 100000000); 0: every unread reads its user's row")
      ->type_name("N")
      ->check(CLI::Range(size_t{0}, size_t{100000000}).description(""))
      ->capture_default_str();
  app.add_option("--message-cache", options.message_cache,
                 "page rows: the rows of this many recently shown messages (counters, author "
                 "name, attrs) kept in memory for timelines and lists (0 to 10000000); 0: "
                 "every page reads its rows from the shards")
      ->type_name("N")
      ->check(CLI::Range(size_t{0}, size_t{10000000}).description(""))
      ->capture_default_str();
  app.add_option("--drain-interval", options.drain_interval_ms,
                 "apply the outboxes' pending jobs (--async writes, crashed processes) "
                 "this often, between requests; 0: never")
      ->type_name("MS")
      ->check(CLI::Range(0, 3600000).description(""))
      ->capture_default_str();
  app.add_flag("--allow-clock", options.allow_clock,
               "take a request's \"now\" (a fixed clock, for tests); refused without it");
  app.add_option("--events", options.events,
                 "publish token revocations on a ZeroMQ PUB socket bound here")
      ->type_name("ENDPOINT");
  app.add_flag("--auth", options.auth,
               "every request needs an access token that grants it (weibo-token); "
               "without it only loopback endpoints are bound");
}

void AddClusterOptions(CLI::App& app, ClusterFlags& flags) {
  app.add_option("--shards", flags.shards, "cluster node: own only these shards, e.g. 1,3 or 0-7")
      ->type_name("LIST");
  app.add_option("--join", flags.join,
                 "cluster node: the broker's backend endpoint to register with")
      ->type_name("ENDPOINT");
  app.add_option("--node", flags.node_name, "cluster node: its name, unique in the cluster")
      ->type_name("NAME");
  app.add_flag("--broker", flags.broker,
               "run as a cluster's broker: clients on --bind, nodes on --backend");
  app.add_option("--backend", flags.backend, "broker: the endpoint nodes join")
      ->type_name("ENDPOINT")
      ->capture_default_str();
  app.add_option("--layout", flags.layout,
                 "broker: NODE=LIST, repeated: the shards each node owns; no other node may "
                 "claim them")
      ->type_name("NODE=LIST");
}

int Finish(const weibo::Status& status) {
  return status.ok() ? 0 : weibo::cli::ReportError("weibod", status);
}

int ServeAsBroker(const weibo::DaemonOptions& options, const ClusterFlags& flags) {
  if (!flags.shards.empty() || !flags.join.empty())
    return Fail(weibo::Code::kInvalidArgument, "--broker takes no --shards or --join");
  weibo::BrokerOptions bo;
  bo.frontend = options.bind;
  bo.backend = flags.backend;
  bo.max_msg_size = options.max_msg_size;
  bo.max_depth = options.max_depth;
  bo.auth = options.auth;
  bo.data_dir = options.data_dir;  // its CURVE keys, if weibo-cluster up made them
  bo.rate = options.rate;
  bo.events = options.events;
  bo.on_ready = options.on_ready;
  bo.log = options.log;
  for (const auto& item : flags.layout) {
    size_t eq = item.find('=');
    if (eq == std::string::npos || eq == 0)
      return Fail(weibo::Code::kInvalidArgument, "--layout '" + item + "' is not NODE=LIST");
    auto list = weibo::ParseShardList(item.substr(eq + 1), 0);
    if (!list.ok()) return weibo::cli::ReportError("weibod", list.status());
    bo.layout[item.substr(0, eq)] = list.value();
  }
  return Finish(weibo::RunBroker(bo));
}

// drain_interval_given: --drain-interval was on the command line (else the node's default).
int ServeAsNode(const weibo::DaemonOptions& options, const ClusterFlags& flags,
                bool drain_interval_given) {
  if (flags.shards.empty() || flags.join.empty())
    return Fail(weibo::Code::kInvalidArgument, "a cluster node needs both --shards and --join");
  if (!options.events.empty())
    return Fail(weibo::Code::kInvalidArgument,
                "a node sends its events to the broker: give --events to the broker "
                "(weibo-cluster up --events)");
  auto list = weibo::ParseShardList(flags.shards, 0);
  if (!list.ok()) return weibo::cli::ReportError("weibod", list.status());
  weibo::NodeOptions no;
  no.daemon = options;
  no.join = flags.join;
  no.name = flags.node_name.empty() ? "shards-" + flags.shards : flags.node_name;
  no.shards = list.value();
  if (drain_interval_given) {
    // A node's passes also carry its jobs for other nodes' shards: it cannot go without.
    if (options.drain_interval_ms == 0)
      return Fail(weibo::Code::kInvalidArgument,
                  "a cluster node drains its outboxes: --drain-interval must be at least 1");
    no.drain_interval_ms = options.drain_interval_ms;
  }
  return Finish(weibo::RunNode(no));
}

}  // namespace

int main(int argc, char** argv) {
  weibo::DaemonOptions options;
  ClusterFlags cluster;
  CLI::App app("Serve every weibo operation over a ZeroMQ ROUTER socket.", "weibod");
  app.set_version_flag("--version", std::string("weibod ") + weibo::kVersion);
  AddDaemonOptions(app, options);
  AddClusterOptions(app, cluster);
  if (auto exit = weibo::cli::ParseArgs(app, argc, argv)) return *exit;
  options.on_ready = [](const std::string& endpoint) { std::cout << endpoint << std::endl; };
  options.log = [](const std::string& line) { std::cerr << "weibod: " << line << std::endl; };
  if (cluster.broker) return ServeAsBroker(options, cluster);
  if (!cluster.layout.empty())
    return Fail(weibo::Code::kInvalidArgument, "--layout is the broker's (--broker)");
  if (!cluster.shards.empty() || !cluster.join.empty())
    return ServeAsNode(options, cluster, app.count("--drain-interval") > 0);
  return Finish(weibo::RunDaemon(options));
}
