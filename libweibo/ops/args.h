// Validation of untrusted arguments, once, at the edge (SPEC §10): every request — from
// the command line, a daemon socket or a trace — passes through ValidateArgs before a flow
// sees it. Flows may then assume well-formed values.
#ifndef WEIBO_OPS_ARGS_H_
#define WEIBO_OPS_ARGS_H_

#include <cstddef>
#include <cstdint>
#include <string>

#include "weibo/ops.h"
#include "weibo/request.h"

namespace weibo {

constexpr int kMaxContent = 140;  // code points
constexpr int kMaxName = 20;      // code points
constexpr int kMaxCount = 200;
// The largest file a kFile argument carries (a picture, weibo-avatar(1)), before base64.
constexpr size_t kMaxFileBytes = 4 * 1024 * 1024;

// Returns args normalised (ids as integers, users as integers or "@name"); throws
// Failure(invalid_request / invalid_argument / content_too_long / invalid_utf8).
Json ValidateArgs(const OpSpec& op, const Json& args);

// Code points of valid UTF-8 text, or -1 when the bytes are not valid UTF-8.
int64_t CountCodePoints(const std::string& text);

}  // namespace weibo

#endif  // WEIBO_OPS_ARGS_H_
