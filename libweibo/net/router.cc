#include "net/router.h"

#include <algorithm>
#include <cerrno>
#include <vector>

#include "net/wire.h"
#include "storage/failure.h"

namespace weibo::net {
namespace {

constexpr int kLingerMs = 1000;  // to flush the last replies on close

}  // namespace

Status SetUpSockets(const std::string& what, const std::function<void()>& setup) {
  try {
    setup();
    return Status::Ok();
  } catch (const Failure& f) {
    return f.status();
  } catch (const zmq::error_t& e) {
    bool malformed = e.num() == EINVAL || e.num() == EPROTONOSUPPORT || e.num() == ENOCOMPATPROTO;
    return Status(malformed ? Code::kInvalidArgument : Code::kUnavailable, what + ": " + e.what());
  }
}

Status CheckBindEndpoint(const std::string& endpoint) {
  if (endpoint.compare(0, 6, "tcp://") != 0) return Status::Ok();  // ipc://, inproc://: no port
  const std::string port = endpoint.substr(endpoint.rfind(':') + 1);
  if (port == "*") return Status::Ok();
  bool digits = !port.empty() && port.size() <= 5 &&
                port.find_first_not_of("0123456789") == std::string::npos;
  if (digits && std::stoi(port) >= 1 && std::stoi(port) <= 65535) return Status::Ok();
  return Status(Code::kInvalidArgument,
                "cannot bind '" + endpoint + "': a TCP port is * or from 1 to 65535");
}

Status CheckLoopbackOnly(const std::string& endpoint, bool auth, const std::string& who) {
  if (auth || endpoint.compare(0, 6, "tcp://") != 0) return Status::Ok();
  const std::string host =
      endpoint.substr(6, endpoint.rfind(':') - std::min<size_t>(endpoint.rfind(':'), 6));
  if (host.compare(0, 4, "127.") == 0 || host == "[::1]" || host == "localhost")
    return Status::Ok();
  return Status(Code::kInvalidArgument,
                who +
                    " without --auth binds only a loopback address (tcp://127.0.0.1:PORT) "
                    "or ipc://, not '" +
                    endpoint +
                    "': without tokens, anyone who reaches it can act as any user; start it "
                    "with --auth to serve the network");
}

void Bind(zmq::socket_t& socket, const std::string& endpoint) {
  Status checked = CheckBindEndpoint(endpoint);
  if (!checked.ok()) throw Failure(checked);
  socket.bind(endpoint);
}

std::string BindForClients(zmq::socket_t& socket, const std::string& endpoint,
                           size_t max_msg_size) {
  socket.set(zmq::sockopt::maxmsgsize, static_cast<int64_t>(max_msg_size));
  socket.set(zmq::sockopt::linger, kLingerMs);
  Bind(socket, endpoint);
  return socket.get(zmq::sockopt::last_endpoint);
}

ClientMessage SplitClientMessage(Frames frames, const std::string& peer_address) {
  ClientMessage out;
  out.client = peer_address.empty() ? "connection " + (frames.empty() ? std::string() : frames[0])
                                    : "address " + peer_address;
  // frames[0] is the routing id; REQ clients put an empty delimiter before the body.
  size_t first_body = frames.size() >= 3 && frames[1].empty() ? 2 : 1;
  out.well_formed = frames.size() == first_body + 1;
  if (out.well_formed) out.body = std::move(frames[first_body]);
  frames.resize(std::min(first_body, frames.size()));
  out.envelope = std::move(frames);
  return out;
}

bool ReplyTo(zmq::socket_t& socket, const Frames& envelope, const std::string& reply) {
  std::vector<zmq::const_buffer> out;
  for (const auto& f : envelope) out.push_back(zmq::buffer(f));
  out.push_back(zmq::buffer(reply));
  return SendBuffers(socket, out);
}

std::string MalformedMessage() {
  return EncodeReply(
      Json(),
      Status(Code::kInvalidRequest, "a request is one frame, after an optional empty delimiter"),
      nullptr);
}

}  // namespace weibo::net
