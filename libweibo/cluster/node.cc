// The serving side of a cluster node (cluster/node.h): its loop over the broker's DEALER
// and its own ROUTER, the heartbeat, routing by home shard, and RunNode.
#include "cluster/node.h"

#include <unistd.h>

#include <chrono>
#include <thread>
#include <zmq_addon.hpp>

#include "cluster/curve.h"
#include "cluster/protocol.h"
#include "cluster/routing.h"
#include "daemon/server.h"
#include "daemon/signals.h"
#include "flows/flows.h"
#include "jobs/jobs.h"
#include "net/events.h"
#include "net/router.h"
#include "net/wire.h"
#include "storage/failure.h"
#include "tables/user_name.h"

namespace weibo::cluster {
namespace {

using net::Frames;
using net::RecvFrames;
using SteadyClock = std::chrono::steady_clock;

constexpr int kIdleEveryMs = 50;  // under steady load, the group commit at least this often
constexpr int kLingerMs = 1000;

}  // namespace

Node::Node(const NodeOptions& options)
    : options_(options),
      shards_(options.daemon.data_dir, nullptr),
      owned_(shards_.count(), false),
      broker_(context_, zmq::socket_type::dealer),
      direct_(context_, zmq::socket_type::router) {
  for (int s : options.shards) owned_.at(s) = true;
  // The events of the jobs this node applies go to the broker, which publishes them on the
  // cluster's one --events socket (net/events.h). Sent without blocking: while the broker
  // is away an event is missed, as by a subscriber that is away; weibo-app events keeps it.
  on_event_ = [this](const Json& event) {
    SendVerb(broker_, Verb::kEvent, {net::EventPublisher::Frame(event)});
  };
  service_ = std::make_unique<daemon::Service>(options.daemon, this, on_event_);
}

Status Node::Start(std::string* endpoint) {
  Status started = net::SetUpSockets("cannot bind or connect", [&] {
    Status loopback = net::CheckLoopbackOnly(options_.daemon.bind, options_.daemon.auth, "a node");
    if (!loopback.ok()) throw Failure(loopback);
    *endpoint = net::BindForClients(direct_, options_.daemon.bind, options_.daemon.max_msg_size);
    broker_.set(zmq::sockopt::routing_id, options_.name);
    broker_.set(zmq::sockopt::linger, kLingerMs);
    if (auto keys = LoadCurveKeys(options_.daemon.data_dir)) UseCurveClient(broker_, *keys);
    broker_.connect(options_.join);
  });
  if (started.ok()) endpoint_ = *endpoint;
  return started;
}

void Node::Serve() {
  std::thread heartbeat([this] { Heartbeat(); });
  auto next_drain = SteadyClock::now();
  auto last_idle = SteadyClock::now();
  while (!daemon::StopSignals::Stopped() && !refused_) {
    try {
      while (!queue_.empty() && !daemon::StopSignals::Stopped()) {
        Frames frames = std::move(queue_.front());
        queue_.pop_front();
        HandleBroker(frames);
      }
      zmq::pollitem_t items[] = {{broker_.handle(), 0, ZMQ_POLLIN, 0},
                                 {direct_.handle(), 0, ZMQ_POLLIN, 0}};
      zmq::poll(items, 2, std::chrono::milliseconds(kPollMs));
      Frames frames;
      if (items[0].revents & ZMQ_POLLIN)
        while (RecvFrames(broker_, &frames)) HandleBroker(frames);
      if (items[1].revents & ZMQ_POLLIN)
        while (RecvFrames(direct_, &frames, net::kClientFrames)) HandleDirect(std::move(frames));
      // The group commit of the client requests' deliveries. weibod ticks under load instead
      // (daemon/server.cc); a node has no background applier, and its Tick would be Idle.
      bool quiet = !(items[0].revents & ZMQ_POLLIN) && !(items[1].revents & ZMQ_POLLIN);
      if (quiet || SteadyClock::now() - last_idle >= std::chrono::milliseconds(kIdleEveryMs)) {
        service_->Idle();
        last_idle = SteadyClock::now();
      }
      if (SteadyClock::now() >= next_drain) {
        DrainOwned();
        next_drain = SteadyClock::now() + std::chrono::milliseconds(options_.drain_interval_ms);
      }
    } catch (const zmq::error_t& e) {
      if (e.num() != EINTR) Log(std::string("socket error: ") + e.what());
    }
  }
  if (!refused_) SendVerb(broker_, Verb::kBye, {});
  stop_ = true;
  heartbeat.join();
}

void Node::Log(const std::string& line) {
  if (options_.daemon.log) options_.daemon.log(line);
}

void Node::Heartbeat() {
  zmq::socket_t socket(context_, zmq::socket_type::dealer);
  socket.set(zmq::sockopt::linger, 0);
  socket.set(zmq::sockopt::sndhwm, 4);
  // Start read the keys already: a damaged file stopped the node there.
  if (auto keys = LoadCurveKeys(options_.daemon.data_dir)) UseCurveClient(socket, *keys);
  socket.connect(options_.join);
  Json reg = {{"node", options_.name},
              {"endpoint", endpoint_},
              {"pid", static_cast<int64_t>(getpid())},
              {"incarnation", std::to_string(getpid()) + "-" +
                                  std::to_string(SteadyClock::now().time_since_epoch().count())},
              {"count", shards_.count()},
              {"shards", options_.shards}};
  const std::string body = reg.dump();
  SteadyClock::time_point first_refusal, last_refusal;
  while (!stop_) {
    SendVerb(socket, Verb::kHeartbeat, {body});
    for (int waited = 0; waited < options_.heartbeat_ms && !stop_; waited += 10) {
      zmq::pollitem_t item{socket.handle(), 0, ZMQ_POLLIN, 0};
      if (zmq::poll(&item, 1, std::chrono::milliseconds(10)) == 0) continue;
      Frames frames;
      while (RecvFrames(socket, &frames)) {
        std::string reason;
        bool retry = false;
        if (ReadVerb(frames, 0) != Verb::kRefused || !DecodeRefusal(frames[1], &reason, &retry))
          continue;
        const auto now = SteadyClock::now();
        // A gap of a few heartbeats without a refusal: it was taken in between.
        if (now - last_refusal > std::chrono::milliseconds(3 * options_.heartbeat_ms)) {
          first_refusal = now;
          Log("the broker refused this node: " + reason + (retry ? " (retrying)" : ""));
        }
        last_refusal = now;
        if (!retry || now - first_refusal > std::chrono::milliseconds(kRefusedGiveUpMs)) {
          refusal_ = reason;
          refused_ = true;  // after refusal_: Refused() reads it once this is set
          return;
        }
      }
    }
  }
}

// The home shard of a request body, resolving "@name" users from the name's shard file;
// -1 when it has none or cannot be read.
int Node::Home(const std::string& body) {
  net::WireRequest wire;
  if (!ParseRequest(body, net::WireLimits{options_.daemon.max_msg_size, options_.daemon.max_depth},
                    &wire)
           .ok())
    return -1;
  try {
    return HomeShard(
        wire.request, shards_.count(),
        [this](const std::string& name) {
          return LookupName(shards_.At(shards_.ShardOfName(name)), name);
        },
        [this](int64_t msg_id) { return shards_.MsgShardIndex(msg_id); });
  } catch (const std::exception&) {
    return -1;
  }
}

std::string Node::Execute(const std::string& peer, const std::string& body) {
  try {
    return service_->Handle(peer, body);
  } catch (const std::exception& e) {
    return net::EncodeReply(Json(), Status(Code::kStorageError, e.what()), nullptr);
  }
}

void Node::HandleBroker(const Frames& frames) {
  const Verb verb = ReadVerb(frames, 0);
  if (verb == Verb::kReq) {
    int home = Home(frames[3]);
    if (home >= 0 && !Owns(home)) {
      SendVerb(broker_, Verb::kRedirect, {frames[1], std::to_string(home)});
      return;
    }
    std::string reply = Execute(frames[2], frames[3]);
    SendVerb(broker_, Verb::kRep, {frames[1], reply});
  } else if (verb == Verb::kJob) {
    AnswerJob(frames[1], frames[2]);
  }
  // a stale ACK (its Deliver gave up) or anything else: nothing to do
}

void Node::HandleDirect(Frames frames) {
  net::ClientMessage message = net::SplitClientMessage(std::move(frames));
  std::string reply;
  if (!message.well_formed) {
    reply = net::MalformedMessage();
  } else {
    int home = Home(message.body);
    if (home >= 0 && !Owns(home)) {
      net::WireRequest wire;
      (void)ParseRequest(message.body, net::WireLimits{}, &wire);
      reply = net::EncodeReply(
          wire.id,
          Status(Code::kInvalidRequest, "shard " + std::to_string(home) +
                                            " is owned by another node: send this request "
                                            "to the cluster's broker"),
          nullptr);
    } else {
      reply = Execute(message.envelope[0], message.body);
    }
  }
  net::ReplyTo(direct_, message.envelope, reply);
}

// One pass over the outboxes of the owned shards (jobs.cc's DrainAllPending, which
// skips the shards this node does not own and delivers jobs for other nodes' shards).
void Node::DrainOwned() {
  try {
    Context ctx(shards_, Clock(0));
    ctx.set_transport(this);
    if (DrainAllPending(ctx) > 0) shards_.CheckpointOpened();
    if (Owns(0)) RefreshDiscover(ctx);  // weibo-discover's groups: one node draws them
  } catch (const Failure& f) {
    Log("drain: " + f.status().message());
  } catch (const std::exception& e) {
    Log(std::string("drain: ") + e.what());
  }
}

}  // namespace weibo::cluster

namespace weibo {

Status RunNode(const NodeOptions& options) {
  Status checked = daemon::CheckCluster(options.daemon.data_dir, options.shards);
  if (!checked.ok()) return checked;
  if (options.name.empty()) return Status(Code::kInvalidArgument, "a node needs a name");
  return StatusOf([&] {
    cluster::Node node(options);
    std::string endpoint;
    Status started = node.Start(&endpoint);
    if (!started.ok()) return started;
    daemon::StopSignals signals;
    if (options.daemon.on_ready) options.daemon.on_ready(endpoint);
    if (options.daemon.log)
      options.daemon.log("node " + options.name + " serving " + options.daemon.data_dir + " on " +
                         endpoint + ", joined " + options.join);
    node.Serve();
    const std::string refused = node.Refused();
    if (!refused.empty())
      return Status(Code::kUnavailable, "the broker refused node " + options.name + ": " + refused);
    if (options.daemon.log) options.daemon.log("node " + options.name + " stopped");
    return Status::Ok();
  });
}

}  // namespace weibo
