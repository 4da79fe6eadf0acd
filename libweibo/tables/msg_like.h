// msg_like (seed 004, SPEC §6): who likes a message, one row per (message, user), on the
// message's own shard beside its msg_counter row. A user likes a message at most once (the
// key); like_count is the number of rows (weibo-fsck checks it). Deleting a message deletes
// its rows with its counter row, in the same transaction.
#ifndef WEIBO_TABLES_MSG_LIKE_H_
#define WEIBO_TABLES_MSG_LIKE_H_

#include <cstdint>
#include <map>
#include <vector>

namespace weibo {

class Shard;

struct LikeRow {
  int64_t msg_id = 0;
  int64_t user_id = 0;
  int64_t time = 0;
};

// False when the user likes the message already.
bool InsertLike(Shard& shard, const LikeRow& row);
// False when the user did not like it.
bool DeleteLike(Shard& shard, int64_t msg_id, int64_t user_id);
// One page of a message's likes, newest first.
std::vector<LikeRow> LikesPage(Shard& shard, int64_t msg_id, int64_t page, int64_t page_size);
// Every message of the shard with likes: msg_id -> number of like rows (fsck).
std::map<int64_t, int64_t> LikeCounts(Shard& shard);
void DeleteLikesOf(Shard& shard, int64_t msg_id);

}  // namespace weibo

#endif  // WEIBO_TABLES_MSG_LIKE_H_
