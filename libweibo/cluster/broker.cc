// RunBroker: the cluster's router (weibo-cluster(1), weibod(1) CLUSTER PROTOCOL).
//
// Frontend: a ROUTER speaking the ordinary protocol, so `--connect BROKER` works exactly as
// against one weibod. Each request goes to the owner of its home shard (cluster/routing.h);
// requests with no home shard go to the live nodes in turn, except an op whose home key is
// kEveryNode (drain): it goes to every live node, each serves it for the shards it owns,
// and the broker answers with the sum of their results (FanOut). The broker answers itself
// only: malformed requests (as weibod would), `cluster_status`, and `unavailable` when the
// owner is down — immediately, and for every request already forwarded to a node that dies.
//
// Backend: a ROUTER where nodes connect (the Paranoid Pirate pattern, zguide ch. 4). A node
// is alive while its heartbeats ("HB", with its registration: name, shards, pid, endpoint)
// arrive; expiry_ms without one, or a "BYE", and it is dead. Jobs between nodes
// ("JOB"/"ACK") are routed by their target shard in the same way; a job for a dead owner is
// refused at once, so it stays pending at its source until the owner is back.
//
// Ownership only changes hands between a dead node and a live one: a registration that
// claims a shard a live node owns, or that the recorded layout (BrokerOptions::layout)
// gives another node, is refused as a whole ("REFUSED" to its heartbeat socket), and so is
// a second process under a live node's name until the first one's heartbeats stop (a
// restarted node is accepted then). A node that dies keeps its layout's shards: they answer
// unavailable until it is back, never serve from whoever claimed last. Frames other than
// heartbeats are taken from live nodes only.
#include <chrono>
#include <map>
#include <unordered_map>
#include <zmq.hpp>
#include <zmq_addon.hpp>

#include "cluster/curve.h"
#include "cluster/protocol.h"
#include "cluster/routing.h"
#include "daemon/rate_limiter.h"
#include "daemon/signals.h"
#include "net/events.h"
#include "net/frames.h"
#include "net/router.h"
#include "net/wire.h"
#include "storage/failure.h"
#include "weibo/cluster.h"
#include "weibo/ops.h"

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
  Frames envelope;     // client: routing id (+ empty delimiter); job: {origin node, origin tag}
  Json id;             // client: the request's id, for an error reply
  std::string client;  // client: who it is to a rate limit (net::ClientMessage::client)
  std::string body;
  std::string node;
  int redirects = 0;
  uint64_t fanout = 0;  // a part of the FanOut of this key, or 0
};

// A kEveryNode request sent to every live node: their replies, gathered. The client gets
// one reply once every part is answered (or its node went down): the integers of the
// results summed key by key (other values from the first reply that has them), the first
// error if any node refused, and a warning for each node or shard that was not served.
struct FanOut {
  Frames envelope;
  Json id;
  bool explain = false;  // the request asked for --explain: the nodes' lines, concatenated
  int waiting = 0;       // parts not answered yet
  int answered = 0;
  Json result = Json::object();
  Status error;
  std::vector<std::string> explain_lines, warnings;
};

class Broker {
 public:
  explicit Broker(const BrokerOptions& options)
      : options_(options),
        frontend_(context_, zmq::socket_type::router),
        backend_(context_, zmq::socket_type::router) {}

  Status Bind(std::string* endpoint) {
    Status bound = net::SetUpSockets(
        "cannot bind '" + options_.frontend + "' and '" + options_.backend + "'", [&] {
          std::optional<CurveKeys> keys;
          if (!options_.data_dir.empty()) keys = LoadCurveKeys(options_.data_dir);
          for (Status s :
               {net::CheckLoopbackOnly(options_.frontend, options_.auth, "the broker"),
                net::CheckLoopbackOnly(options_.backend, keys.has_value(),
                                       "the broker's backend (without the cluster's CURVE keys)")})
            if (!s.ok()) throw Failure(s);
          if (keys) gate_.Serve(context_, backend_, *keys);
          *endpoint = frontend_endpoint_ =
              net::BindForClients(frontend_, options_.frontend, options_.max_msg_size);
          backend_.set(zmq::sockopt::router_mandatory, true);
          // No handover: a second connection under a connected node's routing id (its
          // name) is turned away, so it cannot take that node's requests. A node that died
          // has lost its connection with its process, so its restart connects.
          backend_.set(zmq::sockopt::router_handover, false);
          backend_.set(zmq::sockopt::linger, 1000);
          net::Bind(backend_, options_.backend);
        });
    if (!bound.ok() || options_.events.empty()) return bound;
    return events_.Open(context_, options_.events, options_.auth, "the broker's --events");
  }

  void Serve() {
    while (!daemon::StopSignals::Stopped()) {
      try {
        zmq::pollitem_t items[] = {{backend_.handle(), 0, ZMQ_POLLIN, 0},
                                   {frontend_.handle(), 0, ZMQ_POLLIN, 0}};
        zmq::poll(items, 2, std::chrono::milliseconds(kPollMs));
        Frames frames;
        std::string address;
        if (items[0].revents & ZMQ_POLLIN)
          while (RecvFrames(backend_, &frames, 5)) FromNode(frames);
        if (items[1].revents & ZMQ_POLLIN)
          while (RecvFrames(frontend_, &frames, net::kClientFrames, &address))
            FromClient(std::move(frames), address);
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

  void FromClient(Frames frames, const std::string& address) {
    net::ClientMessage message = net::SplitClientMessage(std::move(frames), address);
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
    // --rate: counted here, where every request for the nodes passes, per token under --auth and
    // per client address without (the nodes behind run with no limit of their own).
    if (!rate_.Allow(daemon::RateLimiter::KeyOf(options_.auth, wire.token, message.client),
                     SteadyClock::now())) {
      ReplyClient(message.envelope, net::EncodeReply(wire.id, rate_.Refusal(), nullptr));
      return;
    }
    InFlight f;
    f.envelope = std::move(message.envelope);
    f.id = wire.id;
    f.client = std::move(message.client);
    f.body = std::move(message.body);
    const OpSpec* op = FindOperation(wire.request.op);
    if (op != nullptr && op->home == HomeKey::kEveryNode)
      ToEveryNode(std::move(f), wire.explain);
    else
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
      if (!Alive(node)) {
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
    if (!Forward(f, node)) FailClient(f, "node " + node + " is not connected");
  }

  // Sends a client request to node; false when it is not connected.
  bool Forward(InFlight f, const std::string& node) {
    const std::string tag = std::to_string(++next_tag_);
    if (!SendVerbTo(backend_, node, Verb::kReq, {tag, f.client, f.body})) return false;
    f.node = node;
    inflight_[tag] = std::move(f);
    return true;
  }

  // A kEveryNode request: one part to every live node. The shards of nodes that are down
  // are not served, which the reply's warning says; with no live node it is unavailable.
  void ToEveryNode(InFlight f, bool explain) {
    FanOut fan;
    fan.envelope = f.envelope;
    fan.id = f.id;
    fan.explain = explain;
    const uint64_t key = ++next_fanout_;
    std::string down;
    for (int s = 0; s < count_; ++s)
      if (!Alive(owner_[s])) down += (down.empty() ? "" : ",") + std::to_string(s);
    if (!down.empty())
      fan.warnings.push_back("shards " + down + " were not served: their node is down");
    for (const auto& [name, info] : nodes_) {
      if (!info.alive) continue;
      InFlight part = f;
      part.fanout = key;
      if (Forward(std::move(part), name)) ++fan.waiting;
    }
    if (fan.waiting == 0) {
      FailClient(f, count_ == 0 ? "no node of the cluster has registered with the broker yet"
                                : "no node of the cluster is alive");
      return;
    }
    fanouts_[key] = std::move(fan);
  }

  // One part of a FanOut answered (reply) or lost with its node (reply nullptr); the
  // client's reply once it was the last.
  void Gather(uint64_t key, const std::string* reply, const std::string& node) {
    auto it = fanouts_.find(key);
    if (it == fanouts_.end()) return;
    FanOut& fan = it->second;
    net::WireReply part;
    if (reply == nullptr || !net::ParseReply(*reply, &part)) {
      fan.warnings.push_back("node " + node + " did not answer: its shards were not served");
    } else if (!part.status.ok()) {
      if (fan.error.ok()) fan.error = part.status;
    } else {
      ++fan.answered;
      for (auto& [name, value] : part.result.items()) {
        Json& sum = fan.result[name];
        if (sum.is_number_integer() && value.is_number_integer())
          sum = sum.get<int64_t>() + value.get<int64_t>();
        else if (sum.is_null())
          sum = value;
      }
      for (auto& line : part.explain) fan.explain_lines.push_back(line);
      for (auto& line : part.warnings) fan.warnings.push_back(line);
    }
    if (--fan.waiting > 0) return;
    Result<Json> out = fan.result;
    if (!fan.error.ok())
      out = fan.error;
    else if (fan.answered == 0)
      out = Status(Code::kUnavailable, "no node of the cluster answered");
    ReplyClient(
        fan.envelope,
        net::EncodeReply(fan.id, out, fan.explain ? &fan.explain_lines : nullptr, &fan.warnings));
    fanouts_.erase(it);
  }

  // A registered node that is alive (an owner from the layout may never have registered).
  bool Alive(const std::string& node) const {
    auto it = nodes_.find(node);
    return it != nodes_.end() && it->second.alive;
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
    // owners: who the broker routes each shard to, what weibo-cluster status checks.
    return Json{
        {"broker", frontend_endpoint_}, {"shards", count_}, {"owners", owner_}, {"nodes", nodes}};
  }

  // --- nodes -----------------------------------------------------------------------------

  void FromNode(const Frames& frames) {
    const Verb verb = ReadVerb(frames, 1);
    if (verb == Verb::kNone) return;
    const std::string& sender = frames[0];
    if (verb == Verb::kHeartbeat) return Heartbeat(sender, frames[2]);
    auto from = nodes_.find(sender);
    if (from == nodes_.end() || !from->second.alive) return;  // not a node of the cluster
    if (verb == Verb::kEvent) {
      events_.Publish(frames[2]);  // a node's event (weibod --events), as it framed it
    } else if (verb == Verb::kRep) {
      auto it = inflight_.find(frames[2]);
      if (it == inflight_.end() || it->second.job) return;  // failed meanwhile
      if (it->second.fanout != 0)
        Gather(it->second.fanout, &frames[3], sender);
      else
        ReplyClient(it->second.envelope, frames[3]);
      inflight_.erase(it);
    } else if (verb == Verb::kRedirect) {
      auto it = inflight_.find(frames[2]);
      if (it == inflight_.end() || it->second.job) return;
      InFlight f = std::move(it->second);
      inflight_.erase(it);
      if (f.fanout != 0) return Gather(f.fanout, nullptr, sender);  // has no home: no redirect
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
      Down(from->second, "stopped");
    }
  }

  void Heartbeat(const std::string& sender, const std::string& body) {
    Json reg = Json::parse(body, nullptr, false);
    if (!reg.is_object()) return;
    try {
      const std::string name = reg.at("node").get<std::string>();
      int count = reg.at("count").get<int>();
      if (count_ == 0) {
        if (count < 1) return;
        count_ = count;
        owner_.assign(count_, "");
        laid_out_.assign(count_, "");
        for (const auto& [node, shards] : options_.layout)
          for (int s : shards)
            if (s >= 0 && s < count_) owner_[s] = laid_out_[s] = node;
      } else if (count != count_) {
        Log("node " + name + " has " + std::to_string(count) + " shards, the cluster " +
            std::to_string(count_) + ": ignored");
        return;
      }
      const std::string incarnation = reg.at("incarnation").get<std::string>();
      const std::vector<int> shards = reg.at("shards").get<std::vector<int>>();
      auto known = nodes_.find(name);
      bool live = known != nodes_.end() && known->second.alive;
      if (live && known->second.incarnation != incarnation)
        return Refuse(sender, name, incarnation,
                      "node " + name + " is alive as pid " + std::to_string(known->second.pid) +
                          "; a restarted node is taken once its heartbeats stop",
                      true);
      if (!live) {
        std::string conflict = Conflict(name, shards);
        if (!conflict.empty()) return Refuse(sender, name, incarnation, conflict, false);
      }
      NodeInfo& info = nodes_[name];
      info.name = name;
      info.endpoint = reg.value("endpoint", "");
      info.pid = reg.value("pid", int64_t{0});
      info.incarnation = incarnation;
      info.last_heartbeat = SteadyClock::now();
      if (!info.alive) {  // the claim Conflict allowed; a live node's shards never change
        info.alive = true;
        info.shards = shards;
        for (int s : info.shards) owner_[s] = name;
        Log("node " + name + " is alive (pid " + std::to_string(info.pid) + ")");
      }
    } catch (const std::exception& e) {
      Log(std::string("bad heartbeat: ") + e.what());
    }
  }

  // Why node `name` may not own `shards`, or "" when it may. With a layout a laid-out shard
  // only ever goes to its node, so when that node dies ownership is the layout's again at
  // once; a shard outside the layout goes to a claimant only while its owner is dead.
  std::string Conflict(const std::string& name, const std::vector<int>& shards) {
    for (int s : shards) {
      const std::string shard = "shard " + std::to_string(s);
      if (s < 0 || s >= count_)
        return shard + " does not exist (the cluster has " + std::to_string(count_) + ")";
      if (!laid_out_[s].empty() && laid_out_[s] != name)
        return shard + " belongs to " + laid_out_[s] + " in the cluster's layout";
      const std::string& owner = owner_[s];
      if (owner != name && Alive(owner))
        return shard + " is owned by " + owner + ", which is alive";
    }
    return "";
  }

  // Answers a refused registration on the socket it came from; a node of ours logs the
  // reason and exits, or with `retry` heartbeats on until it is taken (weibod(1)). Logged
  // once per process that is refused.
  void Refuse(const std::string& sender, const std::string& name, const std::string& incarnation,
              const std::string& why, bool retry) {
    SendVerbTo(backend_, sender, Verb::kRefused, {EncodeRefusal(why, retry)});
    auto logged = refused_.find(name);
    if (logged != refused_.end() && logged->second == incarnation) return;
    if (refused_.size() > 1000) refused_.clear();  // bounded, whatever a peer sends
    refused_[name] = incarnation;
    Log("node " + name + " refused: " + why);
  }

  void Job(const std::string& origin, const std::string& tag, const std::string& body) {
    auto refuse = [&](const std::string& why) {
      SendVerbTo(backend_, origin, Verb::kAck, {tag, AckRefused(why)});
    };
    int target = JobTarget(body);
    if (target < 0 || target >= count_) return refuse("a job without a valid target shard");
    const std::string node = owner_[target];
    if (!Alive(node)) return refuse("shard " + std::to_string(target) + "'s node is down");
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
    // Its shards stay its own (owner_ unchanged): they answer unavailable until it is back
    // or, for a shard outside the layout, until another node claims it (Conflict).
    for (auto it = inflight_.begin(); it != inflight_.end();) {
      if (it->second.node != info.name) {
        ++it;
        continue;
      }
      if (it->second.job)
        SendVerbTo(backend_, it->second.envelope[0], Verb::kAck,
                   {it->second.envelope[1], AckRefused("node down")});
      else if (it->second.fanout != 0)
        Gather(it->second.fanout, nullptr, info.name);
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
  daemon::RateLimiter rate_{options_.rate};
  net::EventPublisher events_;         // closed before the context (declared after it)
  CurveGate gate_;                     // joined before the context closes (declared after it)
  int count_ = 0;                      // shards in the cluster, from the first heartbeat
  std::vector<std::string> owner_;     // shard -> node name
  std::vector<std::string> laid_out_;  // shard -> its node in options_.layout, or ""
  std::map<std::string, NodeInfo> nodes_;
  std::map<std::string, std::string> refused_;  // node name -> incarnation last refused
  std::unordered_map<std::string, InFlight> inflight_;
  std::unordered_map<uint64_t, FanOut> fanouts_;
  uint64_t next_tag_ = 0;
  uint64_t next_fanout_ = 0;
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
