// RunNode: one node of a cluster (weibo-cluster(1), weibod(1) CLUSTER PROTOCOL).
//
// Sockets, all in one thread except the heartbeat:
//   broker_   DEALER, routing id = the node's name, connected to the broker's backend.
//             In: ["REQ", tag, client, body] a client request routed here,
//                 ["JOB", tag, job] a job for a shard this node owns,
//                 ["ACK", tag, ack] the answer to a job this node sent.
//             Out: ["REP", tag, body], ["REDIRECT", tag, shard], ["JOB", tag, job],
//                 ["ACK", tag, ack], ["BYE"] on a graceful stop.
//   direct_   ROUTER bound to the node's own endpoint: the ordinary protocol for requests
//             whose home shard this node owns (others are refused with invalid_request).
//   heartbeat thread: its own DEALER to the backend, sending ["HB", registration] every
//             heartbeat_ms, so a node busy with a long request is still alive and a
//             restarted broker learns the node again from the next heartbeat.
//
// Jobs: this node is its executor's JobTransport. When a drain (jobs.cc) meets a job for
// a shard another node owns, Deliver sends it through the broker and waits for the ACK.
// While it waits it keeps serving JOBs sent to it (two nodes delivering to each other
// never deadlock) and queues client requests for later. Every drain_interval_ms of idle
// time the node drains the outboxes of its own shards, so jobs left pending while an
// owner was down are delivered once it is back.
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <deque>
#include <map>
#include <set>
#include <thread>
#include <zmq.hpp>
#include <zmq_addon.hpp>

#include "jobs/jobs.h"
#include "jobs/transport.h"
#include "net/frames.h"
#include "net/routing.h"
#include "net/service.h"
#include "net/signals.h"
#include "storage/failure.h"
#include "storage/shard_set.h"
#include "tables/user_name.h"
#include "weibo/cluster.h"

namespace weibo {
namespace {

using net::Frames;
using net::RecvFrames;
using net::SendFrames;
using SteadyClock = std::chrono::steady_clock;

constexpr int kPollMs = 50;
constexpr int kIdleEveryMs = 50;  // under steady load, the group commit at least this often
constexpr int kLingerMs = 1000;

Json JobToJson(const JobRow& job) {
  return Json{{"source", job.source_shard}, {"local_id", job.local_id},
              {"target", job.target_shard}, {"kind", job.kind},
              {"payload", job.payload},     {"created", job.created}};
}

JobRow JobFromJson(const Json& j) {
  JobRow row;
  row.source_shard = j.at("source").get<int>();
  row.local_id = j.at("local_id").get<int64_t>();
  row.target_shard = j.at("target").get<int>();
  row.kind = j.at("kind").get<std::string>();
  row.payload = j.at("payload").get<std::string>();
  row.created = j.at("created").get<int64_t>();
  return row;
}

class Node : public JobTransport {
 public:
  explicit Node(const NodeOptions& options)
      : options_(options),
        shards_(options.daemon.data_dir, nullptr),
        owned_(shards_.count(), false),
        broker_(context_, zmq::socket_type::dealer),
        direct_(context_, zmq::socket_type::router) {
    for (int s : options.shards) owned_.at(s) = true;
    DaemonOptions daemon = options.daemon;
    service_ = std::make_unique<net::Service>(daemon, this);
  }

  Status Start(std::string* endpoint) {
    Status checked = net::CheckBindEndpoint(options_.daemon.bind);
    if (!checked.ok()) return checked;
    try {
      direct_.set(zmq::sockopt::maxmsgsize, static_cast<int64_t>(options_.daemon.max_msg_size));
      direct_.set(zmq::sockopt::linger, kLingerMs);
      direct_.bind(options_.daemon.bind);
      *endpoint = direct_.get(zmq::sockopt::last_endpoint);
      broker_.set(zmq::sockopt::routing_id, options_.name);
      broker_.set(zmq::sockopt::linger, kLingerMs);
      broker_.connect(options_.join);
    } catch (const zmq::error_t& e) {
      bool malformed = e.num() == EINVAL || e.num() == EPROTONOSUPPORT || e.num() == ENOCOMPATPROTO;
      return Status(malformed ? Code::kInvalidArgument : Code::kUnavailable,
                    std::string("cannot bind or connect: ") + e.what());
    }
    endpoint_ = *endpoint;
    return Status::Ok();
  }

  void Serve() {
    std::thread heartbeat([this] { Heartbeat(); });
    auto next_drain = SteadyClock::now();
    auto last_idle = SteadyClock::now();
    while (!net::StopSignals::Stopped()) {
      try {
        while (!queue_.empty() && !net::StopSignals::Stopped()) {
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
          while (RecvFrames(direct_, &frames, 4)) HandleDirect(frames);
        // The group commit of the client requests' deliveries (net/server.cc does the same).
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
    SendFrames(broker_, {"BYE"});
    stop_ = true;
    heartbeat.join();
  }

  // JobTransport
  bool Owns(int shard) const override {
    return shard >= 0 && shard < static_cast<int>(owned_.size()) && owned_[shard];
  }

  bool Deliver(const JobRow& job) override {
    std::vector<bool> acked;
    DeliverBatch({job}, &acked);
    return acked[0];
  }

  // Sends every job, then waits (up to job_timeout_ms) for all their ACKs: the owners
  // apply them in parallel. Meanwhile JOBs sent to this node are applied (two nodes
  // delivering to each other never deadlock) and client requests wait in queue_.
  void DeliverBatch(const std::vector<JobRow>& jobs, std::vector<bool>* acked) override {
    acked->assign(jobs.size(), false);
    std::map<std::string, size_t> waiting;  // tag -> index
    for (size_t i = 0; i < jobs.size(); ++i) {
      const std::string tag = std::to_string(++next_tag_);
      SendFrames(broker_, {"JOB", tag, JobToJson(jobs[i]).dump()});
      waiting[tag] = i;
    }
    const auto deadline = SteadyClock::now() + std::chrono::milliseconds(options_.job_timeout_ms);
    while (!waiting.empty() && SteadyClock::now() < deadline) {
      // ACKs a nested delivery (a JOB applied while waiting) read on this one's behalf.
      for (auto it = waiting.begin(); it != waiting.end();) {
        auto stray = stray_acks_.find(it->first);
        if (stray == stray_acks_.end()) {
          ++it;
          continue;
        }
        (*acked)[it->second] = stray->second;
        stray_acks_.erase(stray);
        it = waiting.erase(it);
      }
      if (waiting.empty()) break;
      zmq::pollitem_t item{broker_.handle(), 0, ZMQ_POLLIN, 0};
      try {
        zmq::poll(&item, 1, std::chrono::milliseconds(kPollMs));
      } catch (const zmq::error_t& e) {
        if (e.num() == EINTR) continue;
        throw;
      }
      Frames frames;
      while (!waiting.empty() && RecvFrames(broker_, &frames)) {
        if (frames.size() >= 3 && frames[0] == "ACK") {
          Json ack = Json::parse(frames[2], nullptr, false);
          bool ok = ack.is_object() && ack.value("ok", false);
          auto it = waiting.find(frames[1]);
          if (it == waiting.end()) {
            // An outer delivery's (we are nested in it), or one given up on: kept for a
            // while, bounded.
            if (stray_acks_.size() > 10000) stray_acks_.clear();
            stray_acks_[frames[1]] = ok;
            continue;
          }
          (*acked)[it->second] = ok;
          waiting.erase(it);
        } else if (frames.size() >= 3 && frames[0] == "JOB") {
          AnswerJob(frames[1], frames[2]);
        } else {
          queue_.push_back(std::move(frames));  // a client request: after this one
        }
      }
    }
  }

 private:
  void Log(const std::string& line) {
    if (options_.daemon.log) options_.daemon.log(line);
  }

  void Heartbeat() {
    zmq::socket_t socket(context_, zmq::socket_type::dealer);
    socket.set(zmq::sockopt::linger, 0);
    socket.set(zmq::sockopt::sndhwm, 4);
    socket.connect(options_.join);
    Json reg = {{"node", options_.name},
                {"endpoint", endpoint_},
                {"pid", static_cast<int64_t>(getpid())},
                {"incarnation", std::to_string(getpid()) + "-" +
                                    std::to_string(SteadyClock::now().time_since_epoch().count())},
                {"count", shards_.count()},
                {"shards", options_.shards}};
    const std::string body = reg.dump();
    while (!stop_) {
      SendFrames(socket, {"HB", body});
      for (int waited = 0; waited < options_.heartbeat_ms && !stop_; waited += 10)
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
  }

  // The home shard of a request body, resolving "@name" users from the name's shard file;
  // -1 when it has none or cannot be read.
  int Home(const std::string& body) {
    net::WireRequest wire;
    if (!ParseRequest(
             body, net::WireLimits{options_.daemon.max_msg_size, options_.daemon.max_depth}, &wire)
             .ok())
      return -1;
    try {
      return net::HomeShard(wire.request, shards_.count(), [this](const std::string& name) {
        return LookupName(shards_.At(shards_.ShardOfName(name)), name);
      });
    } catch (const std::exception&) {
      return -1;
    }
  }

  std::string Execute(const std::string& peer, const std::string& body) {
    try {
      return service_->Handle(peer, body);
    } catch (const std::exception& e) {
      return net::EncodeReply(Json(), Status(Code::kStorageError, e.what()), nullptr);
    }
  }

  void HandleBroker(Frames& frames) {
    if (frames.size() >= 4 && frames[0] == "REQ") {
      int home = Home(frames[3]);
      if (home >= 0 && !Owns(home)) {
        SendFrames(broker_, {"REDIRECT", frames[1], std::to_string(home)});
        return;
      }
      std::string reply = Execute(frames[2], frames[3]);
      SendFrames(broker_, {"REP", frames[1], reply});
    } else if (frames.size() >= 3 && frames[0] == "JOB") {
      AnswerJob(frames[1], frames[2]);
    }
    // a stale ACK (its Deliver gave up) or anything else: nothing to do
  }

  void HandleDirect(Frames& frames) {
    if (frames.empty()) return;
    size_t first_body = frames.size() >= 3 && frames[1].empty() ? 2 : 1;
    std::string reply;
    if (frames.size() != first_body + 1) {
      reply = net::Service::MalformedMessage();
    } else {
      int home = Home(frames[first_body]);
      if (home >= 0 && !Owns(home)) {
        net::WireRequest wire;
        (void)ParseRequest(frames[first_body], net::WireLimits{}, &wire);
        reply = net::EncodeReply(
            wire.id,
            Status(Code::kInvalidRequest, "shard " + std::to_string(home) +
                                              " is owned by another node: send this request "
                                              "to the cluster's broker"),
            nullptr);
      } else {
        reply = Execute(frames[0], frames[first_body]);
      }
    }
    Frames out(frames.begin(), frames.begin() + first_body);
    out.push_back(reply);
    SendFrames(direct_, out);
  }

  // Applies a job sent by another node (idempotently: job_applied), follows up the jobs it
  // created, and acknowledges. The source marks it done on this ACK.
  void AnswerJob(const std::string& tag, const std::string& body) {
    Json ack;
    try {
      JobRow job = JobFromJson(Json::parse(body));
      if (!Owns(job.target_shard))
        Fail(Code::kUnavailable, "shard " + std::to_string(job.target_shard) + " is not mine");
      Context ctx(shards_, Clock(job.created));
      ctx.set_transport(this);
      Shard& target = shards_.At(job.target_shard);
      bool applied = false;
      {
        WriteTxn txn(target);
        applied = ApplyJobInTxn(ctx, target, job);
        txn.Commit();
      }
      DrainCreated(ctx);
      ack = Json{{"ok", true}, {"applied", applied}};
    } catch (const Failure& f) {
      ack = Json{{"ok", false}, {"error", f.status().message()}};
    } catch (const std::exception& e) {
      ack = Json{{"ok", false}, {"error", e.what()}};
    }
    SendFrames(broker_, {"ACK", tag, ack.dump()});
  }

  // One pass over the outboxes of the owned shards (jobs.cc's DrainAllPending, which
  // skips the shards this node does not own and delivers jobs for other nodes' shards).
  void DrainOwned() {
    try {
      Context ctx(shards_, Clock(0));
      ctx.set_transport(this);
      if (DrainAllPending(ctx) > 0) shards_.CheckpointOpened();
    } catch (const Failure& f) {
      Log("drain: " + f.status().message());
    } catch (const std::exception& e) {
      Log(std::string("drain: ") + e.what());
    }
  }

  NodeOptions options_;
  ShardSet shards_;  // the node's own connections: routing, jobs sent to it, drains
  std::vector<bool> owned_;
  zmq::context_t context_;
  zmq::socket_t broker_;
  zmq::socket_t direct_;
  std::unique_ptr<net::Service> service_;  // client requests, on its executor's connections
  std::deque<Frames> queue_;               // requests that arrived during a Deliver
  std::string endpoint_;
  uint64_t next_tag_ = 0;
  std::map<std::string, bool> stray_acks_;  // tag -> ok, read by a nested delivery
  std::atomic<bool> stop_{false};
};

}  // namespace

Result<std::vector<int>> ParseShardList(const std::string& list, int count) {
  std::set<int> out;
  size_t pos = 0;
  auto bad = [&](const std::string& why) {
    return Status(Code::kInvalidArgument, "--shards '" + list + "': " + why);
  };
  if (list.empty()) return bad("empty");
  while (pos <= list.size()) {
    size_t comma = list.find(',', pos);
    std::string item =
        list.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
    size_t dash = item.find('-');
    auto number = [](const std::string& s, int* v) {
      if (s.empty() || s.size() > 3 || s.find_first_not_of("0123456789") != std::string::npos)
        return false;
      *v = std::stoi(s);
      return true;
    };
    int lo = 0, hi = 0;
    if (dash == std::string::npos) {
      if (!number(item, &lo)) return bad("'" + item + "' is not a shard number");
      hi = lo;
    } else if (!number(item.substr(0, dash), &lo) || !number(item.substr(dash + 1), &hi) ||
               lo > hi) {
      return bad("'" + item + "' is not a range of shards");
    }
    for (int s = lo; s <= hi; ++s) {
      if (count > 0 && s >= count)
        return bad("shard " + std::to_string(s) + " does not exist (the cluster has " +
                   std::to_string(count) + ")");
      out.insert(s);
    }
    if (comma == std::string::npos) break;
    pos = comma + 1;
  }
  return std::vector<int>(out.begin(), out.end());
}

Status RunNode(const NodeOptions& options) {
  try {
    ShardSet check(options.daemon.data_dir, nullptr);
    for (int s : options.shards)
      if (s < 0 || s >= check.count())
        return Status(Code::kInvalidArgument, "shard " + std::to_string(s) + " does not exist");
    for (int i = 0; i < check.count(); ++i) check.At(i);
  } catch (const Failure& f) {
    return f.status();
  } catch (const std::exception& e) {
    return Status(Code::kStorageError, e.what());
  }
  if (options.name.empty()) return Status(Code::kInvalidArgument, "a node needs a name");
  try {
    Node node(options);
    std::string endpoint;
    Status started = node.Start(&endpoint);
    if (!started.ok()) return started;
    net::StopSignals signals;
    if (options.daemon.on_ready) options.daemon.on_ready(endpoint);
    if (options.daemon.log)
      options.daemon.log("node " + options.name + " serving " + options.daemon.data_dir + " on " +
                         endpoint + ", joined " + options.join);
    node.Serve();
    if (options.daemon.log) options.daemon.log("node " + options.name + " stopped");
    return Status::Ok();
  } catch (const Failure& f) {
    return f.status();
  } catch (const std::exception& e) {
    return Status(Code::kStorageError, e.what());
  }
}

}  // namespace weibo
