// Access tokens and app keys as strings (SPEC §8, weibo-token(1)): what a token carries,
// and the check of one. The rows are tables/access_token.h; the ops are in flows.h.
//
// A token is 40 characters of base64url (no padding) over 30 bytes: a format byte (1),
// the user id (4 bytes, big-endian), so that the token's row is found on its user's shard
// without a scan, and 25 bytes (200 bits) from libsodium's CSPRNG. It is stored only as a
// keyed BLAKE2b-256 hash (the key: DIR/auth.key, storage/secret_key.h); token_id, the
// hash's first 8 bytes in hex, names it in lists, events and logs.
//
// An app key is 20 characters over 15 bytes: the shard of the app's name (1 byte) and 14
// random bytes; the secret given with it is 32 random bytes, stored as a keyed hash too.
#ifndef WEIBO_FLOWS_TOKENS_H_
#define WEIBO_FLOWS_TOKENS_H_

#include <cstdint>
#include <optional>
#include <string>

#include "jobs/context.h"
#include "tables/access_token.h"

namespace weibo {

enum TokenScope : int64_t { kScopeRead = 1, kScopeWrite = 2, kScopeAdmin = 3 };

const char* ScopeName(int64_t scope);

// The user id a well-formed token names; nullopt for anything that is not one.
std::optional<int64_t> TokenUser(const std::string& token);

// The shard an app key names (its first byte); nullopt for a malformed key.
std::optional<int> AppKeyShard(const std::string& key);

// The row of a token that grants access now. Failure token_missing (empty), token_invalid
// (malformed, or no stored hash matches: nothing else is told), token_revoked,
// token_expired — the last two only for a token whose hash matched a stored row, compared
// in constant time.
TokenRow VerifyToken(Context& ctx, const std::string& token);

}  // namespace weibo

#endif  // WEIBO_FLOWS_TOKENS_H_
