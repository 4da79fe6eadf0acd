// msg_index (seed 000 t_uer_msg_index): the home-timeline inbox, on shard(user_id).
//
// One row per (reader, message): the reader's own messages and, in push mode, every
// pushed post of a followee. Keyed (user_id, msg_id): ids sort by time (gene method), so
// the newest-first scan with a msg_id cursor is one index range; the key makes a second
// delivery of the same post a no-op. Rows of deleted messages are never shown (the reader
// resolves each row) and are purged by jobs.
//
// The inbox cap (SPEC §5, default 800): a delivery trims the reader's inbox back to cap
// rows about once in kTrimEvery deliveries (chosen by a hash of reader and message, so
// runs are reproducible), which keeps the cost of counting off the fan-out's hot path: an
// inbox holds at most about cap + kTrimEvery rows. A trim raises the reader's floor in
// inbox_floor; everything at or above the floor is in the inbox, and a timeline page that
// reaches below it is served by pulling (flows/timeline.cc), so nothing disappears.
#ifndef WEIBO_TABLES_MSG_INDEX_H_
#define WEIBO_TABLES_MSG_INDEX_H_

#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace weibo {

class Shard;

struct InboxRow {
  int64_t user_id, msg_id, author_id, time;
};

// What every write of msg_index tells the shard's row listeners and commit log, keyed by
// the reader (0: every reader of the shard), as the update hook never sees the table (it
// is WITHOUT ROWID): a server keeps each reader's newest rows (tables/message_cache.h)
// and forgets a reader's when they change. Deliveries made inside a PatchedDeliveries
// scope name no reader (below).
constexpr char kInboxChange[] = "msg_index.user";

// While one is alive on a thread, DeliverInboxMany and DeliverInboxToFollowers on that
// thread name no reader: a server applying the deliveries it held (jobs.cc,
// ApplyHeldDeliveries and the background applier) adds each one to the inboxes it keeps
// once they are committed, or forgets those inboxes when they fail (GroupCommit::
// inbox_deliveries). Trims and every other write still name their readers.
class PatchedDeliveries {
 public:
  PatchedDeliveries();
  ~PatchedDeliveries();
  PatchedDeliveries(const PatchedDeliveries&) = delete;
  PatchedDeliveries& operator=(const PatchedDeliveries&) = delete;

 private:
  bool was_;
};

void InsertInbox(Shard& shard, const InboxRow& row);
// Inserts only while the reader still follows the author (user_relation type 1, on the
// same shard) and the message is not known deleted (msg_deleted, on the same shard): a
// delivery that races an unfollow, or arrives after the message's purge, adds nothing.
void DeliverInbox(Shard& shard, const InboxRow& row);
// DeliverInbox for every reader in users, in one statement; users_json is the same list as
// the text of a JSON array (tables/id_list.h).
void DeliverInboxMany(Shard& shard, const std::vector<int64_t>& users,
                      const std::string& users_json, int64_t msg_id, int64_t author_id,
                      int64_t time);
// DeliverInboxMany for readers the caller has found following the author, in the same write
// transaction (FollowersBetween): only msg_deleted is checked.
void DeliverInboxToFollowers(Shard& shard, const std::vector<int64_t>& users,
                             const std::string& users_json, int64_t msg_id, int64_t author_id,
                             int64_t time);
void DeleteInbox(Shard& shard, int64_t user, int64_t msg_id);
void DeleteInboxByAuthor(Shard& shard, int64_t user, int64_t author);
// The messages of rows with since_id < msg_id < max_id (0 = unbounded), newest first, at
// most limit, each handed to row(msg_id, author_id) as it is stepped: a home timeline's
// inbox source builds no row and reads no column it does not use.
void ReadInbox(Shard& shard, int64_t user, int64_t max_id, int64_t since_id, int64_t limit,
               const std::function<void(int64_t msg_id, int64_t author_id)>& row);
std::vector<InboxRow> AllInbox(Shard& shard);

constexpr int64_t kTrimEvery = 128;
// Trims user's inbox to its newest cap rows when (user, msg_id) is a trim point.
void MaybeTrimInbox(Shard& shard, int64_t user, int64_t msg_id, int64_t cap);
// What RaiseInboxFloor tells the shard's row listeners and commit log, keyed by the reader,
// besides the update hook's inbox_floor: a server keeps each reader's floor with its lists
// (tables/message_cache.h), and a commit of its background applier (a delivery's trim)
// forgets that reader's only.
constexpr char kInboxFloorChange[] = "inbox_floor.user";
// Raises the user's floor to at least floor.
void RaiseInboxFloor(Shard& shard, int64_t user, int64_t floor);
// The lowest id the inbox is complete from; 0 when it was never trimmed.
int64_t InboxFloor(Shard& shard, int64_t user);
// Every (user, floor) of the shard.
std::vector<std::pair<int64_t, int64_t>> AllInboxFloors(Shard& shard);

}  // namespace weibo

#endif  // WEIBO_TABLES_MSG_INDEX_H_
