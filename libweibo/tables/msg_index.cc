#include "tables/msg_index.h"

#include <sodium.h>
#include <sqlite3.h>

#include <algorithm>
#include <cstring>
#include <limits>

#include "storage/shard.h"

namespace weibo {

namespace {

thread_local bool patched_deliveries = false;

void Changed(Shard& shard, int op, int64_t user) { shard.NoteRowChange(op, kInboxChange, user); }

}  // namespace

PatchedDeliveries::PatchedDeliveries() : was_(patched_deliveries) { patched_deliveries = true; }
PatchedDeliveries::~PatchedDeliveries() { patched_deliveries = was_; }

void InsertInbox(Shard& shard, const InboxRow& r) {
  shard
      .Query(
          "INSERT OR IGNORE INTO msg_index(user_id, msg_id, author_id, time) "
          "VALUES (?, ?, ?, ?)")
      .BindAll(r.user_id, r.msg_id, r.author_id, r.time)
      .Run();
  Changed(shard, SQLITE_INSERT, r.user_id);
}

void DeliverInbox(Shard& shard, const InboxRow& r) {
  shard
      .Query(
          "INSERT OR IGNORE INTO msg_index(user_id, msg_id, author_id, time) "
          "SELECT ?1, ?2, ?3, ?4 WHERE EXISTS (SELECT 1 FROM user_relation "
          "WHERE user_id = ?1 AND type = 1 AND follow_id = ?3) "
          "AND NOT EXISTS (SELECT 1 FROM msg_deleted WHERE msg_id = ?2)")
      .BindAll(r.user_id, r.msg_id, r.author_id, r.time)
      .Run();
  Changed(shard, SQLITE_INSERT, r.user_id);
}

void DeliverInboxMany(Shard& shard, const std::vector<int64_t>& users,
                      const std::string& users_json, int64_t msg_id, int64_t author_id,
                      int64_t time) {
  shard
      .Query(
          "INSERT OR IGNORE INTO msg_index(user_id, msg_id, author_id, time) "
          "SELECT j.value, ?2, ?3, ?4 FROM json_each(?1) AS j WHERE EXISTS "
          "(SELECT 1 FROM user_relation WHERE user_id = j.value AND type = 1 AND follow_id = ?3) "
          "AND NOT EXISTS (SELECT 1 FROM msg_deleted WHERE msg_id = ?2)")
      .BindAll(users_json, msg_id, author_id, time)
      .Run();
  if (!patched_deliveries)
    for (int64_t user : users) Changed(shard, SQLITE_INSERT, user);
}

void DeliverInboxToFollowers(Shard& shard, const std::vector<int64_t>& users,
                             const std::string& users_json, int64_t msg_id, int64_t author_id,
                             int64_t time) {
  shard
      .Query(
          "INSERT OR IGNORE INTO msg_index(user_id, msg_id, author_id, time) "
          "SELECT j.value, ?2, ?3, ?4 FROM json_each(?1) AS j "
          "WHERE NOT EXISTS (SELECT 1 FROM msg_deleted WHERE msg_id = ?2)")
      .BindAll(users_json, msg_id, author_id, time)
      .Run();
  if (!patched_deliveries)
    for (int64_t user : users) Changed(shard, SQLITE_INSERT, user);
}

void DeleteInbox(Shard& shard, int64_t user, int64_t msg_id) {
  shard.Query("DELETE FROM msg_index WHERE user_id = ? AND msg_id = ?").BindAll(user, msg_id).Run();
  Changed(shard, SQLITE_DELETE, user);
}

void DeleteInboxByAuthor(Shard& shard, int64_t user, int64_t author) {
  shard.Query("DELETE FROM msg_index WHERE user_id = ? AND author_id = ?")
      .BindAll(user, author)
      .Run();
  Changed(shard, SQLITE_DELETE, user);
}

void ReadInbox(Shard& shard, int64_t user, int64_t max_id, int64_t since_id, int64_t limit,
               const std::function<void(int64_t msg_id, int64_t author_id)>& row) {
  Stmt& s = shard.Query(
      "SELECT msg_id, author_id FROM msg_index "
      "WHERE user_id = ? AND msg_id < ? AND msg_id > ? ORDER BY msg_id DESC LIMIT ?");
  s.Bind(1, user)
      .Bind(2, max_id > 0 ? max_id : std::numeric_limits<int64_t>::max())
      .Bind(3, since_id)
      .Bind(4, limit);
  while (s.Step()) row(s.Int(0), s.Int(1));
}

void MaybeTrimInbox(Shard& shard, int64_t user, int64_t msg_id, int64_t cap) {
  // SipHash (libsodium) of (user, msg): a reproducible one-in-kTrimEvery choice.
  static const unsigned char kKey[crypto_shorthash_KEYBYTES] = {};
  int64_t in[2] = {user, msg_id};
  unsigned char out[crypto_shorthash_BYTES];
  crypto_shorthash(out, reinterpret_cast<const unsigned char*>(in), sizeof in, kKey);
  uint64_t h;
  std::memcpy(&h, out, sizeof h);
  if (h % kTrimEvery != 0) return;
  Stmt& kth = shard.Query(
      "SELECT msg_id FROM msg_index WHERE user_id = ? ORDER BY msg_id DESC LIMIT 1 OFFSET ?");
  kth.Bind(1, user).Bind(2, cap - 1);
  if (!kth.Step()) return;
  int64_t floor = kth.Int(0);
  kth.Reset();
  if (shard.Query("DELETE FROM msg_index WHERE user_id = ? AND msg_id < ?")
          .BindAll(user, floor)
          .Run() == 0)
    return;
  Changed(shard, SQLITE_DELETE, user);
  RaiseInboxFloor(shard, user, floor);
}

void RaiseInboxFloor(Shard& shard, int64_t user, int64_t floor) {
  shard
      .Query(
          "INSERT INTO inbox_floor(user_id, floor_msg_id) VALUES (?1, ?2) "
          "ON CONFLICT(user_id) DO UPDATE SET floor_msg_id = max(floor_msg_id, ?2)")
      .BindAll(user, floor)
      .Run();
  shard.NoteRowChange(SQLITE_UPDATE, kInboxFloorChange, user);
}

int64_t InboxFloor(Shard& shard, int64_t user) {
  return shard.Query("SELECT floor_msg_id FROM inbox_floor WHERE user_id = ?")
      .Bind(1, user)
      .IntOr(0);
}

std::vector<std::pair<int64_t, int64_t>> AllInboxFloors(Shard& shard) {
  Stmt& s = shard.Query("SELECT user_id, floor_msg_id FROM inbox_floor");
  std::vector<std::pair<int64_t, int64_t>> rows;
  while (s.Step()) rows.emplace_back(s.Int(0), s.Int(1));
  return rows;
}

std::vector<InboxRow> AllInbox(Shard& shard) {
  Stmt& s = shard.Query("SELECT user_id, msg_id, author_id, time FROM msg_index");
  std::vector<InboxRow> rows;
  while (s.Step()) rows.push_back({s.Int(0), s.Int(1), s.Int(2), s.Int(3)});
  return rows;
}

}  // namespace weibo
