#include "tables/msg_msg_relation.h"

#include "storage/shard.h"

namespace weibo {
namespace {

#define WEIBO_REL_COLUMNS                                                           \
  "SELECT reference_id, reference_msg_id, referenced_id, referenced_msg_id, type, " \
  "time, page_index FROM msg_msg_relation "

RelationMsgRow ReadRow(Stmt& s) {
  RelationMsgRow r;
  r.reference_id = s.Int(0);
  r.reference_msg_id = s.Int(1);
  r.referenced_id = s.Int(2);
  r.referenced_msg_id = s.Int(3);
  r.type = static_cast<int>(s.Int(4));
  r.time = s.Int(5);
  r.page_index = s.Int(6);
  return r;
}

}  // namespace

bool InsertMsgRelation(Shard& shard, const RelationMsgRow& r) {
  return shard
             .Query(
                 "INSERT OR IGNORE INTO msg_msg_relation(reference_id, reference_msg_id, "
                 "referenced_id, referenced_msg_id, type, time, page_index) "
                 "VALUES (?, ?, ?, ?, ?, ?, ?)")
             .BindAll(r.reference_id, r.reference_msg_id, r.referenced_id, r.referenced_msg_id,
                      r.type, r.time, r.page_index)
             .Run() > 0;
}

std::optional<RelationMsgRow> GetMsgRelation(Shard& shard, int64_t reference_id,
                                             int64_t reference_msg_id) {
  Stmt& s = shard.Query(WEIBO_REL_COLUMNS "WHERE reference_id = ? AND reference_msg_id = ?");
  s.Bind(1, reference_id).Bind(2, reference_msg_id);
  std::optional<RelationMsgRow> row;
  if (s.Step()) row = ReadRow(s);
  s.Reset();
  return row;
}

bool DeleteMsgRelation(Shard& shard, int64_t reference_id, int64_t reference_msg_id) {
  return shard.Query("DELETE FROM msg_msg_relation WHERE reference_id = ? AND reference_msg_id = ?")
             .BindAll(reference_id, reference_msg_id)
             .Run() > 0;
}

std::vector<RelationMsgRow> MsgRelationPage(Shard& shard, int64_t msg_id, int type,
                                            int64_t page_index) {
  Stmt& s = shard.Query(WEIBO_REL_COLUMNS
                        "WHERE referenced_msg_id = ? AND type = ? AND page_index = ? "
                        "ORDER BY reference_msg_id");
  s.Bind(1, msg_id).Bind(2, type).Bind(3, page_index);
  std::vector<RelationMsgRow> rows;
  while (s.Step()) rows.push_back(ReadRow(s));
  return rows;
}

bool HasMsgRelations(Shard& shard, int64_t msg_id) {
  return shard.Query("SELECT 1 FROM msg_msg_relation WHERE referenced_msg_id = ? LIMIT 1")
      .Bind(1, msg_id)
      .Exists();
}

std::vector<RelationMsgRow> AllMsgRelations(Shard& shard) {
  Stmt& s = shard.Query(WEIBO_REL_COLUMNS "ORDER BY referenced_msg_id, reference_msg_id");
  std::vector<RelationMsgRow> rows;
  while (s.Step()) rows.push_back(ReadRow(s));
  return rows;
}

}  // namespace weibo
