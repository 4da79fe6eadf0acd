// rogue_node: a process that speaks the node side of the broker's backend protocol
// (weibod(1), CLUSTER PROTOCOL) and nothing else, to test that the broker keeps its
// routing correct whatever registers (issue 11, defect 5).
//
//   rogue_node BACKEND NAME SHARD_COUNT SHARDS MS
//
// Heartbeats ["HB", registration] for NAME claiming SHARDS (comma-separated) every 100 ms
// for MS milliseconds, then goes quiet (exits without a BYE, as a crashed node would).
// It never answers a request. Prints "refused: <reason>" (with " (retry)" when the broker
// says so) for the first REFUSED it gets; exits 0 when it was refused, 3 when it was not.
// With ROGUE_CURVE_DIR set it holds that data directory's CURVE node key (a misbehaving
// member of the cluster, past the handshake); without, the broker's CURVE gate keeps it
// out before any of this (tests/cluster/curve.sh).
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>
#include <zmq.hpp>
#include <zmq_addon.hpp>

int main(int argc, char** argv) {
  if (argc != 6) {
    std::cerr << "usage: rogue_node BACKEND NAME SHARD_COUNT SHARDS MS\n";
    return 2;
  }
  std::vector<int> shards;
  std::stringstream list(argv[4]);
  for (std::string item; std::getline(list, item, ',');) shards.push_back(std::stoi(item));
  nlohmann::json reg = {{"node", argv[2]},
                        {"endpoint", "tcp://127.0.0.1:1"},
                        {"pid", static_cast<int64_t>(getpid())},
                        {"incarnation", "rogue-" + std::to_string(getpid())},
                        {"count", std::stoi(argv[3])},
                        {"shards", shards}};
  zmq::context_t context;
  zmq::socket_t socket(context, zmq::socket_type::dealer);
  socket.set(zmq::sockopt::linger, 0);
  if (const char* dir = std::getenv("ROGUE_CURVE_DIR")) {  // cluster/curve.h's two files
    std::string broker_public, node_public, node_secret;
    std::ifstream(std::string(dir) + "/curve-broker.key") >> broker_public;
    std::ifstream(std::string(dir) + "/curve-node.key") >> node_public >> node_secret;
    socket.set(zmq::sockopt::curve_serverkey, broker_public);
    socket.set(zmq::sockopt::curve_publickey, node_public);
    socket.set(zmq::sockopt::curve_secretkey, node_secret);
  }
  socket.connect(argv[1]);
  const auto end = std::chrono::steady_clock::now() + std::chrono::milliseconds(std::stoi(argv[5]));
  bool refused = false;
  while (std::chrono::steady_clock::now() < end) {
    const std::string hb = "HB", body = reg.dump();
    socket.send(zmq::buffer(hb), zmq::send_flags::sndmore);
    socket.send(zmq::buffer(body), zmq::send_flags::none);
    zmq::pollitem_t item{socket.handle(), 0, ZMQ_POLLIN, 0};
    if (zmq::poll(&item, 1, std::chrono::milliseconds(100)) == 0) continue;
    std::vector<zmq::message_t> frames;
    if (!zmq::recv_multipart(socket, std::back_inserter(frames))) continue;
    if (refused || frames.size() < 2 || frames[0].to_string() != "REFUSED") continue;
    auto why = nlohmann::json::parse(frames[1].to_string(), nullptr, false);
    if (!why.is_object()) continue;
    refused = true;
    std::cout << "refused: " << why.value("reason", std::string())
              << (why.value("retry", false) ? " (retry)" : "") << std::endl;
  }
  return refused ? 0 : 3;
}
