// Multipart ZeroMQ messages as vectors of strings, read and sent without blocking, and the
// brief poll before a sleep: the framing under every socket of weibod, the broker, the
// nodes and the client (the frames themselves are documented in weibod(1)).
#ifndef WEIBO_NET_FRAMES_H_
#define WEIBO_NET_FRAMES_H_

#include <chrono>
#include <cstddef>
#include <string>
#include <vector>
#include <zmq.hpp>
#include <zmq_addon.hpp>

namespace weibo::net {

using Frames = std::vector<std::string>;

// Reads one message if one is waiting (never blocks for the first frame); false when none
// was. Keeps the first `keep` frames; a message with more gets one empty frame appended, so
// a handler that counts frames sees it as malformed, and a million frames cost no memory.
// peer_address, when given, gets the message's "Peer-Address" property: the sender's IP
// address on tcp://, ZeroMQ's ":uid:gid:pid" of the peer process on ipc://, "" where the
// transport has none (inproc://).
bool RecvFrames(zmq::socket_t& socket, Frames* out, size_t keep = 8,
                std::string* peer_address = nullptr);

// Sends without blocking. False when the peer cannot be reached (a ROUTER socket with
// ZMQ_ROUTER_MANDATORY, or a full queue); the caller decides whether that matters.
bool SendFrames(zmq::socket_t& socket, const Frames& frames);
// The same for frames the caller holds elsewhere (a reply is sent without a copy).
bool SendBuffers(zmq::socket_t& socket, const std::vector<zmq::const_buffer>& frames);

// Whether a message is waiting on socket within `spin` and then `timeout`. For up to `spin`
// it polls without sleeping, yielding the CPU between polls; only then does it sleep in
// zmq_poll. A request/reply exchange hands each message from thread to thread four times
// (caller, ZeroMQ I/O thread, peer's I/O thread, peer); a thread that sleeps has to be woken,
// which on a virtual machine's CPUs took 30-50 µs of each round trip of a timeline read
// (README, Daemon latency). The yield leaves the CPU to whoever can run, such as the I/O
// threads. Throws zmq::error_t like zmq::poll (EINTR when a signal interrupts the sleep).
bool AwaitReadable(zmq::socket_t& socket, std::chrono::microseconds spin,
                   std::chrono::milliseconds timeout);

}  // namespace weibo::net

#endif  // WEIBO_NET_FRAMES_H_
