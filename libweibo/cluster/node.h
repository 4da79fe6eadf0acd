// Node: one node of a cluster (weibo-cluster(1), weibod(1) CLUSTER PROTOCOL); RunNode in
// weibo/cluster.h runs one. cluster/node.cc serves clients and the broker;
// cluster/node_jobs.cc is the node as its executor's JobTransport.
//
// Sockets, all in one thread except the heartbeat:
//   broker_   DEALER, routing id = the node's name, connected to the broker's backend.
//             In: ["REQ", tag, client, body] a client request routed here,
//                 ["JOB", tag, job] a job for a shard this node owns,
//                 ["ACK", tag, ack] the answer to a job this node sent.
//             Out: ["REP", tag, body], ["REDIRECT", tag, shard], ["JOB", tag, job],
//                 ["ACK", tag, ack], ["BYE"] on a graceful stop (cluster/protocol.h).
//   direct_   ROUTER bound to the node's own endpoint: the ordinary protocol for requests
//             whose home shard this node owns (others are refused with invalid_request).
//   heartbeat thread: its own DEALER to the backend, sending ["HB", registration] every
//             heartbeat_ms, so a node busy with a long request is still alive and a
//             restarted broker learns the node again from the next heartbeat. In:
//             ["REFUSED", refusal] when the broker will not give this node its shards
//             (another live node owns them, or the layout gives them to another): the
//             node stops and RunNode returns unavailable with the reason; with retry (a
//             live process under this node's name, e.g. this node's previous run not yet
//             expired) only after kRefusedGiveUpMs of refusals.
//
// Jobs: when a drain (jobs.cc) meets a job for a shard another node owns, Deliver sends it
// through the broker and waits for the ACK. While it waits it keeps serving JOBs sent to
// it (two nodes delivering to each other never deadlock) and queues client requests for
// later. Every drain_interval_ms of idle time the node drains the outboxes of its own
// shards, so jobs left pending while an owner was down are delivered once it is back.
#ifndef WEIBO_CLUSTER_NODE_H_
#define WEIBO_CLUSTER_NODE_H_

#include <atomic>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>
#include <zmq.hpp>

#include "daemon/service.h"
#include "jobs/transport.h"
#include "net/frames.h"
#include "storage/shard_set.h"
#include "weibo/cluster.h"

namespace weibo::cluster {

class Node : public JobTransport {
 public:
  explicit Node(const NodeOptions& options);

  // Binds the node's own endpoint and connects to the broker; the endpoint bound in
  // *endpoint. invalid_argument or unavailable as RunDaemon.
  Status Start(std::string* endpoint);
  // Serves until SIGTERM or SIGINT (daemon/signals.h), then says BYE to the broker; or
  // until the broker refuses this node's registration (Refused).
  void Serve();
  // Why the broker refused this node's registration (Serve returned because of it), or "".
  std::string Refused() const { return refused_ ? refusal_ : std::string(); }

  // JobTransport (cluster/node_jobs.cc)
  bool Owns(int shard) const override {
    return shard >= 0 && shard < static_cast<int>(owned_.size()) && owned_[shard];
  }
  bool Deliver(const JobRow& job) override;
  void DeliverBatch(const std::vector<JobRow>& jobs, std::vector<bool>* acked) override;

 private:
  static constexpr int kPollMs = 50;              // how soon a signal, a request or an ACK is seen
  static constexpr int kRefusedGiveUpMs = 10000;  // a broker's expiry is 1.5 s by default

  void Log(const std::string& line);
  void Heartbeat();
  int Home(const std::string& body);
  std::string Execute(const std::string& peer, const std::string& body);
  void HandleBroker(const net::Frames& frames);
  void HandleDirect(net::Frames frames);
  void AnswerJob(const std::string& tag, const std::string& body);
  void DrainOwned();

  NodeOptions options_;
  ShardSet shards_;  // the node's own connections: routing, jobs sent to it, drains
  std::vector<bool> owned_;
  zmq::context_t context_;
  zmq::socket_t broker_;
  zmq::socket_t direct_;
  // The events of the jobs this node applies, for a client's request or another node's
  // JOB alike: sent to the broker (Node::Node).
  std::function<void(const Json&)> on_event_;
  std::unique_ptr<daemon::Service> service_;  // client requests, on its executor's connections
  std::deque<net::Frames> queue_;             // requests that arrived during a Deliver
  std::string endpoint_;
  uint64_t next_tag_ = 0;
  std::map<std::string, bool> stray_acks_;  // tag -> ok, read by a nested delivery
  std::atomic<bool> stop_{false};
  std::atomic<bool> refused_{false};  // set by the heartbeat thread
  std::string refusal_;               // written before refused_ is set, read after
};

}  // namespace weibo::cluster

#endif  // WEIBO_CLUSTER_NODE_H_
