// ShardSet: a data directory — cluster.json plus one SQLite file per shard — and routing.
//
// Routing never needs a lookup table (SPEC §2): a user's rows live on shard(u) = u mod N;
// a message id carries its author's low 8 bits (the gene), so shard(msg) = msg mod N for
// every N that divides 256; a user name lives on BLAKE2b-64(name) mod N. Where a message
// lives is asked of one place, the placement functions (MsgShardIndex and its kin below).
#ifndef WEIBO_STORAGE_SHARD_SET_H_
#define WEIBO_STORAGE_SHARD_SET_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "storage/files.h"
#include "storage/shard.h"
#include "weibo/storage.h"

namespace weibo {

constexpr int kMaxShards = 256;     // a power of two from 1 to this
constexpr int kMaxPageSize = 1000;  // comments and reposts per fixed page, from 1

// A declared index of the entity store (flows/entities.h): the table index_<name> of
// (value, entity_id) rows, one per entity whose body has `property`, on the shard that the
// entity's `shard_on` property names.
struct IndexSpec {
  std::string name;
  std::string property;
  std::string shard_on;
};

struct ClusterConfig {
  int shards = 16;                      // power of two, 1..256
  std::string feed = "hybrid";          // push | pull | hybrid
  int page_size = 20;                   // comments/reposts per fixed page
  int inbox_cap = 800;                  // push inbox rows kept per user
  int64_t celebrity_threshold = 10000;  // hybrid: fans_count from which authors are pulled
  int64_t active_list = 1000;           // hybrid: length of each author's active-fan LRU list
  int64_t tier_fans = 1000;             // push: fans_count from which delivery is tiered
  std::string strategy = "gene";        // gene | uid-mapping | tid
  std::string durability = "full";      // full | normal: how a commit reaches the disk
  std::string cluster_id;               // random, written into every shard's meta
  // weibo-discover(1), seed 001's random-posts cache: discover_groups groups (N) of
  // discover_count posts (n) each, drawn from the discover_pool newest originals, drawn
  // anew every discover_refresh seconds (t).
  int discover_count = 10;
  int discover_groups = 8;
  int64_t discover_refresh = 300;
  int discover_pool = 500;
  std::vector<IndexSpec> indexes;  // weibo-index(1): none at first

  Json ToJson() const;
  static ClusterConfig FromJson(const Json& j);  // throws Failure(storage_error)
};

class ShardSet {
 public:
  // Opens an initialised data directory and holds its shared ClusterLock (storage/files.h)
  // while it lives; Failure(storage_error) when it is missing, not initialised, of a
  // cluster.json version this build does not know, or a shard is missing, foreign, corrupt
  // or from another cluster.
  ShardSet(std::string dir, ExplainLog* explain_log);
  // Writes cluster.json and N fresh shards, the directory 0700 and every file 0600.
  // Refuses an existing cluster unless force, and (storage_error) any cluster a running
  // process holds open (ClusterLock::Exclusive).
  static void Create(const std::string& dir, ClusterConfig config, bool force);

  const ClusterConfig& config() const { return config_; }
  const std::string& dir() const { return dir_; }
  int count() const { return config_.shards; }
  Shard& At(int index);
  Shard& ForUser(int64_t user_id) { return At(static_cast<int>(user_id % count())); }
  // Placement (SPEC §2, seed 003): the shard holding a message's own rows — msg_info,
  // msg_counter, the relation rows of its comments and reposts, its entity, its search and
  // archive rows. Every caller asks here, never msg mod N itself, so the strategy decides
  // in one place. Under gene the id alone says it (the gene is the author's low 8 bits: the
  // author's shard too), with no lookup: this must stay as cheap as the modulo it is.
  int MsgShardIndex(int64_t msg_id) const { return static_cast<int>(msg_id % count()); }
  Shard& ForMsg(int64_t msg_id) { return At(MsgShardIndex(msg_id)); }
  // The archive of the message's shard, or nullptr when that shard has none (ArchiveAt).
  Shard* ArchiveForMsg(int64_t msg_id) { return ArchiveAt(MsgShardIndex(msg_id)); }
  // The one shard holding every message author writes (an author's list, search by
  // --author): under gene the author's shard.
  int AuthorMsgShardIndex(int64_t author) const { return static_cast<int>(author % count()); }
  int ShardOfName(const std::string& name) const;
  // The search file of shard index (search-NN.db, SPEC §7): derived data fed by the outbox
  // (flows/search.cc), created empty at its first use — a cluster made by an older build
  // gets its index from weibo-search --rebuild or weibo-fsck --repair.
  Shard& SearchAt(int index);
  // The declared indexes as cluster.json has them now: read again when the file changed
  // since (weibo-index(1) rewrites it while daemons run), else the ones already read.
  const std::vector<IndexSpec>& Indexes();
  // Replaces cluster.json's indexes (atomically: a temporary file renamed over it).
  void WriteIndexes(const std::vector<IndexSpec>& indexes);
  // Checkpoints every opened shard whose WAL has grown past min_wal_bytes (by default a few
  // megabytes: after each write), truncating the WAL.
  void CheckpointOpened(int64_t min_wal_bytes = 4 << 20);

  // The archive (weibo-archive(1), seed 000): archive-NN.db beside shard NN, the same
  // schema, holding the rows weibo-archive moved out of the shard. nullptr when shard NN
  // has none yet (only create makes one): a reader asks again on its next call, so a
  // daemon finds the file an archive run made after it started.
  Shard* ArchiveAt(int index, bool create = false);
  // Every id below this one may be archived; ids at or above it are always live. 0: no
  // archive. Kept in DATA/archive.json, read again when the file changed.
  int64_t ArchivedBelow();
  // Raises ArchivedBelow to id (never lowers it): written before anything is moved.
  void RaiseArchivedBelow(int64_t id);
  // Where the shards log their statements (--explain), or nullptr.
  ExplainLog* explain_log() const { return explain_log_; }

 private:
  std::string ShardPath(int index) const;
  std::string dir_;
  ClusterLock lock_;  // shared, from before cluster.json is read until the shards close
  ClusterConfig config_;
  int64_t config_stamp_ = 0;  // cluster.json's mtime (ns) and size when config_ was read
  std::vector<std::unique_ptr<Shard>> shards_;
  std::vector<std::unique_ptr<Shard>> search_;   // SearchAt's, opened when first asked for
  std::vector<std::unique_ptr<Shard>> archive_;  // ArchiveAt's
  int64_t archive_stamp_ = -1;                   // archive.json's FileStamp when read
  int64_t archived_below_ = 0;
  ExplainLog* explain_log_;
};

// --strategy's check (weibo-init, weibo-explain): Failure(invalid_argument) for a name
// other than gene, uid-mapping and tid, and for the two this build does not route by yet.
void CheckStrategy(const std::string& strategy);

std::string ShardFileName(int index, int count);
// search-NN.db, numbered as ShardFileName numbers the shards.
std::string SearchFileName(int index, int count);
// archive-NN.db, likewise.
std::string ArchiveFileName(int index, int count);
// The shard of a user name among count shards: BLAKE2b-64(name) mod count (the cluster's
// broker routes by it without opening any shard).
int ShardOfName(const std::string& name, int count);

}  // namespace weibo

#endif  // WEIBO_STORAGE_SHARD_SET_H_
