// Service: everything weibod does with a request body, above the socket — limits, the
// dedup window, the refusal of init, and execution by the embedded executor, through the
// operation table like any command. daemon/server.cc only moves frames.
#ifndef WEIBO_DAEMON_SERVICE_H_
#define WEIBO_DAEMON_SERVICE_H_

#include <functional>
#include <memory>
#include <string>

#include "daemon/rate_limiter.h"
#include "daemon/reply_cache.h"
#include "net/wire.h"
#include "weibo/daemon.h"
#include "weibo/request.h"

namespace weibo::daemon {

class Service {
 public:
  // transport: set by a cluster node (cluster/node.cc), so that the jobs a request creates
  // for shards of other nodes are sent to them.
  // on_event: where the events of the jobs it applies go (EmbeddedOptions::on_event;
  // weibod --events publishes them).
  explicit Service(const DaemonOptions& options, JobTransport* transport = nullptr,
                   std::function<void(const Json&)> on_event = nullptr);

  // The reply body for a request body sent by peer: the client as a rate limit without a
  // token counts it (net::ClientMessage::client). Never throws for anything it sends.
  std::string Handle(const std::string& peer, const std::string& body);
  // The same, given to `answer` as soon as it is encoded: what is left to free (a page of
  // messages, the request) is freed after the reply is on its way, while the client reads.
  void Handle(const std::string& peer, const std::string& body,
              const std::function<void(const std::string& reply)>& answer);
  // No request waiting: finishes the deferred work (Executor::Idle, the group commit).
  void Idle() { executor_->Idle(); }
  // Under steady load, every kIdleEveryMs (daemon/server.cc): the deferred work that is
  // due, without a batch the next request would wait for (Executor::Tick).
  void Tick() { executor_->Tick(); }
  // No request waiting: one step of Idle()'s work; whether more remains (Executor::IdleStep).
  bool IdleStep() { return executor_->IdleStep(); }
  // One pass of the drain op over every outbox (DaemonOptions::drain_interval_ms); what it
  // did, or why it failed, goes to the log when there is something to say.
  void DrainPending();

 private:
  std::unique_ptr<Executor> Open(bool explain) const;
  // Whether token grants anything now (--auth): weibo-token check, run here.
  bool TokenGood(const std::string& token);

  DaemonOptions options_;
  JobTransport* transport_;
  std::function<void(const Json&)> on_event_;
  net::WireLimits limits_;
  RateLimiter rate_;
  ReplyCache replies_;
  std::unique_ptr<Executor> executor_;  // keeps the shards open between requests
};

}  // namespace weibo::daemon

#endif  // WEIBO_DAEMON_SERVICE_H_
