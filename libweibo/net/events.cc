#include "net/events.h"

#include "net/router.h"

namespace weibo::net {

Status EventPublisher::Open(zmq::context_t& context, const std::string& endpoint, bool auth,
                            const std::string& who) {
  Status open = CheckLoopbackOnly(endpoint, auth, who);
  if (!open.ok()) return open;
  return SetUpSockets("cannot bind " + who + " '" + endpoint + "'", [&] {
    socket_ = std::make_unique<zmq::socket_t>(context, zmq::socket_type::pub);
    socket_->set(zmq::sockopt::linger, 1000);  // the last events reach who is connected
    Bind(*socket_, endpoint);
  });
}

void EventPublisher::Publish(const std::string& frame) {
  if (socket_) socket_->send(zmq::buffer(frame), zmq::send_flags::dontwait);
}

std::string EventPublisher::Frame(const Json& event) {
  return event.value("event", std::string("event")) + " " + event.dump();
}

}  // namespace weibo::net
