#include "tables/msg_page.h"

#include "storage/shard.h"

namespace weibo {

std::vector<PageRow> GetPageRows(Shard& shard, const std::vector<int64_t>& ids,
                                 const char* delta_kind) {
  std::vector<PageRow> rows;
  if (ids.empty()) return rows;
  std::string list = "[";
  for (int64_t id : ids) {
    if (list.size() > 1) list += ',';
    list += std::to_string(id);
  }
  list += ']';
  // The pending deltas are summed once for the page's messages (the CTE), not scanned once
  // per message; the outbox's pending rows of one kind are few (drained continuously).
  Stmt& s = shard.Query(
      "WITH page(id) AS (SELECT value FROM json_each(?1)), "
      "pending(id, likes, views) AS (SELECT json_extract(payload, '$.msg_id'), "
      "sum(json_extract(payload, '$.likes')), sum(json_extract(payload, '$.views')) "
      "FROM outbox WHERE state = 0 AND kind = ?2 AND target_shard = ?3 "
      "AND json_extract(payload, '$.msg_id') IN page GROUP BY 1) "
      "SELECT m.msg_id, m.user_id, m.content, m.type, m.ref_msg_id, m.ref_user_id, "
      "m.root_msg_id, m.root_user_id, m.time, m.edited, m.edit_count, "
      "c.msg_id, c.commented_count, c.comment_count, c.transferred_count, c.transfer_count, "
      "c.like_count + ifnull(p.likes, 0), c.view_count + ifnull(p.views, 0), u.user_name "
      "FROM msg_info m LEFT JOIN msg_counter c ON c.msg_id = m.msg_id "
      "LEFT JOIN pending p ON p.id = m.msg_id LEFT JOIN user_info u ON u.user_id = m.user_id "
      "WHERE m.msg_id IN page");
  s.BindAll(list, std::string(delta_kind), int64_t{shard.index()});
  while (s.Step()) {
    PageRow row{ReadMsgRow(s, 0), std::nullopt, std::nullopt};
    if (!s.IsNull(11)) row.counter = ReadCounterRow(s, 11);
    if (!s.IsNull(18)) row.author_name = s.Text(18);
    rows.push_back(std::move(row));
  }
  return rows;
}

}  // namespace weibo
