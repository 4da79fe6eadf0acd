#include "weibo/status.h"

namespace weibo {
namespace {

struct CodeRow {
  Code code;
  const char* name;
  int exit_status;
};

// SPEC §10: 1 refused by a rule or not found; 2 usage; 3 auth; 4 storage; 5 daemon.
const CodeRow kCodes[] = {
    {Code::kOk, "ok", 0},
    {Code::kInvalidArgument, "invalid_argument", 2},
    {Code::kContentTooLong, "content_too_long", 1},
    {Code::kInvalidUtf8, "invalid_utf8", 1},
    {Code::kNotFound, "not_found", 1},
    {Code::kUserExists, "user_exists", 1},
    {Code::kAlreadyFollowing, "already_following", 1},
    {Code::kNotFollowing, "not_following", 1},
    {Code::kCannotFollowSelf, "cannot_follow_self", 1},
    {Code::kForbidden, "forbidden", 1},
    {Code::kAlreadyLiked, "already_liked", 1},
    {Code::kNotLiked, "not_liked", 1},
    {Code::kTokenMissing, "token_missing", 3},
    {Code::kTokenInvalid, "token_invalid", 3},
    {Code::kTokenExpired, "token_expired", 3},
    {Code::kTokenRevoked, "token_revoked", 3},
    {Code::kStorageError, "storage_error", 4},
    {Code::kUnavailable, "unavailable", 5},
    {Code::kRequestTooLarge, "request_too_large", 2},
    {Code::kInvalidRequest, "invalid_request", 2},
    {Code::kAppExists, "app_exists", 1},
    {Code::kArchived, "archived", 1},
    {Code::kArchiveRunning, "archive_running", 1},
};

}  // namespace

const char* CodeName(Code code) {
  for (const auto& row : kCodes)
    if (row.code == code) return row.name;
  return "storage_error";
}

std::optional<Code> CodeFromName(const std::string& name) {
  for (const auto& row : kCodes)
    if (name == row.name) return row.code;
  return std::nullopt;
}

int ExitStatus(Code code) {
  for (const auto& row : kCodes)
    if (row.code == code) return row.exit_status;
  return 4;
}

}  // namespace weibo
