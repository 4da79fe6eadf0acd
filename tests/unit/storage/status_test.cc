// storage/status.cc: the one mapping from code to stable string and exit status (SPEC §10).
#include "test_support.h"

namespace weibo {
namespace {

TEST_CASE("status: every code of SPEC §10 has its stable string and exit status") {
  struct Row {
    Code code;
    const char* name;
    int exit;
  };
  const Row rows[] = {
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
  for (const auto& row : rows) {
    INFO(row.name);
    REQUIRE(std::string(CodeName(row.code)) == row.name);
    REQUIRE(CodeFromName(row.name) == std::optional<Code>(row.code));
    REQUIRE(ExitStatus(row.code) == row.exit);
  }
  REQUIRE(ExitStatus(Code::kOk) == 0);
  REQUIRE_FALSE(CodeFromName("no_such_code").has_value());
}

TEST_CASE("status: Status and Result") {
  Status ok;
  REQUIRE(ok.ok());
  REQUIRE(Status::Ok().code() == Code::kOk);
  Status bad(Code::kForbidden, "no");
  REQUIRE_FALSE(bad.ok());
  REQUIRE(bad.message() == "no");
  Result<int> value(5);
  REQUIRE(value.ok());
  REQUIRE(value.value() == 5);
  Result<int> failed(bad);
  REQUIRE_FALSE(failed.ok());
  REQUIRE(failed.status().code() == Code::kForbidden);
}

TEST_CASE("status: an unknown op is invalid_request through the executor") {
  test::Cluster c;
  REQUIRE(c.CodeOf("frobnicate") == Code::kInvalidRequest);
  REQUIRE(c.CodeOf("post", {{"user", 1}}) == Code::kInvalidRequest);
}

}  // namespace
}  // namespace weibo
