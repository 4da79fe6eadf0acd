// user_name: the name -> id map (seed 003's "1 to 1" user center), on shard
// BLAKE2b-64(name) mod N; and the cluster-wide user id counter, in shard 0's meta row
// next_user_id. Names are unique because the map's key is the name.
#ifndef WEIBO_TABLES_USER_NAME_H_
#define WEIBO_TABLES_USER_NAME_H_

#include <cstdint>
#include <optional>
#include <string>

namespace weibo {

class Shard;

std::optional<int64_t> LookupName(Shard& shard, const std::string& name);
void InsertName(Shard& shard, const std::string& name, int64_t id);
// Returns the next user id and advances the counter; inside a WriteTxn on shard 0.
int64_t AllocateUserId(Shard& shard0);

}  // namespace weibo

#endif  // WEIBO_TABLES_USER_NAME_H_
