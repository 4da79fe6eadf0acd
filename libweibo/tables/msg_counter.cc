#include "tables/msg_counter.h"

#include "storage/shard.h"

namespace weibo {
namespace {

CounterRow ReadRow(Stmt& s) { return ReadCounterRow(s, 0); }

Stmt& BindAll(Stmt& s, const CounterRow& r) {
  return s.Bind(1, r.commented)
      .Bind(2, r.comments)
      .Bind(3, r.transferred)
      .Bind(4, r.transfers)
      .Bind(5, r.likes)
      .Bind(6, r.views)
      .Bind(7, r.msg_id);
}

}  // namespace

CounterRow ReadCounterRow(Stmt& s, int f) {
  return CounterRow{s.Int(f),     s.Int(f + 1), s.Int(f + 2), s.Int(f + 3),
                    s.Int(f + 4), s.Int(f + 5), s.Int(f + 6)};
}

void InitCounter(Shard& shard, int64_t msg_id) {
  shard.Query("INSERT OR IGNORE INTO msg_counter(msg_id) VALUES (?)").Bind(1, msg_id).Run();
}

std::optional<CounterRow> GetCounter(Shard& shard, int64_t msg_id) {
  Stmt& s = shard.Query(
      "SELECT msg_id, commented_count, comment_count, transferred_count, transfer_count, "
      "like_count, view_count FROM msg_counter WHERE msg_id = ?");
  s.Bind(1, msg_id);
  std::optional<CounterRow> row;
  if (s.Step()) row = ReadRow(s);
  s.Reset();
  return row;
}

std::optional<CounterRow> GetLiveCounter(Shard& shard, int64_t msg_id) {
  // kind as the literal kCounterDeltaKind (tables/outbox.h): the partial index of the
  // deltas, not a scan of the outbox.
  Stmt& s = shard.Query(
      "SELECT c.msg_id, c.commented_count, c.comment_count, c.transferred_count, "
      "c.transfer_count, c.like_count + ifnull(p.likes, 0), c.view_count + ifnull(p.views, 0) "
      "FROM msg_counter c LEFT JOIN (SELECT sum(json_extract(payload, '$.likes')) AS likes, "
      "sum(json_extract(payload, '$.views')) AS views FROM outbox "
      "WHERE kind = 'counter_delta' AND target_shard = ?2 AND state = 0 "
      "AND json_extract(payload, '$.msg_id') = ?1) p WHERE c.msg_id = ?1");
  s.BindAll(msg_id, int64_t{shard.index()});
  std::optional<CounterRow> row;
  if (s.Step()) row = ReadRow(s);
  s.Reset();
  return row;
}

bool AddCounter(Shard& shard, const CounterRow& d) {
  Stmt& s = shard.Query(
      "UPDATE msg_counter SET commented_count = commented_count + ?, "
      "comment_count = comment_count + ?, transferred_count = transferred_count + ?, "
      "transfer_count = transfer_count + ?, like_count = like_count + ?, "
      "view_count = view_count + ? WHERE msg_id = ?");
  return BindAll(s, d).Run() > 0;
}

void SetCounter(Shard& shard, const CounterRow& r) {
  Stmt& s = shard.Query(
      "UPDATE msg_counter SET commented_count = ?, comment_count = ?, transferred_count = ?, "
      "transfer_count = ?, like_count = ?, view_count = ? WHERE msg_id = ?");
  BindAll(s, r).Run();
}

void DeleteCounter(Shard& shard, int64_t msg_id) {
  shard.Query("DELETE FROM msg_counter WHERE msg_id = ?").Bind(1, msg_id).Run();
}

std::vector<CounterRow> AllCounters(Shard& shard) {
  Stmt& s = shard.Query(
      "SELECT msg_id, commented_count, comment_count, transferred_count, transfer_count, "
      "like_count, view_count FROM msg_counter ORDER BY msg_id");
  std::vector<CounterRow> rows;
  while (s.Step()) rows.push_back(ReadRow(s));
  return rows;
}

}  // namespace weibo
