// The server end of weibod's protocol on a ROUTER socket (man/weibod.1): binding, and a
// client's message taken apart and answered. weibod (daemon/server.cc), a cluster node's
// own endpoint (cluster/node.cc) and the broker's frontend (cluster/broker.cc) all speak
// it through these functions, so the three answer a malformed message alike.
//
// A client's message: [routing id][empty delimiter, from REQ clients][body]. A reply goes
// back behind the same envelope.
#ifndef WEIBO_NET_ROUTER_H_
#define WEIBO_NET_ROUTER_H_

#include <cstddef>
#include <functional>
#include <string>
#include <zmq.hpp>

#include "net/frames.h"
#include "weibo/status.h"

namespace weibo::net {

// Frames of a client's message worth keeping (RecvFrames): routing id, delimiter, body,
// and one too many, which is enough to tell a malformed message.
constexpr size_t kClientFrames = 4;

// Runs setup (socket options, bind, connect) and returns what ZeroMQ threw as a Status:
// invalid_argument for an endpoint ZeroMQ does not accept, unavailable for one it cannot
// bind or reach; the message is `what` + ": " + ZeroMQ's. A Failure (an endpoint Bind
// refused) is returned as its Status.
Status SetUpSockets(const std::string& what, const std::function<void()>& setup);

// Ok, or invalid_argument for a tcp:// endpoint whose port is neither * nor 1 to 65535:
// ZeroMQ reads "tcp://127.0.0.1:99999" as a wildcard and binds a random port, which would
// leave a daemon listening where nobody looks for it.
Status CheckBindEndpoint(const std::string& endpoint);

// Ok for an endpoint only this host can reach — tcp:// on 127.0.0.0/8, [::1] or localhost,
// ipc://, inproc:// — or when auth is on; else invalid_argument saying why: a server that
// checks no token must not be reachable from the network (weibod(1), AUTHENTICATION).
Status CheckLoopbackOnly(const std::string& endpoint, bool auth, const std::string& who);
// socket.bind(endpoint), refused first by CheckBindEndpoint (thrown as Failure, which
// SetUpSockets returns as it is). Every bind of weibod, a node and the broker goes through
// it. Throws zmq::error_t; call it inside SetUpSockets.
void Bind(zmq::socket_t& socket, const std::string& endpoint);

// Binds socket (a ROUTER) for clients: frames up to max_msg_size bytes, and a linger long
// enough to flush the last replies on close. Returns the endpoint bound (with the port
// chosen for a wildcard). Throws zmq::error_t or Failure (Bind); call it inside
// SetUpSockets.
std::string BindForClients(zmq::socket_t& socket, const std::string& endpoint, size_t max_msg_size);

// A client's message split at its body.
struct ClientMessage {
  Frames envelope;  // the routing id and the delimiter, when there is one
  std::string body;
  bool well_formed = false;  // exactly one body after the envelope
  // Who a rate limit without a token counts (weibod(1), LIMITS): "address A" for the peer
  // address RecvFrames read, so that a client opening many connections is still one
  // client; "connection ID" (the routing id) where the transport gives no address.
  std::string client;
};
ClientMessage SplitClientMessage(Frames frames, const std::string& peer_address = "");

// Sends reply behind envelope, without blocking; false when the peer is gone (a ROUTER
// drops what it cannot route: not an error).
bool ReplyTo(zmq::socket_t& socket, const Frames& envelope, const std::string& reply);

// The reply to a message whose frames do not hold exactly one body.
std::string MalformedMessage();

}  // namespace weibo::net

#endif  // WEIBO_NET_ROUTER_H_
