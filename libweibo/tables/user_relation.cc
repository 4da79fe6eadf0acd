#include "tables/user_relation.h"

#include <sqlite3.h>

#include "storage/shard.h"
#include "tables/author_feed.h"

namespace weibo {

namespace {

// The statements below name the type as a literal, one text per type, never as a bound
// parameter: a partial index's WHERE (user_relation_followers: type = 1) compared with a
// parameter makes SQLite prepare the statement again at every bind, to see whether the
// index applies (sqlite3_stmt_status REPREPARE: once per call). kFan and kFollowing are the
// only types.
const char* ByType(int type, const char* fans, const char* following) {
  return type == kFan ? fans : following;
}

}  // namespace

bool HasRelation(Shard& shard, int64_t user, int64_t other, int type) {
  Stmt& s = shard.Query(
      ByType(type, "SELECT 1 FROM user_relation WHERE user_id = ? AND type = 0 AND follow_id = ?",
             "SELECT 1 FROM user_relation WHERE user_id = ? AND type = 1 AND follow_id = ?"));
  s.Bind(1, user).Bind(2, other);
  bool found = s.Step();
  s.Reset();
  return found;
}

std::vector<int64_t> FansWhileMsg(Shard& shard, int64_t author, int64_t msg_id,
                                  const std::string& users_json, bool by_feed) {
  if (by_feed) {
    Stmt& s = shard.Query(
        "SELECT j.value FROM json_each(?3) AS j WHERE EXISTS (SELECT 1 FROM user_relation "
        "WHERE user_id = ?1 AND type = 0 AND follow_id = j.value) "
        "AND EXISTS (SELECT 1 FROM author_feed WHERE user_id = ?1 AND part = ?4 AND msg_id = ?2)");
    s.Bind(1, author).Bind(2, msg_id).Bind(3, users_json).Bind(4, PartOf(msg_id));
    return s.Ints();
  }
  Stmt& s = shard.Query(
      "SELECT j.value FROM json_each(?3) AS j WHERE EXISTS (SELECT 1 FROM user_relation "
      "WHERE user_id = ?1 AND type = 0 AND follow_id = j.value) "
      "AND EXISTS (SELECT 1 FROM msg_info WHERE msg_id = ?2)");
  s.Bind(1, author).Bind(2, msg_id).Bind(3, users_json);
  return s.Ints();
}

std::vector<int64_t> FollowersBetween(Shard& shard, int64_t followee, int64_t lo, int64_t hi) {
  // type = 1 as a literal: the partial index applies only where the query says so.
  Stmt& s = shard.Query(
      "SELECT user_id FROM user_relation "
      "WHERE type = 1 AND follow_id = ?1 AND user_id BETWEEN ?2 AND ?3");
  s.Bind(1, followee).Bind(2, lo).Bind(3, hi);
  return s.Ints();
}

bool InsertRelation(Shard& shard, int64_t user, int64_t other, int type, int64_t time) {
  if (type == kFollowing) shard.NoteRowChange(SQLITE_INSERT, kFollowingChange, user);
  return shard
             .Query(
                 "INSERT OR IGNORE INTO user_relation(user_id, follow_id, type, time) "
                 "VALUES (?, ?, ?, ?)")
             .BindAll(user, other, type, time)
             .Run() > 0;
}

bool DeleteRelation(Shard& shard, int64_t user, int64_t other, int type) {
  if (type == kFollowing) shard.NoteRowChange(SQLITE_DELETE, kFollowingChange, user);
  return shard
             .Query(ByType(
                 type, "DELETE FROM user_relation WHERE user_id = ? AND type = 0 AND follow_id = ?",
                 "DELETE FROM user_relation WHERE user_id = ? AND type = 1 AND follow_id = ?"))
             .BindAll(user, other)
             .Run() > 0;
}

std::vector<int64_t> Related(Shard& shard, int64_t user, int type) {
  Stmt& s = shard.Query(ByType(
      type, "SELECT follow_id FROM user_relation WHERE user_id = ? AND type = 0 ORDER BY follow_id",
      "SELECT follow_id FROM user_relation WHERE user_id = ? AND type = 1 ORDER BY follow_id"));
  s.Bind(1, user);
  return s.Ints();
}

std::vector<RelationRow> AllRelations(Shard& shard) {
  Stmt& s = shard.Query("SELECT user_id, follow_id, type, time FROM user_relation");
  std::vector<RelationRow> rows;
  while (s.Step()) rows.push_back({s.Int(0), s.Int(1), s.Int(2), s.Int(3)});
  return rows;
}

}  // namespace weibo
