// Status and Result<T>: how every libweibo call reports success or a stable error code.
//
// The codes are the stable strings of weibo(7), ERRORS AND EXIT STATUS; CodeName() gives
// the string, ExitStatus() the process exit status a command uses for it. Nothing else in
// the project maps codes to strings or exit statuses.
#ifndef WEIBO_STATUS_H_
#define WEIBO_STATUS_H_

#include <optional>
#include <string>
#include <utility>

namespace weibo {

enum class Code {
  kOk,
  kInvalidArgument,   // malformed id, option out of range, bad name, control character,
                      // empty content (exit 2)
  kContentTooLong,    // over 140 code points (exit 1)
  kInvalidUtf8,       // bytes that are not valid UTF-8 (exit 1)
  kNotFound,          // unknown user or message, or no such page (exit 1)
  kUserExists,        // the name is taken (exit 1)
  kAlreadyFollowing,  // (exit 1)
  kNotFollowing,      // (exit 1)
  kCannotFollowSelf,  // (exit 1)
  kForbidden,         // acting on another user's message, or a valid token acting outside
                      // its user or scope (exit 1)
  kAlreadyLiked,      // the user likes the message already (exit 1)
  kNotLiked,          // unlike of a message the user does not like (exit 1)
  // weibod --auth (weibod(1), AUTHENTICATION) and weibo-token check (exit 3):
  kTokenMissing,     // the request carries no token
  kTokenInvalid,     // malformed, or no stored hash matches: nothing else is told
  kTokenExpired,     // its hash matches a row whose time is up
  kTokenRevoked,     // its hash matches a revoked row
  kStorageError,     // missing/foreign/corrupt shard, locked past the timeout (exit 4)
  kUnavailable,      // daemon unreachable or timed out (exit 5)
  kRequestTooLarge,  // (exit 2)
  kInvalidRequest,   // malformed request: unknown op, missing argument (exit 2)
  kAppExists,        // weibo-app register of a name already registered (exit 1)
  kArchived,         // a write to a message weibo-archive moved to the archive (exit 1)
  kArchiveRunning,   // weibo-archive while another run holds a shard's archive (exit 1)
};

// The stable machine string of a code, e.g. "not_found".
const char* CodeName(Code code);
// The code for a stable string; nullopt when the string names no code.
std::optional<Code> CodeFromName(const std::string& name);
// The exit status of a command that failed with this code: 1 to 5, as weibo(7) lists them.
int ExitStatus(Code code);

class Status {
 public:
  Status() = default;  // ok
  Status(Code code, std::string message) : code_(code), message_(std::move(message)) {}
  static Status Ok() { return Status(); }

  bool ok() const { return code_ == Code::kOk; }
  Code code() const { return code_; }
  const std::string& message() const { return message_; }

 private:
  Code code_ = Code::kOk;
  std::string message_;
};

// A value or the Status that explains why there is none.
template <typename T>
class Result {
 public:
  Result(T value) : value_(std::move(value)) {}          // NOLINT: implicit on purpose
  Result(Status status) : status_(std::move(status)) {}  // NOLINT
  bool ok() const { return status_.ok(); }
  const Status& status() const { return status_; }
  const T& value() const { return *value_; }
  T& value() { return *value_; }

 private:
  Status status_;
  std::optional<T> value_;
};

}  // namespace weibo

#endif  // WEIBO_STATUS_H_
