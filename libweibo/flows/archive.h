// The archive (seed 000, weibo-archive(1)): what the other flows need of it.
//
// weibo-archive moves the rows of old messages out of shard NN into archive-NN.db (the
// same schema, storage/shard_set.h ArchiveAt). A message is live while its msg_info row
// is in its shard, archived once it is only in the archive; the move copies into the
// archive first and deletes from the shard second, so in between a message is in both
// and still live. Every read therefore looks at the shard first and at the archive only
// for what the shard does not have (and a list merges both by id, the shard's row
// winning): a reader never misses a message and never sees it twice.
#ifndef WEIBO_FLOWS_ARCHIVE_H_
#define WEIBO_FLOWS_ARCHIVE_H_

#include <cstdint>
#include <optional>

#include "jobs/context.h"
#include "tables/msg_counter.h"
#include "tables/msg_info.h"

namespace weibo {

struct RefAddJob;
struct RefRemoveJob;

// The archive of msg_id's shard, or nullptr when that shard has none.
Shard* ArchiveOfMsg(Context& ctx, int64_t msg_id);
// An archived message's row and counters: none when it is live or nowhere.
std::optional<MsgRow> ArchivedMsg(Context& ctx, int64_t msg_id);
std::optional<CounterRow> ArchivedCounter(Context& ctx, int64_t msg_id);

// A ref_add or ref_remove job whose referenced message is not live on target: when the
// message is archived (its counter row is in the archive), applies the job to the archive
// in a transaction of its own and returns true; false when the message is not archived
// either (deleted), for the caller to go on as before. Idempotent, keyed by the relation
// row as on a shard: a crash after the archive's commit and before the job's done mark
// applies nothing the second time. A comment or repost can reach an archived message this
// way only when it was written while the message was being archived (the write itself
// refuses archived messages: Context::MsgGone).
bool ApplyRefAddToArchive(Context& ctx, Shard& target, const RefAddJob& p);
bool ApplyRefRemoveToArchive(Context& ctx, Shard& target, const RefRemoveJob& p);

// What one shard's archive run moved (weibo-archive's result, summed over shards).
struct ArchiveMoved {
  int64_t messages = 0, relations = 0, inbox = 0, batches = 0;
};
// Moves every row of shard index older than before_id (an id: every id below it) into the
// shard's archive, batch messages (and then batch readers' inboxes) a transaction;
// resumable: rows already moved are not there to move again. The caller holds the shard's
// archive lock (ArchiveLock). weibo-fsck --repair calls it to finish an interrupted run.
ArchiveMoved ArchiveShard(Context& ctx, int index, int64_t before_id, int64_t batch);

// The flock on DATA/archive-NN.db.lock that one archive run (or fsck's repair) holds
// while it moves shard NN's rows; taken without waiting.
class ArchiveLock {
 public:
  // nullopt when another process holds it.
  static std::optional<ArchiveLock> TryTake(Context& ctx, int index);
  ArchiveLock(ArchiveLock&& other) noexcept : fd_(other.fd_) { other.fd_ = -1; }
  ArchiveLock& operator=(ArchiveLock&&) = delete;
  ~ArchiveLock();

 private:
  explicit ArchiveLock(int fd) : fd_(fd) {}
  int fd_;
};

}  // namespace weibo

#endif  // WEIBO_FLOWS_ARCHIVE_H_
