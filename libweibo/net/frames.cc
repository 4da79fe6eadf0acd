#include "net/frames.h"

#include <sched.h>

#include <cerrno>

namespace weibo::net {

bool RecvFrames(zmq::socket_t& socket, Frames* out, size_t keep, std::string* peer_address) {
  out->clear();
  if (peer_address != nullptr) peer_address->clear();
  size_t count = 0;
  for (bool more = true; more; ++count) {
    zmq::message_t frame;
    if (!socket.recv(frame, count == 0 ? zmq::recv_flags::dontwait : zmq::recv_flags::none))
      return false;
    more = frame.more();
    // A ROUTER makes the routing id frame itself, without the connection's metadata: the
    // property is read from the first frame that came over the wire and has it.
    // The C call, not message_t::gets: that throws for the routing id frame, which has no
    // such property, and a throw per request was a measurable share of a hot count.
    if (peer_address != nullptr && peer_address->empty()) {
      const char* address = zmq_msg_gets(frame.handle(), "Peer-Address");
      if (address != nullptr)
        *peer_address = address;  // null: not on this frame, or no such transport
    }
    if (out->size() < keep) out->push_back(frame.to_string());
  }
  if (count > keep) out->push_back(std::string());  // marks "too many frames"
  return true;
}

bool SendFrames(zmq::socket_t& socket, const Frames& frames) {
  std::vector<zmq::const_buffer> out;
  for (const auto& f : frames) out.push_back(zmq::buffer(f));
  return SendBuffers(socket, out);
}

bool SendBuffers(zmq::socket_t& socket, const std::vector<zmq::const_buffer>& frames) {
  try {
    return zmq::send_multipart(socket, frames, zmq::send_flags::dontwait).has_value();
  } catch (const zmq::error_t& e) {
    if (e.num() == EHOSTUNREACH || e.num() == EAGAIN) return false;
    throw;
  }
}

bool AwaitReadable(zmq::socket_t& socket, std::chrono::microseconds spin,
                   std::chrono::milliseconds timeout) {
  zmq::pollitem_t item{socket.handle(), 0, ZMQ_POLLIN, 0};
  if (spin.count() > 0) {
    const auto end = std::chrono::steady_clock::now() + spin;
    do {
      if (zmq::poll(&item, 1, std::chrono::milliseconds(0)) > 0) return true;
      sched_yield();
    } while (std::chrono::steady_clock::now() < end);
  }
  return zmq::poll(&item, 1, timeout) > 0;
}

}  // namespace weibo::net
