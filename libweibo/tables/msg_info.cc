#include "tables/msg_info.h"

#include <limits>

#include "storage/gene_id.h"
#include "storage/shard.h"

namespace weibo {
namespace {

#define WEIBO_MSG_COLUMNS                                                                       \
  "SELECT msg_id, user_id, content, type, ref_msg_id, ref_user_id, root_msg_id, root_user_id, " \
  "time, edited, edit_count FROM msg_info "

MsgRow ReadRow(Stmt& s) { return ReadMsgRow(s, 0); }

std::vector<MsgRow> ReadAll(Stmt& s) {
  std::vector<MsgRow> rows;
  while (s.Step()) rows.push_back(ReadRow(s));
  return rows;
}

int64_t Upper(int64_t max_id) { return max_id > 0 ? max_id : std::numeric_limits<int64_t>::max(); }

}  // namespace

MsgRow ReadMsgRow(Stmt& s, int first) {
  MsgRow r;
  r.id = s.Int(first);
  r.user_id = s.Int(first + 1);
  r.content = s.Text(first + 2);
  r.type = static_cast<int>(s.Int(first + 3));
  r.ref_msg_id = s.Int(first + 4);
  r.ref_user_id = s.Int(first + 5);
  r.root_msg_id = s.Int(first + 6);
  r.root_user_id = s.Int(first + 7);
  r.time = s.Int(first + 8);
  r.edited = s.Int(first + 9);
  r.edits = s.Int(first + 10);
  return r;
}

void InsertMsg(Shard& shard, const MsgRow& r) {
  Stmt& s = shard.Query(
      "INSERT INTO msg_info(msg_id, user_id, content, type, ref_msg_id, ref_user_id, "
      "root_msg_id, root_user_id, time) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)");
  s.Bind(1, r.id).Bind(2, r.user_id).Bind(3, r.content).Bind(4, r.type);
  if (r.ref_msg_id != 0) {
    s.Bind(5, r.ref_msg_id).Bind(6, r.ref_user_id).Bind(7, r.root_msg_id).Bind(8, r.root_user_id);
  }
  s.Bind(9, r.time).Run();
}

std::optional<MsgRow> GetMsg(Shard& shard, int64_t id) {
  Stmt& s = shard.Query(WEIBO_MSG_COLUMNS "WHERE msg_id = ?");
  s.Bind(1, id);
  std::optional<MsgRow> row;
  if (s.Step()) row = ReadRow(s);
  s.Reset();
  return row;
}

std::vector<int64_t> ExistingMsgs(Shard& shard, const std::string& ids) {
  Stmt& s =
      shard.Query("SELECT m.msg_id FROM json_each(?) AS j JOIN msg_info m ON m.msg_id = j.value");
  s.Bind(1, ids);
  std::vector<int64_t> found;
  while (s.Step()) found.push_back(s.Int(0));
  s.Reset();
  return found;
}

bool DeleteMsg(Shard& shard, int64_t id) {
  return shard.Query("DELETE FROM msg_info WHERE msg_id = ?").Bind(1, id).Run() > 0;
}

void UpdateContent(Shard& shard, int64_t id, const std::string& content) {
  shard.Query("UPDATE msg_info SET content = ? WHERE msg_id = ?")
      .Bind(1, content)
      .Bind(2, id)
      .Run();
}

bool EditMsg(Shard& shard, int64_t id, const std::string& content, int64_t time) {
  return shard
             .Query(
                 "UPDATE msg_info SET content = ?, edited = ?, edit_count = edit_count + 1 "
                 "WHERE msg_id = ?")
             .BindAll(content, time, id)
             .Run() > 0;
}

std::vector<MsgRow> AuthorPosts(Shard& shard, int64_t user, int64_t max_id, int64_t since_id,
                                int64_t limit) {
  Stmt& s = shard.Query(WEIBO_MSG_COLUMNS
                        "WHERE user_id = ? AND msg_id < ? AND msg_id > ? AND type IN (0, 2) "
                        "ORDER BY msg_id DESC LIMIT ?");
  s.Bind(1, user).Bind(2, Upper(max_id)).Bind(3, since_id).Bind(4, limit);
  return ReadAll(s);
}

std::vector<MsgRow> AuthorMessages(Shard& shard, int64_t user, int64_t max_id, int64_t since_id,
                                   int64_t limit) {
  Stmt& s = shard.Query(WEIBO_MSG_COLUMNS
                        "WHERE user_id = ? AND msg_id < ? AND msg_id > ? "
                        "ORDER BY msg_id DESC LIMIT ?");
  s.Bind(1, user).Bind(2, Upper(max_id)).Bind(3, since_id).Bind(4, limit);
  return ReadAll(s);
}

std::vector<MsgRow> AllMsgs(Shard& shard) {
  Stmt& s = shard.Query(WEIBO_MSG_COLUMNS "ORDER BY msg_id");
  return ReadAll(s);
}

std::vector<int64_t> NewestOriginals(Shard& shard, int64_t limit) {
  Stmt& s = shard.Query("SELECT msg_id FROM msg_info WHERE type = 0 ORDER BY msg_id DESC LIMIT ?");
  s.Bind(1, limit);
  std::vector<int64_t> ids;
  while (s.Step()) ids.push_back(s.Int(0));
  s.Reset();
  return ids;
}

int64_t HighestMsgIdOfGene(Shard& shard, int64_t gene) {
  // Plain ids (uid-mapping) carry the shard that made them in bits 15..8 instead.
  const bool plain = gene == kPlainSeqKey;
  Stmt& s = shard.Query(plain ? "SELECT max(msg_id) FROM msg_info WHERE (msg_id >> 8) & 255 = ?"
                              : "SELECT max(msg_id) FROM msg_info WHERE msg_id % 256 = ?");
  s.Bind(1, plain ? int64_t{shard.index()} : gene);
  int64_t id = s.Step() ? s.Int(0) : 0;
  s.Reset();
  return id;
}

}  // namespace weibo
