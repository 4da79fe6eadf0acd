#include "net/frames.h"

#include <cerrno>

namespace weibo::net {

bool RecvFrames(zmq::socket_t& socket, Frames* out, size_t keep) {
  out->clear();
  size_t count = 0;
  for (bool more = true; more; ++count) {
    zmq::message_t frame;
    if (!socket.recv(frame, count == 0 ? zmq::recv_flags::dontwait : zmq::recv_flags::none))
      return false;
    more = frame.more();
    if (out->size() < keep) out->push_back(frame.to_string());
  }
  if (count > keep) out->push_back(std::string());  // marks "too many frames"
  return true;
}

bool SendFrames(zmq::socket_t& socket, const Frames& frames) {
  std::vector<zmq::const_buffer> out;
  for (const auto& f : frames) out.push_back(zmq::buffer(f));
  try {
    return zmq::send_multipart(socket, out, zmq::send_flags::dontwait).has_value();
  } catch (const zmq::error_t& e) {
    if (e.num() == EHOSTUNREACH || e.num() == EAGAIN) return false;
    throw;
  }
}

}  // namespace weibo::net
