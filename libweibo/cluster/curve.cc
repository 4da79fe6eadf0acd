#include "cluster/curve.h"

#include <zmq.h>

#include <fstream>

#include "net/frames.h"
#include "storage/failure.h"
#include "storage/files.h"

namespace weibo::cluster {
namespace {

constexpr const char* kBrokerFile = "curve-broker.key";
constexpr const char* kNodeFile = "curve-node.key";
constexpr const char* kZapEndpoint = "inproc://zeromq.zap.01";
constexpr const char* kZapDomain = "weibo-cluster";

// False when the file does not exist.
bool ReadPair(const std::string& path, CurvePair* pair) {
  std::ifstream in(path);
  if (!in) return false;
  if (!std::getline(in, pair->public_key) || !std::getline(in, pair->secret_key) ||
      pair->public_key.size() != 40 || pair->secret_key.size() != 40)
    Fail(Code::kStorageError, path + " is not a CURVE key pair (two lines of 40 Z85 characters)");
  return true;
}

Status WritePair(const std::string& path) {
  char public_key[41], secret_key[41];
  if (zmq_curve_keypair(public_key, secret_key) != 0)
    return Status(Code::kUnavailable, "this libzmq has no CURVE (zmq_curve_keypair failed)");
  if (!WritePrivateFile(path, std::string(public_key) + "\n" + secret_key + "\n"))
    return Status(Code::kStorageError, "cannot write " + path);
  return Status::Ok();
}

}  // namespace

Status MakeCurveKeys(const std::string& dir) {
  for (const char* file : {kBrokerFile, kNodeFile}) {
    const std::string path = dir + "/" + file;
    if (std::ifstream(path)) continue;
    Status s = WritePair(path);
    if (!s.ok()) return s;
  }
  return Status::Ok();
}

std::optional<CurveKeys> LoadCurveKeys(const std::string& dir) {
  std::optional<CurveKeys> keys(std::in_place);
  if (!ReadPair(dir + "/" + kBrokerFile, &keys->broker) ||
      !ReadPair(dir + "/" + kNodeFile, &keys->node))
    keys.reset();
  return keys;
}

CurveGate::~CurveGate() {
  stop_ = true;
  if (thread_.joinable()) thread_.join();
}

void CurveGate::Serve(zmq::context_t& context, zmq::socket_t& server, const CurveKeys& keys) {
  zmq::socket_t handler(context, zmq::socket_type::rep);
  handler.set(zmq::sockopt::linger, 0);
  handler.bind(kZapEndpoint);  // before the server handshakes, so no client slips through
  server.set(zmq::sockopt::curve_server, true);
  server.set(zmq::sockopt::curve_secretkey, keys.broker.secret_key);
  server.set(zmq::sockopt::zap_domain, kZapDomain);
  uint8_t allowed[32];
  zmq_z85_decode(allowed, keys.node.public_key.c_str());
  thread_ = std::thread(&CurveGate::Run, this, std::move(handler),
                        std::string(reinterpret_cast<char*>(allowed), sizeof allowed));
}

// ZAP (RFC 27): [version, request id, domain, address, identity, mechanism, credentials...]
// answered with [version, request id, status code, status text, user id, metadata].
void CurveGate::Run(zmq::socket_t handler, std::string allowed) {
  while (!stop_) {
    net::Frames frames;
    try {
      zmq::pollitem_t item{handler.handle(), 0, ZMQ_POLLIN, 0};
      if (zmq::poll(&item, 1, std::chrono::milliseconds(100)) == 0) continue;
      if (!net::RecvFrames(handler, &frames, 8)) continue;
    } catch (const zmq::error_t&) {  // EINTR from a signal: the broker decides when to stop
      continue;
    }
    // The context's other sockets (the broker's frontend: clients, NULL mechanism) ask too,
    // under another domain: they are the tokens' business, not this gate's.
    const bool ours = frames.size() >= 3 && frames[2] == kZapDomain;
    const bool ok = !ours || (frames.size() >= 7 && frames[0] == "1.0" && frames[5] == "CURVE" &&
                              frames[6] == allowed);
    if (!ok) ++refused_;
    net::SendFrames(handler, {"1.0", frames.size() > 1 ? frames[1] : "", ok ? "200" : "400",
                              ok ? "OK" : "not the cluster's node key", "", ""});
  }
}

void UseCurveClient(zmq::socket_t& socket, const CurveKeys& keys) {
  socket.set(zmq::sockopt::curve_serverkey, keys.broker.public_key);
  socket.set(zmq::sockopt::curve_publickey, keys.node.public_key);
  socket.set(zmq::sockopt::curve_secretkey, keys.node.secret_key);
}

}  // namespace weibo::cluster
