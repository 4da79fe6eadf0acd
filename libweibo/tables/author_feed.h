// author_feed and author_part (SPEC §5 pull): each author's outbox, time-partitioned, on
// shard(author).
//
// One author_feed row per live message (all types, so the author's own timeline can read
// comments too), keyed (user_id, part, msg_id) where part is the week of the id's
// millisecond field since the id epoch (msg_id >> 22 is milliseconds since 2020-01-01, so a
// partition is an id range: [PartStart(p), PartStart(p + 1))). author_part holds one row
// per (author, partition) that ever held a message: a merge asks it which weeks to read
// and never touches an empty one; a row stays after its messages are deleted (it only costs
// one empty read). Both change in the transaction that writes or deletes the message.
//
// Index author_feed_by_id (msg_id, type) (schema migration 7) orders a shard's rows of all
// authors by id alone, so the newest rows of a partition, whoever wrote them, are one range
// (the index entry also holds user_id, from the primary key): a reader who follows many of
// a shard's authors reads that range and keeps the followees' rows rather than seeking
// each followee's partition (ScanAuthorPosts; flows/timeline.cc).
#ifndef WEIBO_TABLES_AUTHOR_FEED_H_
#define WEIBO_TABLES_AUTHOR_FEED_H_

#include <cstdint>
#include <functional>
#include <limits>
#include <utility>
#include <vector>

#include "storage/gene_id.h"

namespace weibo {

class Shard;

constexpr int64_t kPartitionMs = kGeneWeekMs;  // one week per partition
// Partitions that begin inside the id range; the last, 3635, is cut short by its end
// (2089-09-06), so the id that would start partition 3636 does not fit in 63 bits.
constexpr int64_t kPartCount = ((int64_t{1} << 41) + kPartitionMs - 1) / kPartitionMs;

inline int64_t PartOf(int64_t msg_id) { return (msg_id >> 22) / kPartitionMs; }
// The lowest id of partition part; saturates: 0 below the range, INT64_MAX above it.
inline int64_t PartStart(int64_t part) {
  if (part <= 0) return 0;
  if (part >= kPartCount) return std::numeric_limits<int64_t>::max();
  return (part * kPartitionMs) << 22;
}
// The highest id of partition part, PartStart(part + 1) - 1, the last partition's being
// the highest id there is (INT64_MAX).
inline int64_t PartEnd(int64_t part) {
  return part >= kPartCount - 1 ? std::numeric_limits<int64_t>::max() : PartStart(part + 1) - 1;
}

void InsertAuthorFeed(Shard& shard, int64_t author, int64_t msg_id, int type);
// True when a row was deleted.
bool DeleteAuthorFeed(Shard& shard, int64_t author, int64_t msg_id);
// Tells the connection's row listeners that rows of author (0: of every author) were
// deleted by the caller's own SQL (flows/archive.cc moves them to the archive), as
// InsertAuthorFeed and DeleteAuthorFeed do for theirs.
void NoteAuthorFeedMoved(Shard& shard, int64_t author);
bool HasAuthorFeed(Shard& shard, int64_t author, int64_t msg_id);
// Every row of the shard as (author, msg_id) (weibo-fsck under strategy tid).
std::vector<std::pair<int64_t, int64_t>> AllAuthorFeed(Shard& shard);
// The author's partitions at or below part, newest first, at most limit.
std::vector<int64_t> AuthorParts(Shard& shard, int64_t author, int64_t part, int64_t limit);
// Ids of one partition, newest first, within since_id < id < max_id (max_id 0: unbounded);
// posts_only: originals and reposts (what followers see), else every type.
std::vector<int64_t> ReadAuthorPart(Shard& shard, int64_t author, int64_t part, bool posts_only,
                                    int64_t max_id, int64_t since_id, int64_t limit);

// (author, part) rows of author_part above part that hold no message (weibo-fsck's clock
// check: partitions in the future left by a clock moved forward), and their removal.
std::vector<std::pair<int64_t, int64_t>> EmptyPartsAbove(Shard& shard, int64_t part);
void DeleteAuthorPart(Shard& shard, int64_t author, int64_t part);

// Originals and reposts of every author on the shard, newest first, within since_id < id <
// max_id (max_id 0: unbounded): one range of index author_feed_by_id (msg_id, type).
// visit(msg_id, author) is called for each row until it returns false; the statement is
// reset before returning, so no read lock outlives the call.
void ScanAuthorPosts(Shard& shard, int64_t max_id, int64_t since_id,
                     const std::function<bool(int64_t msg_id, int64_t author)>& visit);

}  // namespace weibo

#endif  // WEIBO_TABLES_AUTHOR_FEED_H_
