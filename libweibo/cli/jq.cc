// --jq EXPR: a jq filter over a command's JSON output, with jq's own library (libjq), so
// that an expression means exactly what it means to jq(1) — the way gh's --jq works.
// jq 1.6's headers declare C functions without extern "C" of their own.
extern "C" {
#include <jq.h>
}

#include "weibo/cli.h"

namespace weibo::cli {
namespace {

// jq reports compile errors through a callback, one jv string each.
void CollectError(void* data, jv message) {
  auto* errors = static_cast<std::string*>(data);
  jv text = jv_get_kind(message) == JV_KIND_STRING ? jv_copy(message)
                                                   : jv_dump_string(jv_copy(message), 0);
  if (!errors->empty()) *errors += "; ";
  *errors += jv_string_value(text);
  jv_free(text);
  jv_free(message);
}

}  // namespace

Jq::Jq(const std::string& expression) {
  state_ = jq_init();
  if (state_ == nullptr) {
    error_ = "jq could not start";
    return;
  }
  jq_set_error_cb(state_, CollectError, &error_);
  if (!jq_compile(state_, expression.c_str()) && error_.empty())
    error_ = "cannot compile '" + expression + "'";
}

Jq::~Jq() {
  if (state_ != nullptr) jq_teardown(&state_);
}

Status Jq::Check() const {
  return error_.empty() ? Status::Ok() : Status(Code::kInvalidArgument, "--jq: " + error_);
}

Status Jq::Run(const std::string& json, std::string* out) {
  if (!error_.empty()) return Check();
  jv input = jv_parse_sized(json.data(), static_cast<int>(json.size()));
  if (!jv_is_valid(input)) {
    jv_free(input);
    return Status(Code::kInvalidArgument, "--jq: the output is not JSON");
  }
  jq_start(state_, input, 0);  // takes input
  jv result;
  while (jv_is_valid(result = jq_next(state_))) {
    // As gh --jq (and jq -r): a string prints as its text, anything else as compact JSON.
    if (jv_get_kind(result) == JV_KIND_STRING) {
      *out += std::string(jv_string_value(result),
                          static_cast<size_t>(jv_string_length_bytes(jv_copy(result))));
      jv_free(result);
    } else {
      jv text = jv_dump_string(result, 0);  // takes result
      *out += jv_string_value(text);
      jv_free(text);
    }
    *out += "\n";
  }
  Status status = Status::Ok();
  if (jv_invalid_has_msg(jv_copy(result))) {
    jv message = jv_invalid_get_msg(result);  // takes result
    std::string text = jv_get_kind(message) == JV_KIND_STRING ? jv_string_value(message)
                                                              : "an error that is not a string";
    jv_free(message);
    status = Status(Code::kInvalidArgument, "--jq: " + text);
  } else {
    jv_free(result);
  }
  if (!error_.empty()) status = Status(Code::kInvalidArgument, "--jq: " + error_);
  return status;
}

}  // namespace weibo::cli
