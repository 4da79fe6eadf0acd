// CURVE on the cluster's own links (weibo-cluster(1), NODE LINKS): the broker's backend,
// where nodes register and jobs travel between them, is a CURVE server that admits only
// clients holding the cluster's node key. Two key pairs, made by `weibo-cluster up` in the
// data directory, 0600: DIR/curve-broker.key (the broker's) and DIR/curve-node.key (every
// node's), each two lines of Z85, the public key then the secret key. A process without
// curve-node.key's secret cannot complete the handshake, so it can neither register as a
// node nor inject jobs; a directory without the files runs the links in the clear.
#ifndef WEIBO_CLUSTER_CURVE_H_
#define WEIBO_CLUSTER_CURVE_H_

#include <atomic>
#include <optional>
#include <string>
#include <thread>
#include <zmq.hpp>

#include "weibo/status.h"

namespace weibo::cluster {

struct CurvePair {
  std::string public_key;  // Z85, 40 characters
  std::string secret_key;
};

struct CurveKeys {
  CurvePair broker, node;
};

// Makes DIR's two key pairs (zmq_curve_keypair) unless both files exist. unavailable
// when this libzmq has no CURVE; storage_error when a file cannot be written.
Status MakeCurveKeys(const std::string& dir);
// DIR's keys; nullopt when it has none (storage_error thrown as Failure for a damaged file).
std::optional<CurveKeys> LoadCurveKeys(const std::string& dir);

// A ROUTER socket made a CURVE server that admits only clients with `client`'s public key:
// a ZAP handler (RFC 27) on its own thread, answering the context's inproc ZAP endpoint,
// for as long as the object lives. Call Serve before binding the socket.
class CurveGate {
 public:
  CurveGate() = default;
  ~CurveGate();
  CurveGate(const CurveGate&) = delete;
  CurveGate& operator=(const CurveGate&) = delete;
  void Serve(zmq::context_t& context, zmq::socket_t& server, const CurveKeys& keys);
  int refused() const { return refused_.load(); }

 private:
  void Run(zmq::socket_t handler, std::string allowed);
  std::thread thread_;
  std::atomic<bool> stop_{false};
  std::atomic<int> refused_{0};
};

// Sets a DEALER's CURVE client options: the broker's public key and the node key pair.
void UseCurveClient(zmq::socket_t& socket, const CurveKeys& keys);

}  // namespace weibo::cluster

#endif  // WEIBO_CLUSTER_CURVE_H_
