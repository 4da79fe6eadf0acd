// RunDaemon: weibod's socket loop (man/weibod.1). One ROUTER socket, one thread: requests
// are read, executed and answered one at a time, so the shards see exactly the sequence of
// writes an embedded user would make, and a retried request that is still queued behind
// its first copy finds that copy's reply in the dedup window.
//
// Frames: [routing id][empty delimiter, from REQ clients][body] (net/router.h). The reply
// reuses the envelope. Everything about the body is daemon/service.cc's business.
//
// Shutdown: SIGTERM or SIGINT sets a flag the loop sees within one poll interval; the loop
// then answers what has already arrived (for at most drain_ms), and the socket lingers
// long enough to flush those replies.
#include "daemon/server.h"

#include <chrono>
#include <exception>
#include <vector>
#include <zmq.hpp>
#include <zmq_addon.hpp>

#include "daemon/service.h"
#include "daemon/signals.h"
#include "net/events.h"
#include "net/frames.h"
#include "net/router.h"
#include "net/wire.h"
#include "storage/failure.h"
#include "storage/shard_set.h"
#include "weibo/daemon.h"

namespace weibo {
namespace {

constexpr int kPollMs = 100;      // how soon a signal is noticed
constexpr int kQuietMs = 2;       // no request for this long, with work deferred: Idle()
constexpr int kIdleEveryMs = 50;  // under steady load, Tick() at least this often
// After a reply, how long to wait for the next request without sleeping (net/frames.h).
constexpr std::chrono::microseconds kSpin(300);

// Reads one message if one is waiting and answers it; false when none was waiting.
// Only the first frames are kept: a message of a million frames costs no memory here.
bool ServeOne(zmq::socket_t& socket, daemon::Service& service) {
  net::Frames frames;
  std::string address;
  if (!net::RecvFrames(socket, &frames, net::kClientFrames, &address)) return false;
  net::ClientMessage message = net::SplitClientMessage(std::move(frames), address);
  // The reply is sent as soon as it is encoded (Service::Handle frees the rest after).
  auto send = [&](const std::string& reply) { net::ReplyTo(socket, message.envelope, reply); };
  bool answered = false;
  try {
    if (!message.well_formed) {
      send(net::MalformedMessage());
      return true;
    }
    service.Handle(message.client, message.body, [&](const std::string& reply) {
      answered = true;
      send(reply);
    });
  } catch (const zmq::error_t&) {
    throw;                             // the socket's, for the loop to judge
  } catch (const std::exception& e) {  // out of memory, or a bug: answer, keep serving
    if (!answered) send(net::EncodeReply(Json(), Status(Code::kStorageError, e.what()), nullptr));
  }
  return true;
}

bool Readable(zmq::socket_t& socket, int timeout_ms, std::chrono::microseconds spin = {}) {
  return net::AwaitReadable(socket, spin, std::chrono::milliseconds(timeout_ms));
}

// Serves until SIGTERM or SIGINT (daemon/signals.h). A signal interrupting a call is not an error.
// Deferred work (the group commit of deliveries) is finished when no request has come for
// kQuietMs (Idle, one step at a time, stopped when a request arrives: all at once, it made
// weibod's read p999 50 ms on the retwis trace, the next request waiting for every shard's
// transaction); under steady load, at least every kIdleEveryMs, what is due of it is done
// without a batch the next request would wait for (Tick: every held delivery applied there,
// as Idle does, made a timeline read's p99 26 ms through the daemon against 1.6 embedded,
// on the retwis trace at 3000 users; 1.4-1.7 ms after). At start and then every
// drain_interval_ms (0: never), when no request is waiting, one pass of the drain op applies
// the jobs others left pending (Service::DrainPending).
void ServeUntilSignal(zmq::socket_t& socket, daemon::Service& service, int drain_interval_ms,
                      long* served) {
  using Clock = std::chrono::steady_clock;
  bool owed = false;  // requests served since the last Idle()
  auto last_tick = Clock::now();
  auto next_drain = Clock::now();  // the first pass at start: what a crash left behind
  // Idle()'s work in steps (Executor::IdleStep), stopped as soon as a request is readable:
  // what is left is done at the next quiet moment, or what is due of it at the next tick.
  auto idle = [&] {
    while (service.IdleStep())
      if (daemon::StopSignals::Stopped() || Readable(socket, 0)) return;
    owed = false;
    last_tick = Clock::now();
  };
  while (!daemon::StopSignals::Stopped()) {
    try {
      // Just after a reply the next request of the same client is likely on its way.
      if (Readable(socket, owed ? kQuietMs : kPollMs, owed ? kSpin : std::chrono::microseconds())) {
        while (!daemon::StopSignals::Stopped() && ServeOne(socket, service)) {
          ++*served;
          owed = true;
        }
        if (owed && Clock::now() - last_tick >= std::chrono::milliseconds(kIdleEveryMs)) {
          service.Tick();
          last_tick = Clock::now();
        }
      } else if (owed) {
        idle();
      }
      if (drain_interval_ms > 0 && Clock::now() >= next_drain && !Readable(socket, 0)) {
        service.DrainPending();
        next_drain = Clock::now() + std::chrono::milliseconds(drain_interval_ms);
      }
    } catch (const zmq::error_t& e) {
      if (e.num() != EINTR) throw;
    }
  }
}

// Answers the requests that have already arrived, for at most drain_ms.
void Drain(zmq::socket_t& socket, daemon::Service& service, int drain_ms, long* served) {
  auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(drain_ms);
  while (std::chrono::steady_clock::now() < deadline) {
    try {
      if (!ServeOne(socket, service)) return;
      ++*served;
    } catch (const zmq::error_t& e) {
      if (e.num() != EINTR) throw;
    }
  }
}

}  // namespace

namespace daemon {

Status CheckCluster(const std::string& dir, const std::vector<int>& owned) {
  return StatusOf([&] {
    ShardSet shards(dir, nullptr);
    for (int s : owned)
      if (s < 0 || s >= shards.count())
        return Status(Code::kInvalidArgument, "shard " + std::to_string(s) + " does not exist");
    for (int i = 0; i < shards.count(); ++i) shards.At(i);
    return Status::Ok();
  });
}

}  // namespace daemon

Status RunDaemon(const DaemonOptions& options) {
  Status loopback = net::CheckLoopbackOnly(options.bind, options.auth, "weibod");
  if (!loopback.ok()) return loopback;
  Status cluster = daemon::CheckCluster(options.data_dir);
  if (!cluster.ok()) return cluster;
  zmq::context_t context;
  zmq::socket_t socket(context, zmq::socket_type::router);
  std::string endpoint;
  Status bound = net::SetUpSockets("cannot bind '" + options.bind + "'", [&] {
    endpoint = net::BindForClients(socket, options.bind, options.max_msg_size);
  });
  if (!bound.ok()) return bound;
  // weibod --events: revocations as they reach their apps' events (DaemonOptions::events).
  net::EventPublisher events;
  if (!options.events.empty()) {
    Status open = events.Open(context, options.events, options.auth, "weibod --events");
    if (!open.ok()) return open;
  }
  auto publish = [&events](const Json& event) {
    events.Publish(net::EventPublisher::Frame(event));
  };
  daemon::Service service(options, nullptr, publish);
  daemon::StopSignals signals;
  if (options.on_ready) options.on_ready(endpoint);
  if (options.log)
    options.log("serving " + options.data_dir + " on " + endpoint +
                (options.auth ? " (--auth: every request needs a token)" : ""));
  long served = 0;
  try {
    ServeUntilSignal(socket, service, options.drain_interval_ms, &served);
    Drain(socket, service, options.drain_ms, &served);
  } catch (const zmq::error_t& e) {
    return Status(Code::kUnavailable, std::string("socket failed: ") + e.what());
  }
  if (options.log) options.log("stopped after " + std::to_string(served) + " requests");
  return Status::Ok();
}

}  // namespace weibo
