// user_relation (seed 000 t_user_relation, merged storage of the 5-25 update).
//
// A follow A -> B is two rows: (A, B, type 1) on shard(A) — "A follows B" — and
// (B, A, type 0) on shard(B) — "A is a fan of B". The first is written by the follow flow,
// the second by the fan_add job it enqueues, so both exist once the job is done. The key
// is (user_id, type, follow_id): one range scan lists a user's followees or fans.
#ifndef WEIBO_TABLES_USER_RELATION_H_
#define WEIBO_TABLES_USER_RELATION_H_

#include <cstdint>
#include <string>
#include <vector>

namespace weibo {

class Shard;

constexpr int kFan = 0;
constexpr int kFollowing = 1;
// What InsertRelation and DeleteRelation tell the shard's row listeners and commit log for a
// change of a user's followees (type kFollowing), keyed by the user: a server's cache of
// readers' lists (tables/message_cache.h). user_relation is WITHOUT ROWID, which SQLite's
// update hook never reports.
constexpr char kFollowingChange[] = "user_relation.following";

bool HasRelation(Shard& shard, int64_t user, int64_t other, int type);
// True when the row was inserted (false: it was already there).
bool InsertRelation(Shard& shard, int64_t user, int64_t other, int type, int64_t time);
// True when a row was deleted.
bool DeleteRelation(Shard& shard, int64_t user, int64_t other, int type);
// follow_id of every row (user, type, *), ascending.
std::vector<int64_t> Related(Shard& shard, int64_t user, int type);
// Of the users in a JSON array, the fans of author while its message msg_id still exists
// on this, the author's shard: its msg_info row, or (by_feed: strategy tid, where the
// message's own rows are elsewhere) its author_feed row; none once it is deleted. One
// statement.
std::vector<int64_t> FansWhileMsg(Shard& shard, int64_t author, int64_t msg_id,
                                  const std::string& users_json, bool by_feed = false);

// The users between lo and hi (inclusive) who follow `followee` (type 1 rows on this, their
// shard), ascending: one range scan of user_relation_followers, whatever the number.
std::vector<int64_t> FollowersBetween(Shard& shard, int64_t followee, int64_t lo, int64_t hi);

struct RelationRow {
  int64_t user, other, type, time;
};
std::vector<RelationRow> AllRelations(Shard& shard);

}  // namespace weibo

#endif  // WEIBO_TABLES_USER_RELATION_H_
