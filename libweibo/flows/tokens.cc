// tokens: apps, access tokens and their revocation (SPEC §8, seed 001).
//
//   app_register  the app's row on its name's shard; prints the secret once
//   app_list      every shard's app rows
//   app_events    the app's revocation events on its shard, newest first
//   token_issue   a token row on the user's shard (the app's row is read on its own)
//   token_revoke  marks the row on the user's shard and, in the same transaction, enqueues
//                 the app_event job for the app's shard (the outbox: the app hears of it
//                 even if this process dies after the commit)
//   token_list    the user's token rows (never a token: only their ids)
//   token_check   what a token grants, or the code that says why it grants nothing
//
// Tokens default to 24 hours (the seed's "just looking around"); --long-lived gives one
// without expiry. Neither a token nor a secret is written anywhere but the reply that
// creates it: a replayed token_issue or app_register cannot be answered again from the
// request log, so they record no request id (a retry that reaches a daemon after a
// restart issues a second token, or is told the app name is taken).
#include "flows/tokens.h"

#include <sodium.h>

#include <algorithm>

#include "flows/flows.h"
#include "storage/failure.h"
#include "storage/secret_key.h"
#include "weibo/time.h"

namespace weibo {
namespace {

constexpr const char* kKeyFile = "auth.key";
constexpr size_t kKeyBytes = crypto_generichash_KEYBYTES;
constexpr size_t kHashBytes = crypto_generichash_BYTES;  // 32
constexpr unsigned char kTokenFormat = 1;
constexpr size_t kTokenBytes = 30;   // format, user id (4), 25 random bytes
constexpr size_t kTokenChars = 40;   // base64url of 30 bytes, no padding
constexpr size_t kAppKeyBytes = 15;  // the name's shard, 14 random bytes
constexpr size_t kAppKeyChars = 20;
constexpr size_t kSecretBytes = 32;
constexpr size_t kTokenIdChars = 16;  // the hash's first 8 bytes in hex
constexpr int64_t kDefaultTtlMs = 24LL * 3600 * 1000;
constexpr int64_t kMaxTtlMs = 366LL * 24 * 3600 * 1000;

void Start() {
  if (sodium_init() < 0) Fail(Code::kStorageError, "libsodium failed to start");
}

std::string Random(size_t bytes) {
  std::string out(bytes, '\0');
  randombytes_buf(out.data(), out.size());
  return out;
}

std::string Base64Url(const std::string& bytes) {
  std::string out(sodium_base64_ENCODED_LEN(bytes.size(), sodium_base64_VARIANT_URLSAFE_NO_PADDING),
                  '\0');
  sodium_bin2base64(out.data(), out.size(), reinterpret_cast<const unsigned char*>(bytes.data()),
                    bytes.size(), sodium_base64_VARIANT_URLSAFE_NO_PADDING);
  out.resize(out.size() - 1);  // the terminating NUL
  return out;
}

// The bytes of exactly `chars` base64url characters; nullopt for anything else.
std::optional<std::string> FromBase64Url(const std::string& text, size_t chars, size_t bytes) {
  if (text.size() != chars) return std::nullopt;
  std::string out(bytes, '\0');
  size_t len = 0;
  const char* end = nullptr;
  if (sodium_base642bin(reinterpret_cast<unsigned char*>(out.data()), out.size(), text.data(),
                        text.size(), nullptr, &len, &end,
                        sodium_base64_VARIANT_URLSAFE_NO_PADDING) != 0 ||
      len != bytes || end != text.data() + text.size())
    return std::nullopt;
  return out;
}

// Keyed BLAKE2b-256 of what, in hex, with a label so that a token and a secret never hash
// alike.
std::string KeyedHash(Context& ctx, const char* label, const std::string& what) {
  Start();
  const std::string key = LoadSecretKey(ctx.shards().dir(), kKeyFile, kKeyBytes);
  crypto_generichash_state state;
  crypto_generichash_init(&state, reinterpret_cast<const unsigned char*>(key.data()), key.size(),
                          kHashBytes);
  crypto_generichash_update(&state, reinterpret_cast<const unsigned char*>(label),
                            std::char_traits<char>::length(label) + 1);
  crypto_generichash_update(&state, reinterpret_cast<const unsigned char*>(what.data()),
                            what.size());
  unsigned char hash[kHashBytes];
  crypto_generichash_final(&state, hash, sizeof hash);
  char hex[2 * kHashBytes + 1];
  sodium_bin2hex(hex, sizeof hex, hash, sizeof hash);
  return hex;
}

// The shard an app key names; nullopt when the key is malformed or names no shard.
std::optional<int> AppShard(Context& ctx, const std::string& key) {
  std::optional<int> shard = AppKeyShard(key);
  if (!shard || *shard >= ctx.shards().count()) return std::nullopt;
  return shard;
}

AppRow RequireApp(Context& ctx, const std::string& key) {
  std::optional<int> shard = AppShard(ctx, key);
  std::optional<AppRow> app;
  if (shard) {
    Shard& s = ctx.shards().At(*shard);
    ReadTxn txn(s);
    app = FindApp(s, key);
  }
  if (!app) Fail(Code::kNotFound, "no app has the key '" + key + "'");
  return *app;
}

std::string Time(int64_t ms) { return FormatTime(ms); }
Json TimeOrNull(int64_t ms) { return ms == 0 ? Json(nullptr) : Json(FormatTime(ms)); }

const char* State(const TokenRow& row, int64_t now) {
  if (row.revoked != 0) return "revoked";
  if (row.expires != 0 && now >= row.expires) return "expired";
  return "valid";
}

// A token row as weibo-token(1) shows it: never the token, nor its hash.
Json TokenJson(const TokenRow& row, int64_t now) {
  return Json{{"token_id", row.token_id},
              {"user_id", std::to_string(row.user_id)},
              {"app", row.app_key},
              {"scope", ScopeName(row.scope)},
              {"issued", Time(row.issued)},
              {"expires", TimeOrNull(row.expires)},
              {"revoked", TimeOrNull(row.revoked)},
              {"state", State(row, now)}};
}

int64_t ParseScope(const std::string& name) {
  for (int64_t s : {kScopeRead, kScopeWrite, kScopeAdmin})
    if (name == ScopeName(s)) return s;
  Fail(Code::kInvalidArgument, "--scope must be read, write or admin, not '" + name + "'");
}

// A duration: digits and a unit, s, m, h or d (no unit: seconds); 1 second to 366 days.
int64_t ParseTtl(const std::string& text) {
  size_t digits = text.find_first_not_of("0123456789");
  std::string unit = digits == std::string::npos ? "" : text.substr(digits);
  int64_t scale = unit.empty() || unit == "s" ? 1000
                  : unit == "m"               ? 60 * 1000
                  : unit == "h"               ? 3600 * 1000
                  : unit == "d"               ? 24 * 3600 * 1000
                                              : 0;
  if (digits == 0 || scale == 0 || digits > 9)
    Fail(Code::kInvalidArgument,
         "--ttl must be a duration such as 90s, 30m, 12h or 7d, not '" + text + "'");
  int64_t ms = std::stoll(text.substr(0, digits)) * scale;
  if (ms < 1000 || ms > kMaxTtlMs)
    Fail(Code::kInvalidArgument, "--ttl must be from 1s to 366d, not '" + text + "'");
  return ms;
}

// The row a token's hash names on its user's shard, compared in constant time; nullopt
// for a malformed token or one no row matches.
std::optional<TokenRow> FindTokenRow(Context& ctx, const std::string& token) {
  std::optional<int64_t> user = TokenUser(token);
  if (!user) return std::nullopt;
  const std::string hash = KeyedHash(ctx, "token", token);
  Shard& shard = ctx.shards().ForUser(*user);
  std::optional<TokenRow> row;
  {
    ReadTxn txn(shard);
    row = FindToken(shard, *user, hash.substr(0, kTokenIdChars));
  }
  if (!row || row->hash.size() != hash.size() ||
      sodium_memcmp(row->hash.data(), hash.data(), hash.size()) != 0)
    return std::nullopt;
  return row;
}

[[noreturn]] void Unknown() {
  Fail(Code::kTokenInvalid, "the token is not one this cluster issued");
}

}  // namespace

const char* ScopeName(int64_t scope) {
  switch (scope) {
    case kScopeRead:
      return "read";
    case kScopeWrite:
      return "write";
    case kScopeAdmin:
      return "admin";
  }
  return "none";
}

std::optional<int> AppKeyShard(const std::string& key) {
  auto bytes = FromBase64Url(key, kAppKeyChars, kAppKeyBytes);
  if (!bytes) return std::nullopt;
  return static_cast<unsigned char>((*bytes)[0]);
}

std::optional<int64_t> TokenUser(const std::string& token) {
  auto bytes = FromBase64Url(token, kTokenChars, kTokenBytes);
  if (!bytes || static_cast<unsigned char>((*bytes)[0]) != kTokenFormat) return std::nullopt;
  int64_t user = 0;
  for (int i = 1; i <= 4; ++i) user = (user << 8) | static_cast<unsigned char>((*bytes)[i]);
  if (user == 0) return std::nullopt;
  return user;
}

TokenRow VerifyToken(Context& ctx, const std::string& token) {
  if (token.empty()) Fail(Code::kTokenMissing, "no access token given (--token, or WEIBO_TOKEN)");
  std::optional<TokenRow> row = FindTokenRow(ctx, token);
  if (!row) Unknown();
  if (row->revoked != 0)
    Fail(Code::kTokenRevoked, "token " + row->token_id + " was revoked at " + Time(row->revoked));
  if (row->expires != 0 && ctx.now() >= row->expires)
    Fail(Code::kTokenExpired, "token " + row->token_id + " expired at " + Time(row->expires));
  return *row;
}

Json AppRegister(Context& ctx, const Json& args) {
  const std::string name = args.at("name").get<std::string>();
  const int shard_index = ctx.shards().ShardOfName(name);
  Shard& shard = ctx.shards().At(shard_index);
  Start();
  const std::string key =
      Base64Url(std::string(1, static_cast<char>(shard_index)) + Random(kAppKeyBytes - 1));
  const std::string secret = Base64Url(Random(kSecretBytes));
  AppRow row{key, name, KeyedHash(ctx, "secret", secret), ctx.now()};
  WriteTxn txn(shard);
  if (AppNameTaken(shard, name))
    Fail(Code::kAppExists, "an app named '" + name + "' is registered already");
  InsertApp(shard, row);
  txn.Commit();
  return Json{{"key", key}, {"name", name}, {"secret", secret}, {"created", Time(row.created)}};
}

Json AppList(Context& ctx, const Json&) {
  std::vector<AppRow> all;
  for (int i = 0; i < ctx.shards().count(); ++i) {
    Shard& shard = ctx.shards().At(i);
    ReadTxn txn(shard);
    for (auto& app : ListApps(shard)) all.push_back(std::move(app));
  }
  std::sort(all.begin(), all.end(),
            [](const AppRow& a, const AppRow& b) { return a.name < b.name; });
  Json out = Json::array();
  for (const auto& app : all)
    out.push_back(Json{{"key", app.key}, {"name", app.name}, {"created", Time(app.created)}});
  return out;
}

Json AppEvents(Context& ctx, const Json& args) {
  const AppRow app = RequireApp(ctx, args.at("key").get<std::string>());
  Shard& shard = ctx.shards().At(*AppShard(ctx, app.key));
  std::vector<AppEventRow> events;
  {
    ReadTxn txn(shard);
    events = ListAppEvents(shard, app.key, args.value("max_id", int64_t{0}),
                           args.value("count", int64_t{20}));
  }
  Json out = Json::array();
  for (const auto& e : events)
    out.push_back(Json{{"id", std::to_string(e.seq)},
                       {"event", e.kind},
                       {"app", e.app_key},
                       {"token_id", e.token_id},
                       {"user_id", std::to_string(e.user_id)},
                       {"time", Time(e.time)}});
  return out;
}

Json TokenIssue(Context& ctx, const Json& args) {
  const bool long_lived = args.value("long_lived", false);
  if (long_lived && args.contains("ttl"))
    Fail(Code::kInvalidArgument, "--long-lived and --ttl exclude each other");
  const int64_t ttl =
      args.contains("ttl") ? ParseTtl(args.at("ttl").get<std::string>()) : kDefaultTtlMs;
  const int64_t scope = ParseScope(args.value("scope", std::string("write")));
  const AppRow app = RequireApp(ctx, args.at("app").get<std::string>());
  const int64_t user = ctx.ResolveUser(args.at("user"));
  ctx.RequireUser(user);
  Start();
  std::string bytes(1, static_cast<char>(kTokenFormat));
  for (int shift = 24; shift >= 0; shift -= 8)
    bytes.push_back(static_cast<char>((user >> shift) & 0xff));
  bytes += Random(kTokenBytes - bytes.size());
  const std::string token = Base64Url(bytes);
  sodium_memzero(bytes.data(), bytes.size());
  TokenRow row;
  row.user_id = user;
  row.hash = KeyedHash(ctx, "token", token);
  row.token_id = row.hash.substr(0, kTokenIdChars);
  row.app_key = app.key;
  row.scope = scope;
  row.issued = ctx.now();
  row.expires = long_lived ? 0 : row.issued + ttl;
  Shard& shard = ctx.shards().ForUser(user);
  WriteTxn txn(shard);
  InsertToken(shard, row);
  txn.Commit();
  Json out = TokenJson(row, ctx.now());
  out["token"] = token;
  return out;
}

Json TokenRevoke(Context& ctx, const Json& args) {
  const std::string token = args.at("token").get<std::string>();
  std::optional<TokenRow> found = FindTokenRow(ctx, token);
  if (!found) Unknown();
  Shard& shard = ctx.shards().ForUser(found->user_id);
  WriteTxn txn(shard);
  TokenRow row = *FindToken(shard, found->user_id, found->token_id);
  if (row.revoked == 0) {  // a second revoke changes nothing and tells the app nothing
    row.revoked = ctx.now();
    RevokeToken(shard, row.user_id, row.token_id, row.revoked);
    if (std::optional<int> app_shard = AppShard(ctx, row.app_key))
      Enqueue(ctx, shard, *app_shard,
              AppEventJob{row.app_key, "token_revoked", row.token_id, row.user_id, row.revoked});
  }
  txn.Commit();
  ctx.Settle();
  return TokenJson(row, ctx.now());
}

// Published once, by the process whose drain adds the row (a job applied again adds none).
void ApplyAppEvent(Context& ctx, Shard& target, const AppEventJob& job) {
  if (InsertAppEvent(target, AppEventRow{0, job.app, job.event, job.token_id, job.user, job.time}))
    ctx.Publish(Json{{"event", job.event},
                     {"app", job.app},
                     {"token_id", job.token_id},
                     {"user_id", std::to_string(job.user)},
                     {"time", Time(job.time)}});
}

Json TokenList(Context& ctx, const Json& args) {
  const int64_t user = ctx.ResolveUser(args.at("user"));
  ctx.RequireUser(user);
  Shard& shard = ctx.shards().ForUser(user);
  std::vector<TokenRow> rows;
  {
    ReadTxn txn(shard);
    rows = ListTokens(shard, user);
  }
  Json out = Json::array();
  for (const auto& row : rows) out.push_back(TokenJson(row, ctx.now()));
  return out;
}

Json TokenCheck(Context& ctx, const Json& args) {
  return TokenJson(VerifyToken(ctx, args.at("token").get<std::string>()), ctx.now());
}

}  // namespace weibo
