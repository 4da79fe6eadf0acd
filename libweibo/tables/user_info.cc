#include "tables/user_info.h"

#include <sqlite3.h>

#include <algorithm>
#include <string>

#include "storage/shard.h"
#include "tables/id_list.h"

namespace weibo {
namespace {

UserRow ReadRow(Stmt& s) {
  return UserRow{s.Int(0), s.Text(1), s.Int(2),      s.Int(3), s.Int(4),
                 s.Int(5), s.Int(6),  s.Int(7) != 0, s.Int(8)};
}

}  // namespace

std::optional<UserRow> GetUser(Shard& shard, int64_t id) {
  Stmt& s = shard.Query(
      "SELECT user_id, user_name, msg_count, fans_count, follow_count, created, last_active, "
      "pulled, lists_touched "
      "FROM user_info WHERE user_id = ?");
  s.Bind(1, id);
  std::optional<UserRow> row;
  if (s.Step()) row = ReadRow(s);
  s.Reset();
  return row;
}

std::vector<UserRow> GetFanCountsOfFan(Shard& shard, const std::vector<int64_t>& ids, int64_t fan) {
  Stmt& s = shard.Query(
      "SELECT u.user_id, u.fans_count, u.pulled FROM json_each(?1) AS j "
      "JOIN user_info u ON u.user_id = j.value "
      "JOIN user_relation r ON r.user_id = j.value AND r.type = 0 AND r.follow_id = ?2");
  s.Bind(1, IdList(ids)).Bind(2, fan);
  std::vector<UserRow> rows;
  while (s.Step()) {
    UserRow row;
    row.id = s.Int(0);
    row.fans_count = s.Int(1);
    row.pulled = s.Int(2) != 0;
    rows.push_back(std::move(row));
  }
  // Sorted here: an ORDER BY (or an IN (subquery)) would give the statement a temporary
  // table with a page cache of its own, allocated and freed at every run (msg_page.cc).
  std::sort(rows.begin(), rows.end(),
            [](const UserRow& a, const UserRow& b) { return a.id < b.id; });
  return rows;
}

std::vector<std::pair<int64_t, std::optional<int64_t>>> InactiveSince(Shard& shard,
                                                                      const std::string& ids_json,
                                                                      int64_t since) {
  // The LEFT JOIN keeps json_each the outer loop: the rows come in the list's order.
  Stmt& s = shard.Query(
      "SELECT j.value, u.last_active FROM json_each(?1) AS j "
      "LEFT JOIN user_info AS u ON u.user_id = j.value "
      "WHERE u.last_active IS NULL OR u.last_active < ?2");
  s.Bind(1, ids_json).Bind(2, since);
  std::vector<std::pair<int64_t, std::optional<int64_t>>> rows;
  while (s.Step())
    rows.emplace_back(s.Int(0), s.IsNull(1) ? std::nullopt : std::optional<int64_t>(s.Int(1)));
  return rows;
}

std::vector<std::pair<int64_t, std::optional<int64_t>>> InactiveSinceSorted(
    Shard& shard, const std::vector<int64_t>& ids, int64_t since) {
  std::vector<std::pair<int64_t, std::optional<int64_t>>> rows;
  if (ids.empty()) return rows;
  Stmt& s = shard.Query("SELECT user_id, last_active FROM user_info WHERE user_id BETWEEN ? AND ?");
  s.Bind(1, ids.front()).Bind(2, ids.back());
  // A merge of two ascending lists: the scan's rows (rowid order) and the ids.
  bool more = s.Step();
  for (int64_t id : ids) {
    while (more && s.Int(0) < id) more = s.Step();
    if (more && s.Int(0) == id) {
      int64_t last_active = s.Int(1);
      if (last_active < since) rows.emplace_back(id, last_active);
    } else {
      rows.emplace_back(id, std::nullopt);
    }
  }
  if (more) s.Reset();
  return rows;
}

int64_t UsersBound(Shard& shard, int shards) {
  Stmt& s = shard.Query("SELECT max(user_id) FROM user_info");
  int64_t n = s.Step() && !s.IsNull(0) ? s.Int(0) / shards + 1 : 0;
  s.Reset();
  return n;
}

void InsertUser(Shard& shard, const UserRow& r) {
  shard.NoteRowChange(SQLITE_INSERT, kUserNameChange, r.id);
  shard
      .Query(
          "INSERT OR IGNORE INTO user_info(user_id, user_name, created, last_active) "
          "VALUES (?, ?, ?, ?)")
      .BindAll(r.id, r.name, r.created, r.last_active)
      .Run();
}

void AddUserCounts(Shard& shard, int64_t id, int64_t msgs, int64_t fans, int64_t follows) {
  shard
      .Query(
          "UPDATE user_info SET msg_count = msg_count + ?, fans_count = fans_count + ?, "
          "follow_count = follow_count + ? WHERE user_id = ?")
      .BindAll(msgs, fans, follows, id)
      .Run();
}

void SetUserCounts(Shard& shard, int64_t id, int64_t msgs, int64_t fans, int64_t follows) {
  shard
      .Query(
          "UPDATE user_info SET msg_count = ?, fans_count = ?, follow_count = ? "
          "WHERE user_id = ?")
      .BindAll(msgs, fans, follows, id)
      .Run();
}

bool MarkPulledFrom(Shard& shard, int64_t id, int64_t threshold) {
  return shard
             .Query(
                 "UPDATE user_info SET pulled = 1 "
                 "WHERE user_id = ? AND fans_count >= ? AND pulled = 0")
             .BindAll(id, threshold)
             .Run() > 0;
}

void TouchUser(Shard& shard, int64_t id, int64_t now_ms) {
  shard.Query("UPDATE user_info SET last_active = max(last_active, ?) WHERE user_id = ?")
      .BindAll(now_ms, id)
      .Run();
  ReaderChanged(shard, SQLITE_UPDATE, id);
}

void SetListsTouched(Shard& shard, int64_t id, int64_t now_ms) {
  shard.Query("UPDATE user_info SET lists_touched = ? WHERE user_id = ?").BindAll(now_ms, id).Run();
  ReaderChanged(shard, SQLITE_UPDATE, id);
}

namespace {
thread_local bool quiet_reader_changes = false;
}  // namespace

void ReaderChanged(Shard& shard, int op, int64_t user) {
  if (!quiet_reader_changes) shard.NoteRowChange(op, kReaderChange, user);
}

QuietReaderChanges::QuietReaderChanges() : was_(quiet_reader_changes) {
  quiet_reader_changes = true;
}
QuietReaderChanges::~QuietReaderChanges() { quiet_reader_changes = was_; }

std::vector<UserRow> ListUsers(Shard& shard) {
  Stmt& s = shard.Query(
      "SELECT user_id, user_name, msg_count, fans_count, follow_count, created, last_active, "
      "pulled, lists_touched "
      "FROM user_info ORDER BY user_id");
  std::vector<UserRow> rows;
  while (s.Step()) rows.push_back(ReadRow(s));
  return rows;
}

}  // namespace weibo
