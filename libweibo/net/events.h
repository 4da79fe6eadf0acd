// EventPublisher: the ZeroMQ PUB socket of weibod --events and of a cluster's broker
// (weibod(1), EVENTS). An event is one frame, "NAME {json}", NAME being the event's "event"
// field, so that a subscriber filters on the prefix. A cluster's nodes send their events to
// the broker (an EVT frame, cluster/protocol.h), which publishes them on its one socket.
#ifndef WEIBO_NET_EVENTS_H_
#define WEIBO_NET_EVENTS_H_

#include <memory>
#include <string>
#include <zmq.hpp>

#include "weibo/request.h"
#include "weibo/status.h"

namespace weibo::net {

class EventPublisher {
 public:
  // Binds a PUB socket at endpoint: loopback only unless auth (CheckLoopbackOnly says why);
  // errors as SetUpSockets. who names the option in them ("weibod --events").
  Status Open(zmq::context_t& context, const std::string& endpoint, bool auth,
              const std::string& who);
  // Publishes one frame without blocking; nothing when no socket is open. A subscriber
  // that is away or slow misses it: the durable record is elsewhere (weibo-app events).
  void Publish(const std::string& frame);

  static std::string Frame(const Json& event);

 private:
  std::unique_ptr<zmq::socket_t> socket_;
};

}  // namespace weibo::net

#endif  // WEIBO_NET_EVENTS_H_
