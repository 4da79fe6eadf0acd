// msg_info (seed 000 t_msg_info): one row per live message, on shard(msg_id) — which is
// shard(author) by the gene method.
//
// type 0 original, 1 comment, 2 repost. ref_* is the message commented on or reposted;
// root_* is the original at the end of the chain (seed 000, 6-30 update: a repost is shown
// with the original it carries). An edit changes content in place and counts itself in
// edited / edit_count; the texts it replaced are in msg_history (tables/msg_history.h).
// Deleting a message deletes its row; messages that refer
// to it keep their ref and show "deleted by its author".
#ifndef WEIBO_TABLES_MSG_INFO_H_
#define WEIBO_TABLES_MSG_INFO_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace weibo {

class Shard;
class Stmt;

enum MsgType { kOriginal = 0, kComment = 1, kRepost = 2 };

struct MsgRow {
  int64_t id = 0, user_id = 0;
  std::string content;
  int type = kOriginal;
  int64_t ref_msg_id = 0, ref_user_id = 0;  // 0: none
  int64_t root_msg_id = 0, root_user_id = 0;
  int64_t time = 0;
  int64_t edited = 0;  // when the text was last edited (weibo-edit(1)); 0: never
  int64_t edits = 0;   // how many times it was
};

void InsertMsg(Shard& shard, const MsgRow& row);
// The row from a statement's columns first.. first+10, in msg_info's column order (from
// msg_id to edit_count).
MsgRow ReadMsgRow(Stmt& s, int first);
std::optional<MsgRow> GetMsg(Shard& shard, int64_t id);
// Which of ids have a row here, in one statement (ids: the text of a JSON array, IdList):
// what a batch of GetMsg calls would find, in one read instead of one per id.
std::vector<int64_t> ExistingMsgs(Shard& shard, const std::string& ids);
bool DeleteMsg(Shard& shard, int64_t id);
void UpdateContent(Shard& shard, int64_t id, const std::string& content);
// An edit: the new content, edited = time and edit_count + 1; false when there is no row.
bool EditMsg(Shard& shard, int64_t id, const std::string& content, int64_t time);
// An author's originals and reposts (what followers see), newest first, within
// since_id < id < max_id (0 = unbounded).
std::vector<MsgRow> AuthorPosts(Shard& shard, int64_t user, int64_t max_id, int64_t since_id,
                                int64_t limit);
// Every message of the author, all types, same window.
std::vector<MsgRow> AuthorMessages(Shard& shard, int64_t user, int64_t max_id, int64_t since_id,
                                   int64_t limit);
std::vector<MsgRow> AllMsgs(Shard& shard);
// The ids of the newest originals on the shard, newest first (weibo-discover's pool).
std::vector<int64_t> NewestOriginals(Shard& shard, int64_t limit);
// The highest id of the messages whose id ends in gene (id mod 256); for kPlainSeqKey
// (storage/gene_id.h), of the plain ids this shard made; 0 when none.
int64_t HighestMsgIdOfGene(Shard& shard, int64_t gene);

}  // namespace weibo

#endif  // WEIBO_TABLES_MSG_INFO_H_
