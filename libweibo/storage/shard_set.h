// ShardSet: a data directory — cluster.json plus one SQLite file per shard — and routing.
//
// Routing (SPEC §2): a user's rows live on shard(u) = u mod N; a user name lives on
// BLAKE2b-64(name) mod N. Where a message lives depends on the strategy (seed 003) and is
// asked of one place, the placement functions (MsgShardIndex and its kin below): under gene
// a message id carries its author's low 8 bits, so shard(msg) = msg mod N = its author's
// for every N that divides 256; under uid-mapping it is its author's shard, found through
// tid_map; under tid it is msg mod N of a plain id, whoever wrote it.
#ifndef WEIBO_STORAGE_SHARD_SET_H_
#define WEIBO_STORAGE_SHARD_SET_H_

#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
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
  int64_t active_list = 10000;          // hybrid: length of each author's active-fan LRU list
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
  // in one place:
  //   gene         msg mod N, from the id alone (the gene is the author's low 8 bits: the
  //                author's shard too). No lookup: as cheap as the modulo it is.
  //   uid-mapping  the author's shard, found by one lookup of tid_map (tid -> uid) on the
  //                mapping's shard, tid mod N (TidMapShardIndex); a message whose mapping
  //                row is not there (yet: it travels through the outbox) is on no shard,
  //                and its mapping's shard is answered, where it is not found.
  //   tid          msg mod N of a plain id (storage/gene_id.h), from the id alone like
  //                gene's, but not its author's shard: the author's side of a message
  //                (author_feed, msg_count, the own inbox row, the fan-out) stays on the
  //                author's shard, and the two travel through the outbox
  //                (flows/message_write.cc).
  int MsgShardIndex(int64_t msg_id) {
    const int by_id = static_cast<int>(msg_id % count());
    return mapped_ ? MappedShardIndex(msg_id, by_id) : by_id;
  }
  Shard& ForMsg(int64_t msg_id) { return At(MsgShardIndex(msg_id)); }
  // The archive of the message's shard, or nullptr when that shard has none (ArchiveAt).
  Shard* ArchiveForMsg(int64_t msg_id) { return ArchiveAt(MsgShardIndex(msg_id)); }
  // The one shard holding every message author writes (an author's list, search by
  // --author): the author's shard under gene and uid-mapping; -1 under tid, where they
  // are scattered over every shard.
  int AuthorMsgShardIndex(int64_t author) const {
    return by_tid_ ? -1 : static_cast<int>(author % count());
  }
  // Whether a message's own rows are on its author's shard (gene, uid-mapping), so that
  // one transaction writes both sides of it; not under tid.
  bool AuthorHoldsMsgs() const { return !by_tid_; }
  // The shard of a message's author's side (author_feed, the author's counts and own
  // inbox row): the author's shard under every strategy.
  int AuthorShardIndex(int64_t author) const { return static_cast<int>(author % count()); }
  // uid-mapping: a placement the caller knows without the lookup — a timeline's row names
  // its message's author (inbox, author outbox), as the seed's reads by uid do. Kept, with
  // the lookups' answers, in a bounded cache MsgShardIndex reads first: a mapping never
  // changes once written (seed 003: such a cache's hit rate is very high). Nothing under
  // gene.
  void KnowAuthor(int64_t msg_id, int64_t author) {
    if (mapped_) Remember(msg_id, MsgShardIndexOf(msg_id, author));
  }
  // MsgShardIndex of a message whose author the caller knows (weibo-fsck's snapshot):
  // never a lookup, whatever tid_map holds.
  int MsgShardIndexOf(int64_t msg_id, int64_t author) const {
    return static_cast<int>((mapped_ ? author : msg_id) % count());
  }
  // uid-mapping: whether messages are placed through tid_map, and the shard of tid's row.
  bool UsesTidMap() const { return mapped_; }
  int TidMapShardIndex(int64_t msg_id) const { return static_cast<int>(msg_id % count()); }
  // Whether message ids carry the author's gene (NextMsgId, storage/gene_id.h).
  bool GeneIds() const { return !mapped_ && !by_tid_; }
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
  // Checkpoints every opened shard whose WAL has grown past min_wal_bytes (without it,
  // CheckpointWalBytes of the shard count, weibo/storage.h: after each write). Past one byte
  // the WAL keeps its length and is written over from the start; 0 or 1 truncates it
  // (Shard::Checkpoint).
  void CheckpointOpened() { CheckpointOpened(CheckpointWalBytes(count())); }
  void CheckpointOpened(int64_t min_wal_bytes);
  // The same for the first opened shard (not search, not archive) that has grown past
  // min_wal_bytes and is checkpointed whole; whether there was one. A server's idle step.
  bool CheckpointOneOpened(int64_t min_wal_bytes);

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
  // uid-mapping's lookup: tid_map on shard by_id, the author's shard or by_id when none.
  int MappedShardIndex(int64_t msg_id, int by_id);
  void Remember(int64_t msg_id, int shard);
  std::string dir_;
  ClusterLock lock_;  // shared, from before cluster.json is read until the shards close
  ClusterConfig config_;
  int64_t config_stamp_ = 0;  // cluster.json's mtime (ns) and size when config_ was read
  std::vector<std::unique_ptr<Shard>> shards_;
  std::vector<std::unique_ptr<Shard>> search_;   // SearchAt's, opened when first asked for
  std::vector<std::unique_ptr<Shard>> archive_;  // ArchiveAt's
  std::string archive_path_;    // dir_/archive.json, made once: ArchivedBelow runs at each read
  int64_t archive_stamp_ = -1;  // archive.json's FileStamp when read
  int64_t archived_below_ = 0;
  ExplainLog* explain_log_;
  bool mapped_ = false;                      // strategy uid-mapping
  bool by_tid_ = false;                      // strategy tid
  std::unordered_map<int64_t, int> placed_;  // uid-mapping: msg id -> shard, known or looked up
};

// --strategy's check (weibo-init, weibo-explain): Failure(invalid_argument) for a name
// other than gene, uid-mapping and tid, and for tid, which this build does not place by yet.
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
