#include "tables/access_token.h"

#include "storage/shard.h"

namespace weibo {
namespace {

constexpr const char* kTokenColumns =
    "user_id, token_id, token_hash, app_key, scope, issued, expires, revoked";

TokenRow ReadToken(const Stmt& s) {
  TokenRow r;
  r.user_id = s.Int(0);
  r.token_id = s.Text(1);
  r.hash = s.Text(2);
  r.app_key = s.Text(3);
  r.scope = s.Int(4);
  r.issued = s.Int(5);
  r.expires = s.Int(6);
  r.revoked = s.Int(7);
  return r;
}

std::vector<TokenRow> Tokens(Stmt& s) {
  std::vector<TokenRow> rows;
  while (s.Step()) rows.push_back(ReadToken(s));
  s.Reset();
  return rows;
}

std::vector<AppEventRow> Events(Stmt& s) {
  std::vector<AppEventRow> rows;
  while (s.Step()) rows.push_back({s.Int(0), s.Text(1), s.Text(2), s.Text(3), s.Int(4), s.Int(5)});
  s.Reset();
  return rows;
}

std::vector<AppRow> Apps(Stmt& s) {
  std::vector<AppRow> rows;
  while (s.Step()) rows.push_back({s.Text(0), s.Text(1), s.Text(2), s.Int(3)});
  s.Reset();
  return rows;
}

}  // namespace

std::optional<AppRow> FindApp(Shard& shard, const std::string& key) {
  Stmt& s = shard.Query("SELECT app_key, name, secret_hash, created FROM app WHERE app_key = ?");
  s.Bind(1, key);
  std::vector<AppRow> rows = Apps(s);
  if (rows.empty()) return std::nullopt;
  return rows.front();
}

bool AppNameTaken(Shard& shard, const std::string& name) {
  return shard.Query("SELECT 1 FROM app WHERE name = ?").Bind(1, name).Exists();
}

void InsertApp(Shard& shard, const AppRow& row) {
  shard.Query("INSERT INTO app(app_key, name, secret_hash, created) VALUES (?, ?, ?, ?)")
      .BindAll(row.key, row.name, row.secret_hash, row.created)
      .Run();
}

std::vector<AppRow> ListApps(Shard& shard) {
  return Apps(shard.Query("SELECT app_key, name, secret_hash, created FROM app ORDER BY name"));
}

std::optional<TokenRow> FindToken(Shard& shard, int64_t user_id, const std::string& token_id) {
  static const std::string sql = std::string("SELECT ") + kTokenColumns +
                                 " FROM access_token WHERE user_id = ? AND token_id = ?";
  Stmt& s = shard.Query(sql.c_str());
  s.BindAll(user_id, token_id);
  std::vector<TokenRow> rows = Tokens(s);
  if (rows.empty()) return std::nullopt;
  return rows.front();
}

void InsertToken(Shard& shard, const TokenRow& r) {
  static const std::string sql = std::string("INSERT INTO access_token(") + kTokenColumns +
                                 ") VALUES (?, ?, ?, ?, ?, ?, ?, ?)";
  shard.Query(sql.c_str())
      .BindAll(r.user_id, r.token_id, r.hash, r.app_key, r.scope, r.issued, r.expires, r.revoked)
      .Run();
}

void RevokeToken(Shard& shard, int64_t user_id, const std::string& token_id, int64_t time) {
  shard
      .Query(
          "UPDATE access_token SET revoked = ? WHERE user_id = ? AND token_id = ? AND revoked = 0")
      .BindAll(time, user_id, token_id)
      .Run();
}

std::vector<TokenRow> ListTokens(Shard& shard, int64_t user_id) {
  static const std::string sql = std::string("SELECT ") + kTokenColumns +
                                 " FROM access_token WHERE user_id = ? ORDER BY issued DESC, "
                                 "expires = 0 DESC, expires DESC, token_id";
  Stmt& s = shard.Query(sql.c_str());
  s.Bind(1, user_id);
  return Tokens(s);
}

std::vector<TokenRow> AllTokens(Shard& shard) {
  static const std::string sql =
      std::string("SELECT ") + kTokenColumns + " FROM access_token ORDER BY user_id, token_id";
  return Tokens(shard.Query(sql.c_str()));
}

void DeleteToken(Shard& shard, int64_t user_id, const std::string& token_id) {
  shard.Query("DELETE FROM access_token WHERE user_id = ? AND token_id = ?")
      .BindAll(user_id, token_id)
      .Run();
}

bool InsertAppEvent(Shard& shard, const AppEventRow& r) {
  return shard
             .Query(
                 "INSERT OR IGNORE INTO app_event(app_key, kind, token_id, user_id, time) "
                 "VALUES (?, ?, ?, ?, ?)")
             .BindAll(r.app_key, r.kind, r.token_id, r.user_id, r.time)
             .Run() == 1;
}

std::vector<AppEventRow> ListAppEvents(Shard& shard, const std::string& app_key, int64_t before,
                                       int64_t count) {
  Stmt& s = shard.Query(
      "SELECT seq, app_key, kind, token_id, user_id, time FROM app_event "
      "WHERE app_key = ? AND (? = 0 OR seq < ?) ORDER BY seq DESC LIMIT ?");
  s.BindAll(app_key, before, before, count);
  return Events(s);
}

std::vector<AppEventRow> AllAppEvents(Shard& shard) {
  return Events(shard.Query(
      "SELECT seq, app_key, kind, token_id, user_id, time FROM app_event ORDER BY seq"));
}

void DeleteAppEvent(Shard& shard, int64_t seq) {
  shard.Query("DELETE FROM app_event WHERE seq = ?").Bind(1, seq).Run();
}

}  // namespace weibo
