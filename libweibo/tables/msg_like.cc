#include "tables/msg_like.h"

#include "storage/shard.h"

namespace weibo {

bool InsertLike(Shard& shard, const LikeRow& r) {
  return shard.Query("INSERT OR IGNORE INTO msg_like(msg_id, user_id, time) VALUES (?, ?, ?)")
             .BindAll(r.msg_id, r.user_id, r.time)
             .Run() > 0;
}

bool DeleteLike(Shard& shard, int64_t msg_id, int64_t user_id) {
  return shard.Query("DELETE FROM msg_like WHERE msg_id = ? AND user_id = ?")
             .BindAll(msg_id, user_id)
             .Run() > 0;
}

std::vector<LikeRow> LikesPage(Shard& shard, int64_t msg_id, int64_t page, int64_t page_size) {
  Stmt& s = shard.Query(
      "SELECT msg_id, user_id, time FROM msg_like WHERE msg_id = ? "
      "ORDER BY time DESC, user_id DESC LIMIT ? OFFSET ?");
  s.BindAll(msg_id, page_size, page * page_size);
  std::vector<LikeRow> rows;
  while (s.Step()) rows.push_back(LikeRow{s.Int(0), s.Int(1), s.Int(2)});
  return rows;
}

std::map<int64_t, int64_t> LikeCounts(Shard& shard) {
  Stmt& s = shard.Query("SELECT msg_id, count(*) FROM msg_like GROUP BY msg_id");
  std::map<int64_t, int64_t> counts;
  while (s.Step()) counts[s.Int(0)] = s.Int(1);
  return counts;
}

void DeleteLikesOf(Shard& shard, int64_t msg_id) {
  shard.Query("DELETE FROM msg_like WHERE msg_id = ?").Bind(1, msg_id).Run();
}

}  // namespace weibo
