// user_info (seed 000 t_user_info), on shard(user_id) = user_id mod N.
//
// Invariants (checked by weibo-fsck): msg_count = live messages the user wrote (originals,
// reposts and comments: seed 000 counts all three); follow_count = user_relation rows of
// type 1 on this shard; fans_count = rows of type 0. Counts change only in the transaction
// that changes the rows they count.
#ifndef WEIBO_TABLES_USER_INFO_H_
#define WEIBO_TABLES_USER_INFO_H_

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace weibo {

class Shard;

struct UserRow {
  int64_t id = 0;
  std::string name;
  int64_t msg_count = 0, fans_count = 0, follow_count = 0;
  int64_t created = 0, last_active = 0;
  bool pulled = false;        // hybrid: has reached the celebrity threshold (pulled for good)
  int64_t lists_touched = 0;  // hybrid: when the user last joined the followees' active lists
};

std::optional<UserRow> GetUser(Shard& shard, int64_t id);
// For those ids that exist on this shard and have fan among their fans (a (id, fan, 0)
// row), by id: rows with only id, fans_count and pulled filled in (what PushesAuthor looks
// at), in one statement for the whole list (json_each over the ids) where GetUser and
// HasRelation per id would be two each.
std::vector<UserRow> GetFanCountsOfFan(Shard& shard, const std::vector<int64_t>& ids, int64_t fan);
// The ids of a JSON array (tables/id_list.h) whose user was not active since `since` (in
// the array's order): each with its user's last_active, nullopt when no such user lives on
// this shard. One statement for the list, returning only those rows: a fan-out's activity
// tiers (flows/fanout.cc) deliver to all the others at once and need no row of theirs.
std::vector<std::pair<int64_t, std::optional<int64_t>>> InactiveSince(Shard& shard,
                                                                      const std::string& ids_json,
                                                                      int64_t since);
// InactiveSince for ids in ascending order, with the same answer, read by one scan of
// user_info's rows between the first id and the last: fewer pages and no seek per id when
// the ids are most of the shard's users in that range (flows/fanout.cc says when).
std::vector<std::pair<int64_t, std::optional<int64_t>>> InactiveSinceSorted(
    Shard& shard, const std::vector<int64_t>& ids, int64_t since);
// An upper bound of the number of users on this shard: ids are handed out in sequence
// (flows/user.cc), so with N shards at most max(user_id) / N + 1 of them land here.
int64_t UsersBound(Shard& shard, int shards);
// INSERT OR IGNORE: applying a user_create job twice is applying it once. The only write
// of a user's name: it tells the shard's row listeners and commit log kUserNameChange
// (keyed by the user), which is what a cache of rows that show the name watches
// (tables/message_cache.h) rather than every change of user_info (a post's count, a
// read's activity).
void InsertUser(Shard& shard, const UserRow& row);
constexpr char kUserNameChange[] = "user_info.user_name";
void AddUserCounts(Shard& shard, int64_t id, int64_t msgs, int64_t fans, int64_t follows);
// Sets pulled once fans_count >= threshold; it is never cleared. True when this call set it.
bool MarkPulledFrom(Shard& shard, int64_t id, int64_t threshold);
// What a home read judges its debts by (flows/timeline.cc, Owed): a user's last_active
// and lists_touched here, and the home timeline's mark in last_seen
// (tables/notification.h). Every write of them tells the shard's row listeners and commit
// log kReaderChange, keyed by the user (0: every user of the shard), so that a server
// keeps them by reader (tables/message_cache.h, "Readers' states") and forgets a reader's
// when they change. Writes made inside a QuietReaderChanges scope name no one (below).
constexpr char kReaderChange[] = "user_info.reader";
void TouchUser(Shard& shard, int64_t id, int64_t now_ms);
void SetListsTouched(Shard& shard, int64_t id, int64_t now_ms);
// Names user (0: all) with kReaderChange, unless a QuietReaderChanges scope is alive on
// this thread.
void ReaderChanged(Shard& shard, int op, int64_t user);
// While one is alive on a thread, the writes of kReaderChange's columns on that thread
// name no reader: a server paying the reads it held (flows/timeline.cc, PayHeldReads)
// has put into its kept states what they write when it held them, and forgets the
// states when the payment fails.
class QuietReaderChanges {
 public:
  QuietReaderChanges();
  ~QuietReaderChanges();
  QuietReaderChanges(const QuietReaderChanges&) = delete;
  QuietReaderChanges& operator=(const QuietReaderChanges&) = delete;

 private:
  bool was_;
};
std::vector<UserRow> ListUsers(Shard& shard);
void SetUserCounts(Shard& shard, int64_t id, int64_t msgs, int64_t fans, int64_t follows);

}  // namespace weibo

#endif  // WEIBO_TABLES_USER_INFO_H_
