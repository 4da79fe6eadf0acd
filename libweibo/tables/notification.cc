#include "tables/notification.h"

#include <sqlite3.h>

#include "storage/shard.h"
#include "tables/user_info.h"

namespace weibo {

int64_t InsertNotification(Shard& shard, const std::string& content, int64_t time) {
  int64_t id = NewestNotification(shard) + 1;
  shard.Query("INSERT INTO notification(notify_id, content, time) VALUES (?, ?, ?)")
      .BindAll(id, content, time)
      .Run();
  return id;
}

int64_t NewestNotification(Shard& shard) {
  return shard.Query("SELECT max(notify_id) FROM notification").IntOr(0);
}

std::vector<NotificationRow> NotificationsPage(Shard& shard, int64_t max_id, int64_t count) {
  Stmt& s = shard.Query(
      "SELECT notify_id, content, time FROM notification WHERE notify_id < ? "
      "ORDER BY notify_id DESC LIMIT ?");
  s.BindAll(max_id == 0 ? INT64_MAX : max_id, count);
  std::vector<NotificationRow> rows;
  while (s.Step()) rows.push_back(NotificationRow{s.Int(0), s.Text(1), s.Int(2)});
  return rows;
}

int64_t NotificationsAfter(Shard& shard, int64_t after_id, int64_t limit) {
  return shard
      .Query(
          "SELECT count(*) FROM (SELECT 1 FROM notification WHERE notify_id > ? "
          "ORDER BY notify_id LIMIT ?)")
      .BindAll(after_id, limit)
      .IntOr(0);
}

std::optional<SeenRow> GetSeen(Shard& shard, int64_t user, int kind) {
  Stmt& s = shard.Query("SELECT last_id, time FROM last_seen WHERE user_id = ? AND kind = ?");
  s.BindAll(user, int64_t{kind});
  std::optional<SeenRow> row;
  if (s.Step()) row = SeenRow{s.Int(0), s.Int(1)};
  s.Reset();
  return row;
}

void SetSeen(Shard& shard, int64_t user, int kind, int64_t last_id, int64_t time) {
  shard
      .Query(
          "INSERT INTO last_seen(user_id, kind, last_id, time) VALUES (?, ?, ?, ?) "
          "ON CONFLICT(user_id, kind) DO UPDATE SET last_id = max(last_id, excluded.last_id), "
          "time = max(time, excluded.time)")
      .BindAll(user, int64_t{kind}, last_id, time)
      .Run();
  if (kind == kSeenTimeline) ReaderChanged(shard, SQLITE_UPDATE, user);
}

namespace {

// A row is expired when it was stored before cutoff and its user has not been active since
// (user_info.last_active: posts, follows, timeline reads).
constexpr const char* kExpired =
    "FROM last_seen WHERE kind = ?1 AND time < ?2 AND NOT EXISTS (SELECT 1 FROM user_info "
    "WHERE user_info.user_id = last_seen.user_id AND user_info.last_active >= ?2)";

}  // namespace

bool AnySeenStale(Shard& shard, int kind, int64_t cutoff) {
  return shard.Query("SELECT 1 FROM last_seen WHERE kind = ?1 AND time < ?2 LIMIT 1")
      .BindAll(int64_t{kind}, cutoff)
      .Exists();
}

int64_t ExpireSeen(Shard& shard, int kind, int64_t cutoff) {
  static const std::string sql = std::string("DELETE ") + kExpired;
  int64_t expired = shard.Query(sql.c_str()).BindAll(int64_t{kind}, cutoff).Run();
  if (expired > 0 && kind == kSeenTimeline) ReaderChanged(shard, SQLITE_DELETE, 0);
  // What is left before cutoff belongs to users active since (the DELETE took the rest,
  // a row without a user_info row too): dated to that activity, never before cutoff.
  shard
      .Query(
          "UPDATE last_seen SET time = max(?2, ifnull((SELECT last_active FROM user_info WHERE "
          "user_info.user_id = last_seen.user_id), ?2)) WHERE kind = ?1 AND time < ?2")
      .BindAll(int64_t{kind}, cutoff)
      .Run();
  return expired;
}

}  // namespace weibo
