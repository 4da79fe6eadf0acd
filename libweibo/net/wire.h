// The bytes of weibod's protocol (man/weibod.1, PROTOCOL): a request body to a Request and
// back, a Result to a reply body and back. The server (daemon/service.cc) and the client
// (net/client.cc) use only these functions, so the two ends and the document agree.
//
// Request bodies are untrusted: ParseRequest checks size, nesting depth (by a scan of the
// bytes, before any parsing), UTF-8, JSON syntax and the type of every field, and never
// throws. Arguments themselves are checked later by ValidateArgs, as for any request.
#ifndef WEIBO_NET_WIRE_H_
#define WEIBO_NET_WIRE_H_

#include <cstddef>
#include <string>
#include <vector>

#include "weibo/request.h"

namespace weibo::net {

constexpr size_t kMaxIdBytes = 128;

struct WireLimits {
  size_t max_msg_size = 64 * 1024;
  int max_depth = 32;
};

// A request as the daemon received it.
struct WireRequest {
  Json id;  // a string, or null when the request had none (or it could not be read)
  Request request;
  std::string token;
  bool explain = false;
};

// Reads an untrusted request body into *out. On failure returns invalid_request or
// request_too_large, and out->id holds the request's id when it could be read.
Status ParseRequest(const std::string& body, const WireLimits& limits, WireRequest* out);

// The body a client sends: {"id","op","args"} plus "token", "now", "async" and "explain"
// when they are not their defaults. Throws nlohmann::json::type_error when a string is not
// valid UTF-8: JSON cannot carry it, and replacing bytes would change the request.
std::string EncodeRequest(const std::string& id, const Request& request, const std::string& token,
                          bool explain);

// The body of a reply: {"id","ok":true,"result"} (with "explain" when explain is given,
// "warnings" when warnings holds any) or {"id","ok":false,"error":{"code","message"}}.
// Invalid UTF-8 in a message is replaced.
std::string EncodeReply(const Json& id, const Result<Json>& result,
                        const std::vector<std::string>* explain,
                        const std::vector<std::string>* warnings = nullptr);

// The same reply of a successful request whose result is given as JSON text already (an
// op's OpSpec::text, Executor::ExecuteForReply): taken as it is, not parsed nor rewritten.
std::string EncodeReplyText(const Json& id, const std::string& result,
                            const std::vector<std::string>* explain,
                            const std::vector<std::string>* warnings = nullptr);

// A reply as the client received it.
struct WireReply {
  Json id;
  Status status;  // ok, or the error the daemon replied
  Json result;
  std::vector<std::string> explain;
  std::vector<std::string> warnings;  // Executor::Warnings of the daemon's run
};

// Reads a reply body into *out; false when it is not a reply of this protocol.
bool ParseReply(const std::string& body, WireReply* out);

// As ParseReply, except that a successful reply whose result is an array or an object
// leaves out->result null and puts the result's own bytes in *result_text, as the daemon
// wrote them (a remote Executor::ExecuteForReply). The whole body
// is validated all the same; *result_text is empty when the reply is read as ParseReply
// reads it (an error, another result, a body only nlohmann reads).
bool ParseReplyText(const std::string& body, WireReply* out, std::string* result_text);

}  // namespace weibo::net

#endif  // WEIBO_NET_WIRE_H_
