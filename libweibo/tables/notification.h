// notification and last_seen (seed 004, SPEC §6): unread counts from one "last seen" id.
//
// notification: the one list of system notifications, for every user, on shard 0; ids
// count up from 1. Sending to every user is this one row, however many users there are.
// last_seen: per user, on the user's shard, the id of the newest item of a list the user
// has seen (kind kSeenNotify: the notifications; kSeenTimeline: the home timeline's red
// dot) and when it was stored (or, once 30 days old, when the expiry pass last found its
// user active: ExpireSeen). No row: the user is new to that list. The rows of users
// inactive for 30 days are dropped (ExpireSeen), so an inactive user costs nothing.
#ifndef WEIBO_TABLES_NOTIFICATION_H_
#define WEIBO_TABLES_NOTIFICATION_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace weibo {

class Shard;

struct NotificationRow {
  int64_t id = 0;
  std::string content;
  int64_t time = 0;
};

// Appends a notification; returns its id (the newest id + 1).
int64_t InsertNotification(Shard& shard, const std::string& content, int64_t time);
// The newest id, 0 when there is none.
int64_t NewestNotification(Shard& shard);
// Up to count notifications older than max_id (0: from the newest), newest first.
std::vector<NotificationRow> NotificationsPage(Shard& shard, int64_t max_id, int64_t count);
// How many notifications have an id above after_id, counting at most limit.
int64_t NotificationsAfter(Shard& shard, int64_t after_id, int64_t limit);

constexpr int kSeenNotify = 0;
constexpr int kSeenTimeline = 1;

struct SeenRow {
  int64_t last_id = 0;
  int64_t time = 0;
};

std::optional<SeenRow> GetSeen(Shard& shard, int64_t user, int kind);
// Stores last_id (never lower than the stored one) and time.
void SetSeen(Shard& shard, int64_t user, int kind, int64_t last_id, int64_t time);
// Whether any row of kind is dated before cutoff (one step of index last_seen_by_time):
// the expiry pass has something to look at.
bool AnySeenStale(Shard& shard, int kind, int64_t cutoff);
// Deletes the rows of kind dated before cutoff whose users have not been active since
// (user_info.last_active), and re-dates the other rows dated before cutoff to their users'
// last activity, so that no pass reads them again until 30 days after it: without that, a
// user who stays active but never reads again would be read by every pass, and a pass (every
// drain of weibod, each second) would cost a scan of such users, a cost that grew with the
// users. A row is so deleted exactly when its user has been inactive since before cutoff
// and it was stored before cutoff. Returns how many it deleted.
int64_t ExpireSeen(Shard& shard, int kind, int64_t cutoff);

}  // namespace weibo

#endif  // WEIBO_TABLES_NOTIFICATION_H_
