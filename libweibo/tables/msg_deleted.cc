#include "tables/msg_deleted.h"

#include "storage/shard.h"

namespace weibo {

void RecordMsgDeleted(Shard& shard, int64_t msg_id) {
  shard.Query("INSERT OR IGNORE INTO msg_deleted(msg_id) VALUES (?)").Bind(1, msg_id).Run();
}

bool MsgDeleted(Shard& shard, int64_t msg_id) {
  return shard.Query("SELECT 1 FROM msg_deleted WHERE msg_id = ?").Bind(1, msg_id).Exists();
}

}  // namespace weibo
