// The remote executor: a Request sent to weibod, the Lazy Pirate way (zguide ch. 4).
//
// A REQ socket sends the request and waits for the reply a slice of the timeout. When
// nothing comes, the socket is closed (a REQ socket cannot send twice without a reply) and
// a fresh one resends the same body — the same request id — so a write the daemon did
// apply is answered from its dedup window instead of being applied again. After the last
// attempt the result is unavailable. Replies are matched to the request by id.
#include <sodium.h>

#include <algorithm>
#include <chrono>
#include <memory>
#include <zmq.hpp>

#include "net/frames.h"
#include "net/wire.h"
#include "ops/args.h"
#include "storage/failure.h"
#include "weibo/ops.h"
#include "weibo/request.h"

namespace weibo {
namespace {

// How long the first wait for a reply polls without sleeping (net/frames.h).
constexpr std::chrono::microseconds kSpin(300);

// 128 random bits in hex: unique across clients without coordination.
std::string NewRequestId() {
  unsigned char bytes[16];
  randombytes_buf(bytes, sizeof bytes);
  char hex[2 * sizeof bytes + 1];
  sodium_bin2hex(hex, sizeof hex, bytes, sizeof bytes);
  return hex;
}

// The error for a request that cannot be sent — bytes that are not UTF-8, which JSON
// cannot carry, or more bytes than a daemon takes: the one the daemon's argument
// validation would have given it (so --connect prints what the embedded command prints),
// found by the same validation, here; else `otherwise`.
Status Unsendable(const Request& request, Status otherwise) {
  if (const OpSpec* op = FindOperation(request.op)) {
    try {
      ValidateArgs(*op, request.args);
    } catch (const Failure& f) {
      return f.status();
    } catch (const std::exception&) {
    }
  }
  return otherwise;
}

class Remote : public Executor {
 public:
  explicit Remote(RemoteOptions options) : options_(std::move(options)) {}

  Result<Json> Execute(const Request& request) override { return Run(request, nullptr); }

  // A reply whose result is an array or an object is taken as that text, validated and
  // not built into a Json: for 200 ids, building 200 objects was a good part of what the
  // client paid for a hot count (weibo-bench(1), COUNTERS), and for a home timeline's
  // page of 20 messages some 15 µs of a read's 250.
  Result<Json> ExecuteForReply(const Request& request, std::string* text) override {
    text->clear();
    return Run(request, text);
  }

  std::vector<std::string> Explain() const override { return explain_; }
  std::vector<std::string> Warnings() const override { return warnings_; }

 private:
  // Execute, and with text given ExecuteForReply.
  Result<Json> Run(const Request& request, std::string* text) {
    explain_.clear();
    warnings_.clear();
    if (sodium_init() < 0) return Status(Code::kUnavailable, "libsodium failed to start");
    const std::string id = request.id.empty() ? NewRequestId() : request.id;
    std::string body;
    try {
      body = net::EncodeRequest(id, request, options_.token, options_.explain);
    } catch (const nlohmann::json::exception&) {
      return Unsendable(request, Status(Code::kInvalidUtf8, "the request is not valid UTF-8"));
    }
    if (body.size() > options_.max_msg_size)
      return Unsendable(
          request, Status(Code::kRequestTooLarge, "the request is " + std::to_string(body.size()) +
                                                      " bytes; a daemon takes at most " +
                                                      std::to_string(options_.max_msg_size)));
    const int attempts = std::max(1, options_.attempts);
    const auto slice = std::chrono::milliseconds(std::max(1, options_.timeout_ms / attempts));
    try {
      for (int attempt = 0; attempt < attempts; ++attempt) {
        Status opened = Open();
        if (!opened.ok()) return opened;
        socket_->send(zmq::buffer(body), zmq::send_flags::none);
        net::WireReply reply;
        if (AwaitReply(id, slice, &reply, text)) {
          if (!reply.status.ok()) return reply.status;
          explain_ = std::move(reply.explain);
          warnings_ = std::move(reply.warnings);
          return std::move(reply.result);
        }
        socket_.reset();  // Lazy Pirate: a fresh socket for the next attempt
      }
    } catch (const zmq::error_t& e) {
      socket_.reset();
      return Status(Code::kUnavailable, "talking to " + options_.endpoint + ": " + e.what());
    }
    return Status(Code::kUnavailable, "no reply from " + options_.endpoint + " in " +
                                          std::to_string(options_.timeout_ms) + " ms (" +
                                          std::to_string(attempts) + " attempts)");
  }

  Status Open() {
    if (socket_) return Status::Ok();
    auto socket = std::make_unique<zmq::socket_t>(context_, zmq::socket_type::req);
    socket->set(zmq::sockopt::linger, 0);  // a closed attempt leaves nothing behind
    try {
      socket->connect(options_.endpoint);
    } catch (const zmq::error_t& e) {
      return Status(Code::kInvalidArgument,
                    "cannot connect to '" + options_.endpoint + "': " + e.what());
    }
    socket_ = std::move(socket);
    return Status::Ok();
  }

  // Waits up to `slice` for the reply to request `id`; false on timeout. A reply that is
  // not of this protocol, or not to this request, becomes unavailable.
  // With text given, a successful reply's array or object result goes there as text
  // (net::ParseReplyText), out->result staying null.
  bool AwaitReply(const std::string& id, std::chrono::milliseconds slice, net::WireReply* out,
                  std::string* text) {
    const auto deadline = std::chrono::steady_clock::now() + slice;
    bool spun = false;
    for (;;) {
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
          deadline - std::chrono::steady_clock::now());
      if (left.count() <= 0) return false;
      try {
        // The first wait spins a little before it sleeps (net/frames.h): most replies come
        // within a few hundred microseconds.
        if (!net::AwaitReadable(*socket_, spun ? std::chrono::microseconds() : kSpin, left)) {
          spun = true;
          continue;
        }
      } catch (const zmq::error_t& e) {
        if (e.num() == EINTR) continue;
        throw;
      }
      zmq::message_t message;
      if (!socket_->recv(message, zmq::recv_flags::dontwait)) continue;
      const std::string body = message.to_string();
      bool mine =
          (text != nullptr ? net::ParseReplyText(body, out, text) : net::ParseReply(body, out)) &&
          (out->id == Json(id) || (out->id.is_null() && !out->status.ok()));
      if (!mine) {
        if (text != nullptr) text->clear();
        std::string what = options_.endpoint + " sent a reply that is not weibod's to this request";
        out->status = Status(Code::kUnavailable, what);
      }
      return true;
    }
  }

  RemoteOptions options_;
  zmq::context_t context_;
  std::unique_ptr<zmq::socket_t> socket_;  // declared after context_: closed before it
  std::vector<std::string> explain_, warnings_;
};

}  // namespace

std::unique_ptr<Executor> OpenRemote(const RemoteOptions& options) {
  return std::make_unique<Remote>(options);
}

}  // namespace weibo
