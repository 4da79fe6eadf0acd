#include "net/router.h"

#include <algorithm>
#include <cerrno>
#include <vector>

#include "net/wire.h"

namespace weibo::net {
namespace {

constexpr int kLingerMs = 1000;  // to flush the last replies on close

}  // namespace

Status SetUpSockets(const std::string& what, const std::function<void()>& setup) {
  try {
    setup();
    return Status::Ok();
  } catch (const zmq::error_t& e) {
    bool malformed = e.num() == EINVAL || e.num() == EPROTONOSUPPORT || e.num() == ENOCOMPATPROTO;
    return Status(malformed ? Code::kInvalidArgument : Code::kUnavailable, what + ": " + e.what());
  }
}

std::string BindForClients(zmq::socket_t& socket, const std::string& endpoint,
                           size_t max_msg_size) {
  socket.set(zmq::sockopt::maxmsgsize, static_cast<int64_t>(max_msg_size));
  socket.set(zmq::sockopt::linger, kLingerMs);
  socket.bind(endpoint);
  return socket.get(zmq::sockopt::last_endpoint);
}

ClientMessage SplitClientMessage(Frames frames) {
  ClientMessage out;
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
