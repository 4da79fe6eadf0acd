// app, access_token, app_event: the rows of SPEC §8 (seed 001). Nothing here knows a token
// or a secret: rows hold keyed hashes of them (flows/tokens.cc makes and hashes both).
//
// Invariants (weibo-fsck checks them, flows/fsck.cc):
//  - app is on the shard the app key's first byte names, which is its name's shard, so a
//    name is registered once (its UNIQUE column) and a key is found from itself.
//  - access_token is on shard(user_id); (user_id, token_id) is its key, token_id the first
//    8 bytes of the token's hash in hex, token_hash all 32. scope is 1 read, 2 write,
//    3 admin; expires is 0 (long-lived) or after issued; revoked is 0 or when it was
//    revoked, and a revoked row is never un-revoked. Its app exists.
//  - app_event is on its app's shard, one row per (app, kind, token): the revocation job
//    that writes it is applied once however often it runs. seq orders the events.
#ifndef WEIBO_TABLES_ACCESS_TOKEN_H_
#define WEIBO_TABLES_ACCESS_TOKEN_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace weibo {

class Shard;

struct AppRow {
  std::string key;
  std::string name;
  std::string secret_hash;
  int64_t created = 0;
};

struct TokenRow {
  int64_t user_id = 0;
  std::string token_id;
  std::string hash;
  std::string app_key;
  int64_t scope = 0;
  int64_t issued = 0;
  int64_t expires = 0;  // 0: long-lived
  int64_t revoked = 0;  // 0: not revoked
};

struct AppEventRow {
  int64_t seq = 0;
  std::string app_key;
  std::string kind;
  std::string token_id;
  int64_t user_id = 0;
  int64_t time = 0;
};

std::optional<AppRow> FindApp(Shard& shard, const std::string& key);
bool AppNameTaken(Shard& shard, const std::string& name);
void InsertApp(Shard& shard, const AppRow& row);
std::vector<AppRow> ListApps(Shard& shard);

std::optional<TokenRow> FindToken(Shard& shard, int64_t user_id, const std::string& token_id);
void InsertToken(Shard& shard, const TokenRow& row);
// Marks the token revoked at `time`, unless it already is.
void RevokeToken(Shard& shard, int64_t user_id, const std::string& token_id, int64_t time);
// Newest first; of one time, the longest-lived first (then by id, which is random).
std::vector<TokenRow> ListTokens(Shard& shard, int64_t user_id);
std::vector<TokenRow> AllTokens(Shard& shard);
void DeleteToken(Shard& shard, int64_t user_id, const std::string& token_id);

// Adds the event unless (app, kind, token) has one; whether it did.
bool InsertAppEvent(Shard& shard, const AppEventRow& row);
// The app's events with seq below before (0: from the newest), newest first, at most count.
std::vector<AppEventRow> ListAppEvents(Shard& shard, const std::string& app_key, int64_t before,
                                       int64_t count);
std::vector<AppEventRow> AllAppEvents(Shard& shard);
void DeleteAppEvent(Shard& shard, int64_t seq);

}  // namespace weibo

#endif  // WEIBO_TABLES_ACCESS_TOKEN_H_
