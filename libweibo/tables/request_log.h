// request_log: the ids of the write requests a shard has applied, so that a request sent
// again with the same id — a client's retry after a lost reply, even to a daemon or node
// restarted in between — is applied once (weibod(1), Retries).
//
// Invariants:
//  - A row is written in the same transaction as the request's own effect on its home
//    shard (the author's for post, repost and comment; the acting user's for follow and
//    unfollow; the message's for delete; the name's for user_add), so either both are on
//    disk or neither is. A shard never records a request whose home is another shard.
//  - result is what the flow needs to rebuild its reply: the created message or user id,
//    0 for ops whose reply follows from their arguments.
//  - fingerprint is RequestFingerprint of the request's op and args: an id names one
//    request, and the same id with other content is refused (Context::Replayed), never
//    answered with the first request's reply. Rows written before schema version 9 have
//    an empty fingerprint and match on the id and op alone.
//  - Only requests that carry an id are recorded (daemon and cluster requests); an
//    embedded command has none and writes no row.
//  - Bounded: each RecordRequest also deletes up to kRequestPrunePerWrite of the oldest
//    rows once they are older than kRequestWindowMs or more than kRequestLogCap rows
//    newer exist on the shard. It looks at that many rows and no more (seq order), so the
//    cost per write is constant, and since each write adds one row the table converges on
//    the bound. time is the wall clock (not a request's fixed --now): the window is about
//    how long a client may take to retry.
#ifndef WEIBO_TABLES_REQUEST_LOG_H_
#define WEIBO_TABLES_REQUEST_LOG_H_

#include <cstdint>
#include <optional>
#include <string>

#include "weibo/storage.h"  // Json

namespace weibo {

class Shard;

constexpr int64_t kRequestWindowMs = 24LL * 3600 * 1000;  // an id is kept at least a day...
constexpr int64_t kRequestLogCap = 100000;                // ...unless this many came after it
constexpr int64_t kRequestPrunePerWrite = 4;
// The message of the invalid_request refusing an id sent before with other content
// (weibod(1), Retries), from the daemon's memory or from this table alike.
constexpr const char* kRequestIdReused = "request id reused";

struct RequestLogRow {
  std::string op;
  int64_t result = 0;
  int64_t time = 0;
  std::string fingerprint;  // empty in rows older than the column
};

// What makes two requests with one id the same request: BLAKE2b-128 (libsodium's
// crypto_generichash) of the op and of the args in canonical form (object keys sorted, no
// whitespace), as 32 hex digits. A retry sends the same op and args, so it has the same
// fingerprint; the clock ("now") and "async" are how to run it, not what it asks.
std::string RequestFingerprint(const std::string& op, const Json& args);

std::optional<RequestLogRow> FindRequest(Shard& shard, const std::string& request_id);
// In shard's open write transaction: records the id (a second record of one id is
// ignored) and prunes (above). now_ms: the wall clock.
void RecordRequest(Shard& shard, const std::string& request_id, const std::string& op,
                   const std::string& fingerprint, int64_t result, int64_t now_ms);
int64_t CountRequests(Shard& shard);

}  // namespace weibo

#endif  // WEIBO_TABLES_REQUEST_LOG_H_
