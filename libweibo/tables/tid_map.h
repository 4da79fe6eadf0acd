// tid_map (strategy uid-mapping, seed 003's t_mapping(tid, uid)): one row per message,
// tid -> its author, on shard tid mod N. Written when the message is made (inline when that
// shard is the author's, else through the outbox: flows/placement.cc) and marked deleted,
// never removed, when the message is deleted: a deleted message's comments and reposts
// stay on its author's shard (SPEC §4.6), and their pages and their own deletes find that
// shard through the mapping. ShardSet::MsgShardIndex reads it (storage/shard_set.cc holds
// that one statement: placement is below the tables).
#ifndef WEIBO_TABLES_TID_MAP_H_
#define WEIBO_TABLES_TID_MAP_H_

#include <cstdint>
#include <vector>

namespace weibo {

class Shard;

struct TidMapRow {
  int64_t tid = 0;
  int64_t uid = 0;
  bool deleted = false;
};

// A new message's row. Idempotent: a row already there is kept as it is (a retried job
// writes it again; a delete's mark that overtook it stays).
void InsertTidMap(Shard& shard, int64_t msg_id, int64_t user_id);
// Marks the row of a deleted message, writing it first when it is not there yet.
void MarkTidMapDeleted(Shard& shard, int64_t msg_id, int64_t user_id);
// Every row of the shard, by tid: weibo-fsck.
std::vector<TidMapRow> AllTidMap(Shard& shard);
// weibo-fsck --repair: sets tid's row to (uid, deleted), or removes it when uid is 0.
void RepairTidMap(Shard& shard, int64_t msg_id, int64_t user_id, bool deleted);

}  // namespace weibo

#endif  // WEIBO_TABLES_TID_MAP_H_
