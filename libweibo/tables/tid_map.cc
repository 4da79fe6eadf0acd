#include "tables/tid_map.h"

#include "storage/shard.h"

namespace weibo {

void InsertTidMap(Shard& shard, int64_t msg_id, int64_t user_id) {
  shard.Query("INSERT OR IGNORE INTO tid_map(tid, uid) VALUES (?, ?)")
      .Bind(1, msg_id)
      .Bind(2, user_id)
      .Run();
}

void MarkTidMapDeleted(Shard& shard, int64_t msg_id, int64_t user_id) {
  shard
      .Query(
          "INSERT INTO tid_map(tid, uid, deleted) VALUES (?, ?, 1) "
          "ON CONFLICT(tid) DO UPDATE SET deleted = 1")
      .Bind(1, msg_id)
      .Bind(2, user_id)
      .Run();
}

void RepairTidMap(Shard& shard, int64_t msg_id, int64_t user_id, bool deleted) {
  if (user_id == 0) {
    shard.Query("DELETE FROM tid_map WHERE tid = ?").Bind(1, msg_id).Run();
    return;
  }
  shard.Query("INSERT OR REPLACE INTO tid_map(tid, uid, deleted) VALUES (?, ?, ?)")
      .Bind(1, msg_id)
      .Bind(2, user_id)
      .Bind(3, int64_t{deleted ? 1 : 0})
      .Run();
}

std::vector<TidMapRow> AllTidMap(Shard& shard) {
  Stmt& s = shard.Query("SELECT tid, uid, deleted FROM tid_map ORDER BY tid");
  std::vector<TidMapRow> rows;
  while (s.Step()) rows.push_back({s.Int(0), s.Int(1), s.Int(2) != 0});
  s.Reset();
  return rows;
}

}  // namespace weibo
