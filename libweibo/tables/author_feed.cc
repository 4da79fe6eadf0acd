#include "tables/author_feed.h"

#include <sqlite3.h>

#include <limits>

#include "storage/shard.h"

namespace weibo {

// author_feed is WITHOUT ROWID, so the update hook never sees it: each write tells the
// connection's row listeners itself (a server's cache of followees' newest posts,
// tables/message_cache.h), keyed by the author.

void InsertAuthorFeed(Shard& shard, int64_t author, int64_t msg_id, int type) {
  shard.NoteRowChange(SQLITE_INSERT, "author_feed", author);
  shard.Query("INSERT OR IGNORE INTO author_feed(user_id, part, msg_id, type) VALUES (?, ?, ?, ?)")
      .Bind(1, author)
      .Bind(2, PartOf(msg_id))
      .Bind(3, msg_id)
      .Bind(4, type)
      .Run();
  shard.Query("INSERT OR IGNORE INTO author_part(user_id, part) VALUES (?, ?)")
      .Bind(1, author)
      .Bind(2, PartOf(msg_id))
      .Run();
}

bool DeleteAuthorFeed(Shard& shard, int64_t author, int64_t msg_id) {
  shard.NoteRowChange(SQLITE_DELETE, "author_feed", author);
  return shard.Query("DELETE FROM author_feed WHERE user_id = ? AND part = ? AND msg_id = ?")
             .Bind(1, author)
             .Bind(2, PartOf(msg_id))
             .Bind(3, msg_id)
             .Run() > 0;
}

void NoteAuthorFeedMoved(Shard& shard, int64_t author) {
  shard.NoteRowChange(SQLITE_DELETE, "author_feed", author);
}

bool HasAuthorFeed(Shard& shard, int64_t author, int64_t msg_id) {
  Stmt& s = shard.Query("SELECT 1 FROM author_feed WHERE user_id = ? AND part = ? AND msg_id = ?");
  s.Bind(1, author).Bind(2, PartOf(msg_id)).Bind(3, msg_id);
  const bool found = s.Step();
  s.Reset();
  return found;
}

std::vector<std::pair<int64_t, int64_t>> AllAuthorFeed(Shard& shard) {
  Stmt& s = shard.Query("SELECT user_id, msg_id FROM author_feed");
  std::vector<std::pair<int64_t, int64_t>> out;
  while (s.Step()) out.push_back({s.Int(0), s.Int(1)});
  s.Reset();
  return out;
}

std::vector<int64_t> AuthorParts(Shard& shard, int64_t author, int64_t part, int64_t limit) {
  Stmt& s = shard.Query(
      "SELECT part FROM author_part WHERE user_id = ? AND part <= ? ORDER BY part DESC LIMIT ?");
  s.Bind(1, author).Bind(2, part).Bind(3, limit);
  return s.Ints();
}

std::vector<int64_t> ReadAuthorPart(Shard& shard, int64_t author, int64_t part, bool posts_only,
                                    int64_t max_id, int64_t since_id, int64_t limit) {
  Stmt& s = shard.Query(
      posts_only ? "SELECT msg_id FROM author_feed WHERE user_id = ? AND part = ? AND msg_id < ? "
                   "AND msg_id > ? AND type IN (0, 2) ORDER BY msg_id DESC LIMIT ?"
                 : "SELECT msg_id FROM author_feed WHERE user_id = ? AND part = ? AND msg_id < ? "
                   "AND msg_id > ? ORDER BY msg_id DESC LIMIT ?");
  s.Bind(1, author)
      .Bind(2, part)
      .Bind(3, max_id > 0 ? max_id : std::numeric_limits<int64_t>::max())
      .Bind(4, since_id)
      .Bind(5, limit);
  return s.Ints();
}

std::vector<std::pair<int64_t, int64_t>> EmptyPartsAbove(Shard& shard, int64_t part) {
  Stmt& s = shard.Query(
      "SELECT user_id, part FROM author_part AS p WHERE part > ? AND NOT EXISTS "
      "(SELECT 1 FROM author_feed AS f WHERE f.user_id = p.user_id AND f.part = p.part)");
  s.Bind(1, part);
  std::vector<std::pair<int64_t, int64_t>> out;
  while (s.Step()) out.push_back({s.Int(0), s.Int(1)});
  s.Reset();
  return out;
}

void DeleteAuthorPart(Shard& shard, int64_t author, int64_t part) {
  shard.Query("DELETE FROM author_part WHERE user_id = ? AND part = ?")
      .Bind(1, author)
      .Bind(2, part)
      .Run();
}

void ScanAuthorPosts(Shard& shard, int64_t max_id, int64_t since_id,
                     const std::function<bool(int64_t msg_id, int64_t author)>& visit) {
  Stmt& s = shard.Query(
      "SELECT msg_id, user_id FROM author_feed INDEXED BY author_feed_by_id "
      "WHERE msg_id < ? AND msg_id > ? AND type IN (0, 2) ORDER BY msg_id DESC");
  s.Bind(1, max_id > 0 ? max_id : std::numeric_limits<int64_t>::max()).Bind(2, since_id);
  while (s.Step())
    if (!visit(s.Int(0), s.Int(1))) break;
  s.Reset();
}

}  // namespace weibo
