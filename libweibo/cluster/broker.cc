// RunBroker: the cluster's router (weibo-cluster(1), weibod(1) CLUSTER PROTOCOL).
//
// Frontend: a ROUTER speaking the ordinary protocol, so `--connect BROKER` works exactly as
// against one weibod. Each request goes to the owner of its home shard (cluster/routing.h);
// requests with no home shard go to the live nodes in turn. The broker answers itself
// only: malformed requests (as weibod would), `cluster_status`, and `unavailable` when the
// owner is down — immediately, and for every request already forwarded to a node that dies.
//
// Backend: a ROUTER where nodes connect (the Paranoid Pirate pattern, zguide ch. 4). A node
// is alive while its heartbeats ("HB", with its registration: name, shards, pid, endpoint)
// arrive; expiry_ms without one, or a "BYE", and it is dead. A new incarnation (a restarted
// process) fails what was in flight on the old one. Jobs between nodes ("JOB"/"ACK") are
// routed by their target shard in the same way; a job for a dead owner is refused at once,
// so it stays pending at its source until the owner is back.
#include <chrono>
#include <map>
#include <unordered_map>
#include <zmq.hpp>
#include <zmq_addon.hpp>

#include "cluster/protocol.h"
#include "cluster/routing.h"
#include "daemon/signals.h"
#include "net/frames.h"
#include "net/router.h"
#include "net/wire.h"
#include "weibo/cluster.h"

namespace weibo::cluster {
namespace {

using net::Frames;
using net::RecvFrames;
using SteadyClock = std::chrono::steady_clock;

constexpr int kPollMs = 50;
constexpr int kMaxRedirects = 2;

struct NodeInfo {
  std::string name;
  std::string endpoint;
  int64_t pid = 0;
  std::string incarnation;
  std::vector<int> shards;
  SteadyClock::time_point last_heartbeat;
  bool alive = false;
};

struct InFlight {
  bool job = false;
  Frames envelope;  // client: routing id (+ empty delimiter); job: {origin node, origin tag}
  Json id;          // client: the request's id, for an error reply
  std::string body;
  std::string node;
  int redirects = 0;
};

class Broker {
 public:
  explicit Broker(const BrokerOptions& options)
      : options_(options),
        frontend_(context_, zmq::socket_type::router),
        backend_(context_, zmq::socket_type::router) {}

  Status Bind(std::string* endpoint) {
    return net::SetUpSockets(
        "cannot bind '" + options_.frontend + "' and '" + options_.backend + "'", [&] {
          *endpoint = frontend_endpoint_ =
              net::BindForClients(frontend_, options_.frontend, options_.max_msg_size);
          backend_.set(zmq::sockopt::router_mandatory, true);
          backend_.set(zmq::sockopt::router_handover, true);
          backend_.set(zmq::sockopt::linger, 1000);
          net::Bind(backend_, options_.backend);
        });
  }

  void Serve() {
    while (!daemon::StopSignals::Stopped()) {
      try {
        zmq::pollitem_t items[] = {{backend_.handle(), 0, ZMQ_POLLIN, 0},
                                   {frontend_.handle(), 0, ZMQ_POLLIN, 0}};
        zmq::poll(items, 2, std::chrono::milliseconds(kPollMs));
        Frames frames;
        if (items[0].revents & ZMQ_POLLIN)
          while (RecvFrames(backend_, &frames, 5)) FromNode(frames);
        if (items[1].revents & ZMQ_POLLIN)
          while (RecvFrames(frontend_, &frames, net::kClientFrames)) FromClient(std::move(frames));
        Expire();
      } catch (const zmq::error_t& e) {
        if (e.num() != EINTR) Log(std::string("socket error: ") + e.what());
      }
    }
  }

 private:
  void Log(const std::string& line) {
    if (options_.log) options_.log(line);
  }

  // --- clients ---------------------------------------------------------------------------

  void FromClient(Frames frames) {
    net::ClientMessage message = net::SplitClientMessage(std::move(frames));
    if (!message.well_formed) {
      ReplyClient(message.envelope, net::MalformedMessage());
      return;
    }
    net::WireRequest wire;
    Status parsed = ParseRequest(message.body,
                                 net::WireLimits{options_.max_msg_size, options_.max_depth}, &wire);
    if (!parsed.ok()) {
      ReplyClient(message.envelope, net::EncodeReply(wire.id, parsed, nullptr));
      return;
    }
    if (wire.request.op == "cluster_status") {
      ReplyClient(message.envelope, net::EncodeReply(wire.id, Result<Json>(StatusJson()), nullptr));
      return;
    }
    InFlight f;
    f.envelope = std::move(message.envelope);
    f.id = wire.id;
    f.body = std::move(message.body);
    Route(std::move(f), HomeShard(wire.request, count_, nullptr));
  }

  void ReplyClient(const Frames& envelope, const std::string& reply) {
    net::ReplyTo(frontend_, envelope, reply);
  }

  void FailClient(const InFlight& f, const std::string& why) {
    ReplyClient(f.envelope, net::EncodeReply(f.id, Status(Code::kUnavailable, why), nullptr));
  }

  // Sends a client request to the owner of shard home (any live node when home < 0).
  void Route(InFlight f, int home) {
    std::string node;
    if (count_ == 0) {
      FailClient(f, "no node of the cluster has registered with the broker yet");
      return;
    }
    if (home >= 0) {
      node = owner_[home];
      if (node.empty() || !nodes_[node].alive) {
        FailClient(f, "shard " + std::to_string(home) + " is unavailable: its node" +
                          (node.empty() ? std::string() : " (" + node + ")") + " is down");
        return;
      }
    } else {
      node = AnyLiveNode();
      if (node.empty()) {
        FailClient(f, "no node of the cluster is alive");
        return;
      }
    }
    const std::string tag = std::to_string(++next_tag_);
    const std::string client = f.envelope.empty() ? std::string() : f.envelope[0];
    if (!SendVerbTo(backend_, node, Verb::kReq, {tag, client, f.body})) {
      FailClient(f, "node " + node + " is not connected");
      return;
    }
    f.node = node;
    inflight_[tag] = std::move(f);
  }

  std::string AnyLiveNode() {
    std::vector<std::string> live;
    for (auto& [name, info] : nodes_)
      if (info.alive) live.push_back(name);
    if (live.empty()) return "";
    return live[round_robin_++ % live.size()];
  }

  Json StatusJson() {
    Json nodes = Json::array();
    for (auto& [name, info] : nodes_)
      nodes.push_back(Json{{"node", name},
                           {"endpoint", info.endpoint},
                           {"pid", info.pid},
                           {"alive", info.alive},
                           {"shards", info.shards}});
    return Json{{"broker", frontend_endpoint_}, {"shards", count_}, {"nodes", nodes}};
  }

  // --- nodes -----------------------------------------------------------------------------

  void FromNode(const Frames& frames) {
    const Verb verb = ReadVerb(frames, 1);
    if (verb == Verb::kNone) return;
    const std::string& sender = frames[0];
    if (verb == Verb::kHeartbeat) {
      Heartbeat(frames[2]);
    } else if (verb == Verb::kRep) {
      auto it = inflight_.find(frames[2]);
      if (it == inflight_.end() || it->second.job) return;  // failed meanwhile
      ReplyClient(it->second.envelope, frames[3]);
      inflight_.erase(it);
    } else if (verb == Verb::kRedirect) {
      auto it = inflight_.find(frames[2]);
      if (it == inflight_.end() || it->second.job) return;
      InFlight f = std::move(it->second);
      inflight_.erase(it);
      int shard = std::atoi(frames[3].c_str());
      if (++f.redirects > kMaxRedirects || shard < 0 || shard >= count_) {
        FailClient(f, "the cluster's nodes disagree on who owns shard " + frames[3]);
        return;
      }
      Route(std::move(f), shard);
    } else if (verb == Verb::kJob) {
      Job(sender, frames[2], frames[3]);
    } else if (verb == Verb::kAck) {
      auto it = inflight_.find(frames[2]);
      if (it == inflight_.end() || !it->second.job) return;
      SendVerbTo(backend_, it->second.envelope[0], Verb::kAck, {it->second.envelope[1], frames[3]});
      inflight_.erase(it);
    } else if (verb == Verb::kBye) {
      auto it = nodes_.find(sender);
      if (it != nodes_.end() && it->second.alive) Down(it->second, "stopped");
    }
  }

  void Heartbeat(const std::string& body) {
    Json reg = Json::parse(body, nullptr, false);
    if (!reg.is_object()) return;
    try {
      const std::string name = reg.at("node").get<std::string>();
      int count = reg.at("count").get<int>();
      if (count_ == 0) {
        count_ = count;
        owner_.assign(count_, "");
      } else if (count != count_) {
        Log("node " + name + " has " + std::to_string(count) + " shards, the cluster " +
            std::to_string(count_) + ": ignored");
        return;
      }
      NodeInfo& info = nodes_[name];
      const std::string incarnation = reg.at("incarnation").get<std::string>();
      if (info.alive && info.incarnation != incarnation) Down(info, "restarted");
      info.name = name;
      info.endpoint = reg.value("endpoint", "");
      info.pid = reg.value("pid", int64_t{0});
      info.incarnation = incarnation;
      info.shards = reg.at("shards").get<std::vector<int>>();
      info.last_heartbeat = SteadyClock::now();
      if (!info.alive) {
        info.alive = true;
        for (int s : info.shards)
          if (s >= 0 && s < count_) owner_[s] = name;
        Log("node " + name + " is alive (pid " + std::to_string(info.pid) + ")");
      }
    } catch (const std::exception& e) {
      Log(std::string("bad heartbeat: ") + e.what());
    }
  }

  void Job(const std::string& origin, const std::string& tag, const std::string& body) {
    auto refuse = [&](const std::string& why) {
      SendVerbTo(backend_, origin, Verb::kAck, {tag, AckRefused(why)});
    };
    int target = JobTarget(body);
    if (target < 0 || target >= count_) return refuse("a job without a valid target shard");
    const std::string node = owner_[target];
    if (node.empty() || !nodes_[node].alive)
      return refuse("shard " + std::to_string(target) + "'s node is down");
    const std::string own_tag = std::to_string(++next_tag_);
    if (!SendVerbTo(backend_, node, Verb::kJob, {own_tag, body}))
      return refuse("node " + node + " is not connected");
    InFlight f;
    f.job = true;
    f.envelope = {origin, tag};
    f.node = node;
    inflight_[own_tag] = std::move(f);
  }

  void Expire() {
    const auto now = SteadyClock::now();
    for (auto& [name, info] : nodes_)
      if (info.alive && now - info.last_heartbeat > std::chrono::milliseconds(options_.expiry_ms))
        Down(info, "silent for " + std::to_string(options_.expiry_ms) + " ms");
  }

  // Marks a node dead and fails everything in flight on it.
  void Down(NodeInfo& info, const std::string& why) {
    info.alive = false;
    Log("node " + info.name + " is down (" + why + ")");
    for (auto it = inflight_.begin(); it != inflight_.end();) {
      if (it->second.node != info.name) {
        ++it;
        continue;
      }
      if (it->second.job)
        SendVerbTo(backend_, it->second.envelope[0], Verb::kAck,
                   {it->second.envelope[1], AckRefused("node down")});
      else
        FailClient(it->second, "node " + info.name + " went down before it answered");
      it = inflight_.erase(it);
    }
  }

  BrokerOptions options_;
  zmq::context_t context_;
  zmq::socket_t frontend_;
  zmq::socket_t backend_;
  std::string frontend_endpoint_;
  int count_ = 0;                   // shards in the cluster, from the first heartbeat
  std::vector<std::string> owner_;  // shard -> node name
  std::map<std::string, NodeInfo> nodes_;
  std::unordered_map<std::string, InFlight> inflight_;
  uint64_t next_tag_ = 0;
  size_t round_robin_ = 0;
};

}  // namespace

}  // namespace weibo::cluster

namespace weibo {

Status RunBroker(const BrokerOptions& options) {
  cluster::Broker broker(options);
  std::string endpoint;
  Status bound = broker.Bind(&endpoint);
  if (!bound.ok()) return bound;
  daemon::StopSignals signals;
  if (options.on_ready) options.on_ready(endpoint);
  if (options.log) options.log("broker on " + endpoint + ", nodes join " + options.backend);
  broker.Serve();
  if (options.log) options.log("broker stopped");
  return Status::Ok();
}

}  // namespace weibo
