// The data directory's secret keys: random bytes in a 0600 file of the directory, made by
// whichever process needs one first. The token hash key (auth.key) is one: every process
// that opens the cluster — embedded commands, weibod, each node — hashes tokens with it,
// so it lives with the shards, not in them (a copy of a shard alone cannot test a guess).
#ifndef WEIBO_STORAGE_SECRET_KEY_H_
#define WEIBO_STORAGE_SECRET_KEY_H_

#include <cstddef>
#include <string>

namespace weibo {

// The key in dir/file, `bytes` long; when there is no such file, a new random one
// (libsodium's CSPRNG), written to a private temporary file and linked into place, so two
// processes racing to make it both end with the one that won. Failure(storage_error) when
// the file cannot be read or made, or holds another number of bytes.
std::string LoadSecretKey(const std::string& dir, const char* file, size_t bytes);

}  // namespace weibo

#endif  // WEIBO_STORAGE_SECRET_KEY_H_
