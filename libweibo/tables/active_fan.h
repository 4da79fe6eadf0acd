// active_fan and active_on (SPEC §5 hybrid, seed 004): who a pushed author pushes to.
//
// active_fan, on the author's shard: a fixed-length LRU list of the author's active
// followers. touched is a per-author sequence (max + 1 on every touch), so the order is
// exact even on a fixed clock; when the list is longer than its length the entry with the
// smallest touched leaves it. Only fans are listed: fan_remove takes the entry away.
//
// active_on, on the reader's shard: the authors whose list holds the reader, with the
// sequence of the entry (since). The join that puts a reader on a list also copies the
// author's newest posts into the reader's inbox and then writes active_on, in one
// transaction on the reader's shard (flows/active.cc); an eviction sends a drop that
// removes it unless a newer join has been recorded. A followee the reader is not "active on"
// is pulled at read time (flows/timeline.cc), so the inbox only needs to hold the posts of
// authors the reader is active on.
#ifndef WEIBO_TABLES_ACTIVE_FAN_H_
#define WEIBO_TABLES_ACTIVE_FAN_H_

#include <cstdint>
#include <utility>
#include <vector>

namespace weibo {

class Shard;

struct ActiveEntry {
  int64_t fan = 0, touched = 0;
};

// Moves fan to the head of author's list (inserting it); returns its new sequence and fills
// evicted with the entries pushed out by the list's length. *was_listed, when given, says
// whether fan was on the list already (moved, not inserted). fans, when known (>= 0), is
// the author's fan count: only fans are listed, so a list of length >= fans pushes no one
// out, and the entries beyond the length are not even looked for.
int64_t TouchActiveFan(Shard& shard, int64_t author, int64_t fan, int64_t length,
                       std::vector<ActiveEntry>* evicted, bool* was_listed = nullptr,
                       int64_t fans = -1);
void RemoveActiveFan(Shard& shard, int64_t author, int64_t fan);
// The listed fans, ascending by id.
std::vector<int64_t> ActiveFans(Shard& shard, int64_t author);
// Empties author's list and returns what it held.
std::vector<ActiveEntry> TakeActiveFans(Shard& shard, int64_t author);

// What SetActiveOn and DropActiveOn tell the shard's row listeners and commit log, keyed by
// the user: a server's cache of readers' lists (tables/message_cache.h). active_on is
// WITHOUT ROWID, which SQLite's update hook never reports.
constexpr char kActiveOnChange[] = "active_on";
void SetActiveOn(Shard& shard, int64_t user, int64_t author, int64_t since);
// Removes the row unless it records a join newer than upto (0: whatever it records).
void DropActiveOn(Shard& shard, int64_t user, int64_t author, int64_t upto);
// The authors whose active list holds user (active_on), ascending.
std::vector<int64_t> ActiveAuthors(Shard& shard, int64_t user);
bool IsActiveOn(Shard& shard, int64_t user, int64_t author);
// Every (user, author) of the shard.
std::vector<std::pair<int64_t, int64_t>> AllActiveOn(Shard& shard);

}  // namespace weibo

#endif  // WEIBO_TABLES_ACTIVE_FAN_H_
