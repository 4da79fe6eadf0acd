#include "tables/active_fan.h"

#include <sqlite3.h>

#include "storage/shard.h"

namespace weibo {

int64_t TouchActiveFan(Shard& shard, int64_t author, int64_t fan, int64_t length,
                       std::vector<ActiveEntry>* evicted, bool* was_listed, int64_t fans) {
  // The list's newest sequence and whether fan holds an entry, in one statement.
  Stmt& top = shard.Query(
      "SELECT max(touched), (SELECT 1 FROM active_fan WHERE author_id = ?1 AND fan_id = ?2) "
      "FROM active_fan WHERE author_id = ?1");
  top.BindAll(author, fan);
  int64_t seq = 1;
  bool listed = false;
  if (top.Step()) {
    seq = (top.IsNull(0) ? 0 : top.Int(0)) + 1;
    listed = !top.IsNull(1);
  }
  top.Reset();
  if (was_listed) *was_listed = listed;
  shard
      .Query(
          "INSERT INTO active_fan(author_id, fan_id, touched) VALUES (?1, ?2, ?3) "
          "ON CONFLICT(author_id, fan_id) DO UPDATE SET touched = ?3")
      .BindAll(author, fan, seq)
      .Run();
  // Moved, not inserted: the list is no longer than it was (one made too long by a shorter
  // active_list in cluster.json shrinks at its next insertion).
  if (listed || (fans >= 0 && fans <= length)) return seq;
  // The entries beyond the newest `length`, oldest first.
  Stmt& old = shard.Query(
      "SELECT fan_id, touched FROM active_fan WHERE author_id = ? "
      "ORDER BY touched DESC LIMIT -1 OFFSET ?");
  old.Bind(1, author).Bind(2, length);
  std::vector<ActiveEntry> out;
  while (old.Step()) out.push_back({old.Int(0), old.Int(1)});
  for (const auto& e : out) RemoveActiveFan(shard, author, e.fan);
  if (evicted) evicted->insert(evicted->end(), out.begin(), out.end());
  return seq;
}

void RemoveActiveFan(Shard& shard, int64_t author, int64_t fan) {
  shard.Query("DELETE FROM active_fan WHERE author_id = ? AND fan_id = ?")
      .BindAll(author, fan)
      .Run();
}

std::vector<int64_t> ActiveFans(Shard& shard, int64_t author) {
  Stmt& s = shard.Query("SELECT fan_id FROM active_fan WHERE author_id = ? ORDER BY fan_id");
  s.Bind(1, author);
  return s.Ints();
}

std::vector<ActiveEntry> TakeActiveFans(Shard& shard, int64_t author) {
  Stmt& s = shard.Query("SELECT fan_id, touched FROM active_fan WHERE author_id = ?");
  s.Bind(1, author);
  std::vector<ActiveEntry> out;
  while (s.Step()) out.push_back({s.Int(0), s.Int(1)});
  shard.Query("DELETE FROM active_fan WHERE author_id = ?").Bind(1, author).Run();
  return out;
}

void SetActiveOn(Shard& shard, int64_t user, int64_t author, int64_t since) {
  shard.NoteRowChange(SQLITE_INSERT, kActiveOnChange, user);
  shard
      .Query(
          "INSERT INTO active_on(user_id, author_id, since) VALUES (?1, ?2, ?3) "
          "ON CONFLICT(user_id, author_id) DO UPDATE SET since = max(since, ?3)")
      .BindAll(user, author, since)
      .Run();
}

void DropActiveOn(Shard& shard, int64_t user, int64_t author, int64_t upto) {
  shard.NoteRowChange(SQLITE_DELETE, kActiveOnChange, user);
  shard
      .Query(
          "DELETE FROM active_on WHERE user_id = ?1 AND author_id = ?2 "
          "AND (?3 = 0 OR since <= ?3)")
      .BindAll(user, author, upto)
      .Run();
}

std::vector<int64_t> ActiveAuthors(Shard& shard, int64_t user) {
  Stmt& s = shard.Query("SELECT author_id FROM active_on WHERE user_id = ? ORDER BY author_id");
  s.Bind(1, user);
  return s.Ints();
}

bool IsActiveOn(Shard& shard, int64_t user, int64_t author) {
  return shard.Query("SELECT 1 FROM active_on WHERE user_id = ? AND author_id = ?")
      .BindAll(user, author)
      .Exists();
}

std::vector<std::pair<int64_t, int64_t>> AllActiveOn(Shard& shard) {
  Stmt& s = shard.Query("SELECT user_id, author_id FROM active_on");
  std::vector<std::pair<int64_t, int64_t>> rows;
  while (s.Step()) rows.emplace_back(s.Int(0), s.Int(1));
  return rows;
}

}  // namespace weibo
