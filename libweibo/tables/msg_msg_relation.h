// msg_msg_relation (seed 000 t_msg_msg_relation): who commented on or reposted what.
//
// Sharded by referenced_id — the author of the message commented on — as seed 000's 12-08
// correction says, so all comments and reposts of a message live on its own shard and one
// index range serves a page. page_index is fixed when the row is written (Tencent's design):
// the n-th comment ever made (n = commented_count after the increment) gets
// (n - 1) / page_size, and never moves; a deleted comment leaves a hole in its page.
#ifndef WEIBO_TABLES_MSG_MSG_RELATION_H_
#define WEIBO_TABLES_MSG_MSG_RELATION_H_

#include <cstdint>
#include <optional>
#include <vector>

namespace weibo {

class Shard;

struct RelationMsgRow {
  int64_t reference_id = 0, reference_msg_id = 0;    // the comment or repost
  int64_t referenced_id = 0, referenced_msg_id = 0;  // the message it refers to
  int type = 0;                                      // 1 comment, 2 repost
  int64_t time = 0, page_index = 0;
};

// PageIndex of the n-th (1-based) comment or repost ever made on a message.
inline int64_t PageIndex(int64_t n, int64_t page_size) { return (n - 1) / page_size; }

// INSERT OR IGNORE on the key (reference_id, reference_msg_id).
bool InsertMsgRelation(Shard& shard, const RelationMsgRow& row);
std::optional<RelationMsgRow> GetMsgRelation(Shard& shard, int64_t reference_id,
                                             int64_t reference_msg_id);
bool DeleteMsgRelation(Shard& shard, int64_t reference_id, int64_t reference_msg_id);
// The rows of one fixed page, oldest first.
std::vector<RelationMsgRow> MsgRelationPage(Shard& shard, int64_t msg_id, int type,
                                            int64_t page_index);
// Whether any comment or repost of msg_id is recorded (a deleted message keeps them).
bool HasMsgRelations(Shard& shard, int64_t msg_id);
std::vector<RelationMsgRow> AllMsgRelations(Shard& shard);

}  // namespace weibo

#endif  // WEIBO_TABLES_MSG_MSG_RELATION_H_
