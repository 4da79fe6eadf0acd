#include "tables/request_log.h"

#include <sodium.h>
#include <sqlite3.h>

#include "storage/shard.h"

namespace weibo {

std::string RequestFingerprint(const std::string& op, const Json& args) {
  // nlohmann::json keeps object keys sorted (Json, the ordered kind, keeps them as sent).
  const std::string canonical = op + "\n" + nlohmann::json::parse(args.dump()).dump();
  unsigned char hash[16];
  crypto_generichash(hash, sizeof hash, reinterpret_cast<const unsigned char*>(canonical.data()),
                     canonical.size(), nullptr, 0);
  char hex[sizeof hash * 2 + 1];
  sodium_bin2hex(hex, sizeof hex, hash, sizeof hash);
  return hex;
}

std::optional<RequestLogRow> FindRequest(Shard& shard, const std::string& request_id) {
  Stmt& s =
      shard.Query("SELECT op, result, time, fingerprint FROM request_log WHERE request_id = ?");
  s.Bind(1, request_id);
  std::optional<RequestLogRow> row;
  if (s.Step()) row = RequestLogRow{s.Text(0), s.Int(1), s.Int(2), s.Text(3)};
  s.Reset();
  return row;
}

void RecordRequest(Shard& shard, const std::string& request_id, const std::string& op,
                   const std::string& fingerprint, int64_t result, int64_t now_ms) {
  shard
      .Query(
          "INSERT OR IGNORE INTO request_log(request_id, op, result, time, fingerprint) "
          "VALUES (?, ?, ?, ?, ?)")
      .Bind(1, request_id)
      .Bind(2, op)
      .Bind(3, result)
      .Bind(4, now_ms)
      .Bind(5, fingerprint)
      .Run();
  // seq is the rowid: the newest row has the largest (a rowid table hands out max + 1, and
  // pruning only ever removes the oldest rows).
  Stmt& last = shard.Query("SELECT max(seq) FROM request_log");
  last.Step();
  int64_t newest = last.Int(0);
  last.Reset();
  shard
      .Query(
          "DELETE FROM request_log WHERE seq IN (SELECT seq FROM (SELECT seq, time FROM "
          "request_log ORDER BY seq LIMIT ?) WHERE time < ? OR seq <= ?)")
      .Bind(1, kRequestPrunePerWrite)
      .Bind(2, now_ms - kRequestWindowMs)
      .Bind(3, newest - kRequestLogCap)
      .Run();
}

int64_t CountRequests(Shard& shard) {
  Stmt& s = shard.Query("SELECT count(*) FROM request_log");
  s.Step();
  int64_t n = s.Int(0);
  s.Reset();
  return n;
}

}  // namespace weibo
