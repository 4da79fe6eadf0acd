// daemon_probe: a hostile and a careful client of weibod, written against the protocol of
// man/weibod.1 with raw frames (it does not use libweibo's own client code).
//
//   daemon_probe hostile ENDPOINT   garbage frames, oversize and deep messages (arrays and
//                                   objects), invalid UTF-8 (in strings, keys, the op),
//                                   huge numbers, wrong argument types, bad fields,
//                                   unknown op, missing args, raw TCP
//                                   garbage: each gets its error reply (or, when oversize,
//                                   a disconnect), and the next valid request is answered
//   daemon_probe dedup ENDPOINT     the same post id sent twice, on two sockets, creates
//                                   one message and gets the same reply bytes twice
//   daemon_probe rate ENDPOINT      a burst past --rate, over three connections, gets
//                                   unavailable as one client's; later ones pass
//   daemon_probe events ENDPOINT    subscribes to weibod --events; prints "subscribed",
//                                   then the first token_revoked frame
//   daemon_probe pirate             a fake daemon for the Lazy Pirate client: prints its
//                                   endpoint, drops the first two requests, answers the
//                                   third; checks the three are the same bytes (same id)
//                                   from three different sockets
//   daemon_probe drain ENDPOINT PID 300 pipelined requests (60 posts, 240 fsck), SIGTERM
//                                   to PID as the first reply arrives: every request is
//                                   still answered, every post ok (probe.sh then checks
//                                   that exactly those posts were made)
//   daemon_probe ask ENDPOINT BODY  sends BODY, prints the reply body byte for byte (for
//                                   scripts, e.g. restart.sh); exits 1 without a reply
//
// Prints one line per check; exits 0 when all pass, 1 otherwise.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <iostream>
#include <iterator>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <thread>
#include <vector>
#include <zmq.hpp>
#include <zmq_addon.hpp>

using Json = nlohmann::json;

namespace {

int failures = 0;

void Check(bool ok, const std::string& what) {
  std::cout << (ok ? "ok   " : "FAIL ") << what << std::endl;
  if (!ok) ++failures;
}

class Client {
 public:
  Client(zmq::context_t& context, const std::string& endpoint)
      : socket_(context, zmq::socket_type::dealer) {
    socket_.set(zmq::sockopt::linger, 0);
    socket_.connect(endpoint);
  }
  void Send(const std::vector<std::string>& frames) {
    for (size_t i = 0; i < frames.size(); ++i)
      socket_.send(zmq::buffer(frames[i]),
                   i + 1 < frames.size() ? zmq::send_flags::sndmore : zmq::send_flags::none);
  }
  // The reply's frames, or nullopt after timeout_ms.
  std::optional<std::vector<std::string>> Receive(int timeout_ms = 3000) {
    zmq::pollitem_t item{socket_.handle(), 0, ZMQ_POLLIN, 0};
    if (zmq::poll(&item, 1, std::chrono::milliseconds(timeout_ms)) == 0) return std::nullopt;
    std::vector<std::string> frames;
    for (bool more = true; more;) {
      zmq::message_t m;
      (void)socket_.recv(m);
      more = m.more();
      frames.push_back(m.to_string());
    }
    return frames;
  }
  // Sends one body, returns the parsed reply (null on timeout or a malformed reply).
  Json Ask(const std::string& body, int timeout_ms = 3000) {
    Send({body});
    auto reply = Receive(timeout_ms);
    if (!reply || reply->size() != 1) return Json();
    return Json::parse(reply->front(), nullptr, false);
  }

 private:
  zmq::socket_t socket_;
};

std::string ErrorCode(const Json& reply) {
  if (!reply.is_object() || reply.value("ok", true)) return "";
  return reply["error"].value("code", "");
}

// A valid read, to show the daemon still serves after each hostile request.
void ExpectServing(zmq::context_t& context, const std::string& endpoint, const std::string& after) {
  Client c(context, endpoint);
  Json reply = c.Ask(R"({"id":"alive","op":"user_list","args":{}})");
  Check(reply.is_object() && reply.value("ok", false) && reply["id"] == "alive",
        "still serving after " + after);
}

void ExpectError(zmq::context_t& context, const std::string& endpoint, const std::string& what,
                 const std::vector<std::string>& frames, const std::string& code,
                 const Json& id = Json()) {
  Client c(context, endpoint);
  c.Send(frames);
  auto reply = c.Receive();
  // The body is the last frame (after the delimiter when the request had one).
  Json j = reply && !reply->empty() ? Json::parse(reply->back(), nullptr, false) : Json();
  bool ok = ErrorCode(j) == code && j["id"] == id;
  Check(ok, what + " -> " + code + (ok ? "" : " (got " + (reply ? j.dump() : "no reply") + ")"));
  ExpectServing(context, endpoint, what);
}

// Raw bytes on a TCP connection: not even ZMTP.
void TcpGarbage(const std::string& endpoint) {
  auto colon = endpoint.rfind(':');
  int port = std::stoi(endpoint.substr(colon + 1));
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  inet_pton(AF_INET, "127.0.0.1", &addr.sin_addr);
  bool connected = connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0;
  std::string junk = "GET / HTTP/1.1\r\n\r\n\xff\xfe\x00garbage";
  junk += std::string(100000, '\x7f');
  if (connected) (void)!write(fd, junk.data(), junk.size());
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  close(fd);
  Check(connected, "raw TCP garbage sent");
}

std::string Nested(int depth) { return std::string(depth, '[') + std::string(depth, ']'); }

int Hostile(const std::string& endpoint) {
  zmq::context_t context;
  ExpectServing(context, endpoint, "nothing");
  ExpectError(context, endpoint, "binary garbage frame", {std::string("\x00\x01\x02garbage", 10)},
              "invalid_request");
  ExpectError(context, endpoint, "empty frame", {""}, "invalid_request");
  ExpectError(context, endpoint, "two body frames",
              {R"({"op":"user_list"})", R"({"op":"user_list"})"}, "invalid_request");
  ExpectError(context, endpoint, "delimiter and two bodies", {"", R"({"op":"user_list"})", "x"},
              "invalid_request");
  ExpectError(context, endpoint, "not JSON", {"{\"id\":\"a\",\"op\":"}, "invalid_request");
  ExpectError(context, endpoint, "a JSON array", {"[1,2,3]"}, "invalid_request");
  ExpectError(context, endpoint, "invalid UTF-8 in a string",
              {"{\"id\":\"u\",\"op\":\"user_add\",\"args\":{\"name\":\"\xff\xfe\"}}"},
              "invalid_request");
  ExpectError(context, endpoint, "overlong UTF-8",
              {"{\"id\":\"u\",\"op\":\"user_add\",\"args\":{\"name\":\"\xc0\xaf\"}}"},
              "invalid_request");
  ExpectError(context, endpoint, "a lone surrogate escape",
              {R"({"id":"s","op":"user_add","args":{"name":"\ud800"}})"}, "invalid_request");
  ExpectError(context, endpoint, "JSON nested 40 deep",
              {R"({"id":"d","op":"user_list","args":{"x":)" + Nested(40) + "}}"},
              "request_too_large");  // refused before parsing: the id is not read
  ExpectError(context, endpoint, "JSON nested 100000 deep", {Nested(100000)}, "request_too_large");
  ExpectError(context, endpoint, "JSON objects nested 50000 deep", {[] {
                std::string s;
                for (int i = 0; i < 50000; ++i) s += "{\"\":";
                return s + "1" + std::string(50000, '}');
              }()},
              "request_too_large");
  ExpectError(context, endpoint, "brackets inside a string do not count as depth",
              {R"({"id":"sd","op":"user_list","args":{"x":")" + std::string(1000, '[') + "\"}}"},
              "invalid_request", "sd");
  ExpectError(context, endpoint, "invalid UTF-8 in a key",
              {"{\"id\":\"k\",\"op\":\"user_list\",\"args\":{\"\xed\xa0\x80\":1}}"},
              "invalid_request");
  ExpectError(context, endpoint, "invalid UTF-8 in the op",
              {"{\"id\":\"k\",\"op\":\"post\xc3\",\"args\":{}}"}, "invalid_request");
  ExpectError(context, endpoint, "a number too big for a user id",
              {R"({"id":"h1","op":"user_show","args":{"user":18446744073709551616}})"},
              "invalid_argument", "h1");
  // nlohmann/json refuses a number out of double's range as a syntax error: the id is lost.
  ExpectError(context, endpoint, "1e400 as a count",
              {R"({"id":"h2","op":"timeline","args":{"user":"1","count":1e400}})"},
              "invalid_request");
  ExpectError(context, endpoint, "a 30-digit message id",
              {R"({"id":"h3","op":"show","args":{"msg":"999999999999999999999999999999"}})"},
              "invalid_argument", "h3");
  ExpectError(context, endpoint, "a negative page",
              {R"({"id":"h4","op":"comments","args":{"msg":"1","page":-1}})"}, "invalid_argument",
              "h4");
  ExpectError(context, endpoint, "wrong argument types",
              {R"({"id":"w","op":"post","args":{"user":["1"],"content":{"a":1}}})"},
              "invalid_argument", "w");
  ExpectError(context, endpoint, "a flag given as a string",
              {R"({"id":"w2","op":"fsck","args":{"repair":"yes"}})"}, "invalid_argument", "w2");
  ExpectError(context, endpoint, "missing args of follow",
              {R"({"id":"m3","op":"follow","args":{}})"}, "invalid_request", "m3");
  // 32 levels are allowed: the request reaches argument validation.
  ExpectError(context, endpoint, "JSON nested 32 deep (allowed)",
              {R"({"id":"d32","op":"user_list","args":{"x":)" + Nested(30) + "}}"},
              "invalid_request", "d32");
  ExpectError(context, endpoint, "unknown op", {R"({"id":"o","op":"drop_tables","args":{}})"},
              "invalid_request", "o");
  ExpectError(context, endpoint, "no op", {R"({"id":"o2","args":{}})"}, "invalid_request", "o2");
  ExpectError(context, endpoint, "missing args", {R"({"id":"m","op":"post","args":{"user":"1"}})"},
              "invalid_request", "m");
  ExpectError(context, endpoint, "unknown argument",
              {R"({"id":"m2","op":"user_list","args":{"all":true}})"}, "invalid_request", "m2");
  ExpectError(context, endpoint, "args not an object",
              {R"({"id":"a","op":"user_list","args":[1]})"}, "invalid_request", "a");
  ExpectError(context, endpoint, "unknown field",
              {R"({"id":"f","op":"user_list","args":{},"sudo":true})"}, "invalid_request", "f");
  ExpectError(context, endpoint, "id not a string", {R"({"id":7,"op":"user_list"})"},
              "invalid_request");
  ExpectError(context, endpoint, "id too long",
              {R"({"id":")" + std::string(129, 'x') + R"(","op":"user_list"})"}, "invalid_request");
  ExpectError(context, endpoint, "token not a string", {R"({"id":"t","op":"user_list","token":1})"},
              "invalid_request", "t");
  ExpectError(context, endpoint, "malformed now",
              {R"({"id":"n","op":"user_list","now":"yesterday"})"}, "invalid_request", "n");
  ExpectError(context, endpoint, "now before 2020", {R"({"id":"n2","op":"user_list","now":86400})"},
              "invalid_argument", "n2");
  // Past the last whole week of the id range (weibo/time.h, kClockLatestMs).
  ExpectError(context, endpoint, "now in the id range's last week",
              {R"({"id":"n3","op":"user_list","now":"2089-08-31T00:00:00Z"})"}, "invalid_argument",
              "n3");
  // This daemon runs without --allow-clock: a well-formed clock is refused too, since any
  // client could otherwise move a shard's id sequence (issue 11).
  ExpectError(context, endpoint, "now without --allow-clock",
              {R"({"id":"n4","op":"post","args":{"user":"1","content":"x"},)"
               R"("now":"2089-08-30T23:59:59Z"})"},
              "invalid_argument", "n4");
  ExpectError(context, endpoint, "init over the daemon",
              {R"({"id":"i","op":"init","args":{"force":true}})"}, "invalid_request", "i");
  ExpectError(context, endpoint, "invalid argument value",
              {R"({"id":"v","op":"timeline","args":{"user":"1","count":9999}})"},
              "invalid_argument", "v");

  {  // REQ framing: the reply comes back after the delimiter.
    Client c(context, endpoint);
    c.Send({"", R"({"id":"req","op":"user_list"})"});
    auto reply = c.Receive();
    Check(reply && reply->size() == 2 && (*reply)[0].empty() &&
              Json::parse((*reply)[1], nullptr, false).value("ok", false),
          "REQ envelope answered with the delimiter, args may be absent");
  }
  {  // Over ZMQ_MAXMSGSIZE: ZeroMQ drops the peer; no reply comes.
    Client c(context, endpoint);
    std::string big =
        R"({"id":"big","op":"user_list","args":{"x":")" + std::string(10 << 20, 'a') + "\"}}";
    c.Send({big});
    auto reply = c.Receive(1500);
    Check(!reply, "10 MiB message: no reply (the peer is disconnected)");
    ExpectServing(context, endpoint, "a 10 MiB message");
  }
  TcpGarbage(endpoint);
  ExpectServing(context, endpoint, "raw TCP garbage");
  return failures == 0 ? 0 : 1;
}

int Dedup(const std::string& endpoint) {
  zmq::context_t context;
  const std::string post =
      R"({"id":"dedup-1","op":"post","args":{"user":"@dedup","content":"once"},)"
      R"("now":"2026-01-01T00:00:00Z"})";
  Client a(context, endpoint), b(context, endpoint);
  Json added = a.Ask(R"({"id":"add","op":"user_add","args":{"name":"dedup"}})");
  Check(added.value("ok", false), "user @dedup added");
  a.Send({post});
  auto first = a.Receive();
  b.Send({post});  // a retry: another socket, as the Lazy Pirate client reopens
  auto second = b.Receive();
  Json j = first ? Json::parse(first->at(0), nullptr, false) : Json();
  Check(j.is_object() && j.value("ok", false), "first post answered ok");
  Check(first && second && *first == *second, "the retry gets the same reply bytes");
  Json user = a.Ask(R"({"id":"u1","op":"user_show","args":{"user":"@dedup"}})");
  Check(
      user.value("ok", false) && user["result"]["msg_count"] == 1,
      "one message created (msg_count " +
          (user.is_object() && user.contains("result") ? user["result"]["msg_count"].dump() : "?") +
          ")");
  Json posts = a.Ask(R"({"id":"t1","op":"timeline","args":{"user":"@dedup","posts":true}})");
  Check(posts.value("ok", false) && posts["result"].size() == 1, "one message on the timeline");
  Json other = a.Ask(R"({"id":"dedup-2","op":"post","args":{"user":"@dedup","content":"twice"}})");
  Check(other.value("ok", false) && other["result"]["id"] != j["result"]["id"],
        "a new id makes a new message");
  Json user2 = a.Ask(R"({"id":"u2","op":"user_show","args":{"user":"@dedup"}})");
  Check(user2.value("ok", false) && user2["result"]["msg_count"] == 2, "msg_count 2");
  // Reads are not kept: the same id on a read runs it again (and sees the new count).
  Json again = a.Ask(R"({"id":"u1","op":"user_show","args":{"user":"@dedup"}})");
  Check(again.value("ok", false) && again["result"]["msg_count"] == 2, "reads are executed again");
  return failures == 0 ? 0 : 1;
}

// The burst goes out over three connections in turn: without --auth the limit counts per
// client address, so the three share one bucket of 5 (plus what refills meanwhile); per
// connection they would have 15. It waits a second first, for a full bucket: whatever was
// asked from this address just before (weibo-cluster up checks that the broker serves) has
// refilled by then. Without the wait a loaded machine (the sanitizer build, CI) once saw 4
// answered.
int Rate(const std::string& endpoint) {
  zmq::context_t context;
  std::vector<std::unique_ptr<Client>> clients;
  for (int i = 0; i < 3; ++i) clients.push_back(std::make_unique<Client>(context, endpoint));
  std::this_thread::sleep_for(std::chrono::milliseconds(1100));
  int refused = 0, answered = 0;
  for (int i = 0; i < 30; ++i) {
    Json r = clients[i % 3]->Ask(R"({"id":"r)" + std::to_string(i) + R"(","op":"user_list"})");
    if (ErrorCode(r) == "unavailable") ++refused;
    if (r.is_object() && r.value("ok", false)) ++answered;
  }
  Check(answered >= 5 && answered <= 9 && refused > 0,
        "a burst of 30 over three connections past --rate 5 is one client's: " +
            std::to_string(answered) + " answered, " + std::to_string(refused) + " refused");
  std::this_thread::sleep_for(std::chrono::milliseconds(1100));
  Json r = clients[0]->Ask(R"({"id":"later","op":"user_list"})");
  Check(r.is_object() && r.value("ok", false), "answered again a second later");
  ExpectServing(context, endpoint, "the burst, on a new connection");
  return failures == 0 ? 0 : 1;
}

// A subscriber of weibod --events (or a cluster broker's): prints "subscribed" once its
// subscription has had time to reach the publisher (ZeroMQ gives no signal for that), then
// the first frame starting with token_revoked. Exits 1 when none comes within 20 s.
int Events(const std::string& endpoint) {
  zmq::context_t context;
  zmq::socket_t sub(context, zmq::socket_type::sub);
  sub.set(zmq::sockopt::linger, 0);
  sub.set(zmq::sockopt::subscribe, "token_revoked");
  sub.connect(endpoint);
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  std::cout << "subscribed" << std::endl;
  zmq::pollitem_t item{sub.handle(), 0, ZMQ_POLLIN, 0};
  if (zmq::poll(&item, 1, std::chrono::milliseconds(20000)) == 0) {
    std::cerr << "daemon_probe: no token_revoked event within 20 s\n";
    return 1;
  }
  zmq::message_t frame;
  if (!sub.recv(frame)) return 1;
  std::cout << frame.to_string() << std::endl;
  return 0;
}

int Drain(const std::string& endpoint, pid_t daemon) {
  constexpr int kRequests = 300;  // answered well within the 2 s drain, even under ASan
  zmq::context_t context;
  Client c(context, endpoint);
  Json added = c.Ask(R"({"id":"add","op":"user_add","args":{"name":"drainer"}})");
  Check(added.value("ok", false), "user @drainer added");
  // Every fifth request a post (a write in flight at the signal), the others fsck.
  for (int i = 0; i < kRequests; ++i)
    c.Send({i % 5 == 0 ? R"({"id":"p)" + std::to_string(i) +
                             R"(","op":"post","args":{"user":"@drainer","content":"in flight"}})"
                       : R"({"id":"q)" + std::to_string(i) + R"(","op":"fsck"})"});
  int before = 0, after = 0, posted = 0;
  auto count = [&](const std::vector<std::string>& frames) {
    Json j = Json::parse(frames.back(), nullptr, false);
    if (j.is_object() && j.value("ok", false) && j["id"].is_string() &&
        j["id"].get<std::string>()[0] == 'p')
      ++posted;
  };
  if (auto r = c.Receive(5000)) {
    ++before;
    count(*r);
  }
  kill(daemon, SIGTERM);
  while (before + after < kRequests) {
    auto r = c.Receive(5000);
    if (!r) break;
    ++after;
    count(*r);
  }
  Check(before + after == kRequests, "SIGTERM while busy: " + std::to_string(before + after) +
                                         " of " + std::to_string(kRequests) + " answered, " +
                                         std::to_string(after) + " after the signal");
  Check(posted == kRequests / 5, std::to_string(posted) + " posts answered ok");
  // probe.sh checks @drainer's msg_count against this once the daemon has exited.
  std::cout << "posts answered ok: " << posted << std::endl;
  return failures == 0 ? 0 : 1;
}

int Pirate() {
  zmq::context_t context;
  zmq::socket_t router(context, zmq::socket_type::router);
  router.set(zmq::sockopt::linger, 1000);
  router.bind("tcp://127.0.0.1:*");
  std::cout << router.get(zmq::sockopt::last_endpoint) << std::endl;
  std::vector<std::string> peers, bodies;
  for (int i = 0; i < 3; ++i) {
    zmq::pollitem_t item{router.handle(), 0, ZMQ_POLLIN, 0};
    if (zmq::poll(&item, 1, std::chrono::milliseconds(10000)) == 0) break;
    std::vector<zmq::message_t> frames;
    (void)zmq::recv_multipart(router, std::back_inserter(frames));
    peers.push_back(frames.front().to_string());
    bodies.push_back(frames.back().to_string());
    if (i < 2) continue;  // dropped: the client hears nothing
    Json request = Json::parse(bodies.back(), nullptr, false);
    Json reply = {{"id", request.value("id", "")},
                  {"ok", true},
                  {"result",
                   {{"id", "7"},
                    {"name", "pirate"},
                    {"msg_count", 0},
                    {"fans_count", 0},
                    {"follow_count", 0}}}};
    const std::string body = reply.dump();
    frames.back().rebuild(body.data(), body.size());
    (void)zmq::send_multipart(router, frames);
  }
  Check(bodies.size() == 3, std::to_string(bodies.size()) + " attempts received");
  Check(bodies.size() == 3 && bodies[0] == bodies[1] && bodies[1] == bodies[2],
        "the same body, so the same id, every time");
  Check(peers.size() == 3 && peers[0] != peers[1] && peers[1] != peers[2] && peers[0] != peers[2],
        "each attempt on a fresh socket");
  std::this_thread::sleep_for(std::chrono::milliseconds(200));  // let the reply go out
  return failures == 0 ? 0 : 1;
}

int Ask(const std::string& endpoint, const std::string& body) {
  zmq::context_t context;
  Client c(context, endpoint);
  c.Send({body});
  auto reply = c.Receive(10000);
  if (!reply || reply->size() != 1) return 1;
  std::cout << reply->front() << "\n";
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc == 2 && std::string(argv[1]) == "pirate") return Pirate();
  if (argc < 3 || argc > 4) {
    std::cerr
        << "usage: daemon_probe pirate | hostile|dedup|rate|events|drain ENDPOINT [PID] | ask "
           "ENDPOINT BODY\n";
    return 2;
  }
  std::string mode = argv[1], endpoint = argv[2];
  try {
    if (mode == "hostile") return Hostile(endpoint);
    if (mode == "dedup") return Dedup(endpoint);
    if (mode == "rate") return Rate(endpoint);
    if (mode == "events") return Events(endpoint);
    if (mode == "drain" && argc == 4) return Drain(endpoint, std::stoi(argv[3]));
    if (mode == "ask" && argc == 4) return Ask(endpoint, argv[3]);
  } catch (const std::exception& e) {
    std::cerr << "daemon_probe: " << e.what() << "\n";
    return 1;
  }
  std::cerr << "daemon_probe: unknown mode " << mode << "\n";
  return 2;
}
