#include "tables/msg_history.h"

#include "storage/shard.h"

namespace weibo {

void InsertHistory(Shard& shard, const HistoryRow& row) {
  shard.Query("INSERT INTO msg_history(msg_id, version, content, time) VALUES (?, ?, ?, ?)")
      .BindAll(row.msg_id, row.version, row.content, row.time)
      .Run();
}

std::vector<HistoryRow> MsgHistory(Shard& shard, int64_t msg_id) {
  Stmt& s = shard.Query(
      "SELECT version, content, time FROM msg_history WHERE msg_id = ? ORDER BY version");
  s.Bind(1, msg_id);
  std::vector<HistoryRow> rows;
  while (s.Step()) rows.push_back({msg_id, s.Int(0), s.Text(1), s.Int(2)});
  return rows;
}

void DeleteHistory(Shard& shard, int64_t msg_id) {
  shard.Query("DELETE FROM msg_history WHERE msg_id = ?").Bind(1, msg_id).Run();
}

}  // namespace weibo
