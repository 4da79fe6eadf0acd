#include "tables/msg_page.h"

#include <algorithm>

#include "storage/shard.h"
#include "tables/entity.h"

namespace weibo {

// Entities read in passing by a page's statement, per shard (below).
constexpr int64_t kAttrScan = 64;

std::vector<PageRow> GetPageRows(Shard& shard, const std::vector<int64_t>& ids) {
  std::vector<PageRow> rows;
  if (ids.empty()) return rows;
  std::string list = "[";
  for (int64_t id : ids) {
    if (list.size() > 1) list += ',';
    list += std::to_string(id);
  }
  list += ']';
  const auto [lowest, highest] = std::minmax_element(ids.begin(), ids.end());
  // One statement, and one that builds no temporary table. SQLite gives every ephemeral
  // table (an IN (subquery), a materialized CTE, a GROUP BY) a page cache of its own,
  // allocated and freed at each run: with three of them, half a home timeline's time went
  // to malloc, page faults and trimming the heap after free (perf, retwis workload). So
  // json_each is the outer loop of plain joins (rowid lookups), and the deltas pending in
  // the outbox come after the page's rows (UNION ALL, tag 1) and are summed here. One
  // statement is one snapshot, so a drain cannot count a delta twice or not at all, and
  // needs no BEGIN/COMMIT of its own. The deltas are found by schema 16's partial index
  // of them (the kind spelled as the literal kCounterDeltaKind, tables/outbox.h): the
  // outbox itself also holds the jobs a server keeps for its group commit, hundreds of
  // rows with their payloads, and scanning them was half of a push home read (perf, retwis
  // trace: 2 088 reads/s with the scan, 3 556 without). Last (tag 2), the entities of the shard's
  // messages in the page's id range, in id order, at most kAttrScan of them: message entities are
  // rare (posts with --attr) and a message's entity id sorts as its message id, so this
  // one index range usually finds all of the page's attrs, or that there are none,
  // instead of one lookup per message; where it stops short, the rest are looked up.
  Stmt& s = shard.Query(
      "SELECT 0, m.msg_id, m.user_id, m.content, m.type, m.ref_msg_id, m.ref_user_id, "
      "m.root_msg_id, m.root_user_id, m.time, m.edited, m.edit_count, "
      "c.msg_id, c.commented_count, c.comment_count, c.transferred_count, c.transfer_count, "
      "c.like_count, c.view_count, u.user_name "
      "FROM json_each(?1) AS j JOIN msg_info m ON m.msg_id = j.value "
      "LEFT JOIN msg_counter c ON c.msg_id = m.msg_id "
      "LEFT JOIN user_info u ON u.user_id = m.user_id "
      "UNION ALL SELECT 1, json_extract(payload, '$.msg_id'), json_extract(payload, '$.likes'), "
      "json_extract(payload, '$.views'), NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, "
      "NULL, NULL, NULL, NULL, NULL, NULL, NULL FROM outbox "
      "WHERE kind = 'counter_delta' AND target_shard = ?2 AND state = 0 "
      "UNION ALL SELECT * FROM (SELECT 2, id, body, NULL, NULL, NULL, NULL, NULL, NULL, NULL, "
      "NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL FROM entities "
      "WHERE id BETWEEN ?3 AND ?4 ORDER BY id LIMIT ?5)");
  s.BindAll(list, int64_t{shard.index()});
  s.BindBlob(3, MessageEntityId(*lowest)).BindBlob(4, MessageEntityId(*highest)).Bind(5, kAttrScan);
  int64_t entities = 0, covered = *highest;  // attrs are known for the ids up to covered
  while (s.Step()) {
    if (s.Int(0) == 2) {  // an entity: after the deltas
      const int64_t msg = MessageOfEntity(s.Blob(1));
      if (++entities == kAttrScan) covered = msg;
      for (PageRow& row : rows)
        if (row.msg.id == msg) row.attrs = DecodeEntityBody(s.Blob(2));
      continue;
    }
    if (s.Int(0) == 1) {  // a pending delta: after every row of the page
      const int64_t id = s.Int(1);
      for (PageRow& row : rows) {
        if (row.msg.id != id || !row.counter) continue;
        row.counter->likes += s.Int(2);
        row.counter->views += s.Int(3);
      }
      continue;
    }
    PageRow row{ReadMsgRow(s, 1), std::nullopt, std::nullopt, false, Json(), {}};
    if (!s.IsNull(12)) row.counter = ReadCounterRow(s, 12);
    if (!s.IsNull(19)) row.author_name = s.Text(19);
    rows.push_back(std::move(row));
  }
  for (PageRow& row : rows) row.attrs_known = row.msg.id <= covered;
  return rows;
}

}  // namespace weibo
