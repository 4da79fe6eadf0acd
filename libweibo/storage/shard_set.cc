#include "storage/shard_set.h"

#include <fcntl.h>
#include <sodium.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>

#include "storage/failure.h"
#include "storage/schema.h"

namespace weibo {
namespace {

bool Exists(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0;
}

constexpr int kClusterVersion = 1;  // of cluster.json's format

bool IsPowerOfTwo(int n) { return n >= 1 && n <= kMaxShards && (n & (n - 1)) == 0; }

std::string MetaValue(Shard& shard, const std::string& key) {
  Stmt& s = shard.Query("SELECT value FROM meta WHERE key = ?");
  s.Bind(1, key);
  std::string value = s.Step() ? s.Text(0) : std::string();
  s.Reset();
  return value;
}

// The file's own header must say SQLite and carry our application_id (offset 68, big
// endian). Read from the file, not through SQLite: with a WAL beside it, SQLite would take
// page 1 from the WAL and never notice the file itself was replaced.
bool LooksLikeShard(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  unsigned char header[100];
  if (!in.read(reinterpret_cast<char*>(header), sizeof header)) return false;
  if (std::memcmp(header, "SQLite format 3", 16) != 0) return false;
  uint32_t app = (uint32_t{header[68]} << 24) | (header[69] << 16) | (header[70] << 8) | header[71];
  return app == static_cast<uint32_t>(kApplicationId);
}

bool ValidDurability(const std::string& d) { return d == "full" || d == "normal"; }

Json IndexesJson(const std::vector<IndexSpec>& indexes) {
  Json out = Json::array();
  for (const IndexSpec& index : indexes)
    out.push_back(
        {{"name", index.name}, {"property", index.property}, {"shard_on", index.shard_on}});
  return out;
}

// cluster.json's mtime in nanoseconds plus its size: changes whenever it is rewritten.
int64_t FileStamp(const std::string& path) {
  struct stat st;
  if (stat(path.c_str(), &st) != 0) return 0;
  return static_cast<int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec + st.st_size;
}

Json ReadClusterJson(const std::string& dir) {
  std::ifstream in(dir + "/cluster.json");
  if (!in)
    Fail(Code::kStorageError,
         "no cluster in " + dir + ": cluster.json is missing (run weibo-init)");
  Json j = Json::parse(in, nullptr, false);
  if (j.is_discarded()) Fail(Code::kStorageError, dir + "/cluster.json is not valid JSON");
  return j;
}

}  // namespace

Json ClusterConfig::ToJson() const {
  Json j{{"format", "weibo-cluster"},
         {"version", kClusterVersion},
         {"cluster_id", cluster_id},
         {"shards", shards},
         {"feed", feed},
         {"page_size", page_size},
         {"inbox_cap", inbox_cap},
         {"celebrity_threshold", celebrity_threshold},
         {"active_list", active_list},
         {"tier_fans", tier_fans},
         {"strategy", strategy},
         {"durability", durability},
         {"discover_count", discover_count},
         {"discover_groups", discover_groups},
         {"discover_refresh", discover_refresh},
         {"discover_pool", discover_pool},
         {"name_hash", "blake2b-64 of the UTF-8 name, little-endian, mod shards"}};
  if (!indexes.empty()) j["indexes"] = IndexesJson(indexes);  // weibo-index(1) adds them
  return j;
}

ClusterConfig ClusterConfig::FromJson(const Json& j) {
  ClusterConfig c;
  try {
    if (j.value("format", "") != "weibo-cluster") throw std::runtime_error("not a weibo cluster");
    // A later format may mean something else by the same fields: refuse rather than guess.
    const Json& version = j.at("version");
    if (!version.is_number_integer() || version.get<int64_t>() != kClusterVersion)
      throw std::runtime_error("version " + version.dump() +
                               " is not known to this build (it reads version " +
                               std::to_string(kClusterVersion) + ")");
    c.cluster_id = j.at("cluster_id").get<std::string>();
    c.shards = j.at("shards").get<int>();
    c.feed = j.value("feed", c.feed);
    c.page_size = j.value("page_size", c.page_size);
    c.inbox_cap = j.value("inbox_cap", c.inbox_cap);
    c.celebrity_threshold = j.value("celebrity_threshold", c.celebrity_threshold);
    c.active_list = j.value("active_list", c.active_list);
    c.tier_fans = j.value("tier_fans", c.tier_fans);
    c.strategy = j.value("strategy", c.strategy);
    c.durability = j.value("durability", c.durability);
    c.discover_count = j.value("discover_count", c.discover_count);
    c.discover_groups = j.value("discover_groups", c.discover_groups);
    c.discover_refresh = j.value("discover_refresh", c.discover_refresh);
    c.discover_pool = j.value("discover_pool", c.discover_pool);
    for (const Json& index : j.value("indexes", Json::array()))
      c.indexes.push_back({index.at("name").get<std::string>(),
                           index.at("property").get<std::string>(),
                           index.at("shard_on").get<std::string>()});
  } catch (const std::exception& e) {
    Fail(Code::kStorageError, std::string("cluster.json is invalid: ") + e.what());
  }
  if (!IsPowerOfTwo(c.shards) || c.page_size < 1 || c.inbox_cap < 1 || c.active_list < 1 ||
      c.tier_fans < 1 || !ValidDurability(c.durability))
    Fail(Code::kStorageError,
         "cluster.json is invalid: shards, page_size, inbox_cap, active_list, tier_fans or "
         "durability");
  if (c.discover_count < 1 || c.discover_count > 200 || c.discover_groups < 1 ||
      c.discover_groups > 1000 || c.discover_refresh < 1 || c.discover_pool < 1 ||
      c.discover_pool > 100000)
    Fail(Code::kStorageError,
         "cluster.json is invalid: discover_count (1-200), discover_groups (1-1000), "
         "discover_refresh (from 1 s) or discover_pool (1-100000)");
  return c;
}

void CheckStrategy(const std::string& strategy) {
  if (strategy != "gene" && strategy != "uid-mapping" && strategy != "tid")
    Fail(Code::kInvalidArgument, "--strategy must be gene, uid-mapping or tid");
}

std::string ShardFileName(int index, int count) {
  char buf[32];
  std::snprintf(buf, sizeof buf, count > 100 ? "shard-%03d.db" : "shard-%02d.db", index);
  return buf;
}

std::string SearchFileName(int index, int count) {
  return "search" + ShardFileName(index, count).substr(5);
}

std::string ArchiveFileName(int index, int count) {
  return "archive" + ShardFileName(index, count).substr(5);
}

ShardSet::ShardSet(std::string dir, ExplainLog* explain_log)
    : dir_(std::move(dir)), lock_(ClusterLock::Shared(dir_)), explain_log_(explain_log) {
  if (!Exists(dir_))
    Fail(Code::kStorageError, "data directory " + dir_ + " does not exist (run weibo-init)");
  config_stamp_ = FileStamp(dir_ + "/cluster.json");
  config_ = ClusterConfig::FromJson(ReadClusterJson(dir_));
  mapped_ = config_.strategy == "uid-mapping";
  by_tid_ = config_.strategy == "tid";
  shards_.resize(config_.shards);
  search_.resize(config_.shards);
  archive_.resize(config_.shards);
  // A shard file beyond the configured count means cluster.json and the files disagree.
  if (Exists(dir_ + "/" + ShardFileName(config_.shards, config_.shards * 2)))
    Fail(Code::kStorageError,
         dir_ + " holds more shard files than cluster.json's " + std::to_string(config_.shards));
}

int ShardSet::MappedShardIndex(int64_t msg_id, int by_id) {
  auto known = placed_.find(msg_id);
  if (known != placed_.end()) return known->second;
  // The seed's t_mapping(tid, uid): two columns, keyed by tid, never changed once written
  // (tables/tid_map.h). A miss is not remembered: the row may be on its way (the outbox).
  Stmt& s = At(by_id).Query("SELECT uid FROM tid_map WHERE tid = ?");
  s.Bind(1, msg_id);
  const bool found = s.Step();
  const int index = found ? static_cast<int>(s.Int(0) % count()) : by_id;
  s.Reset();
  if (found) Remember(msg_id, index);
  return index;
}

void ShardSet::Remember(int64_t msg_id, int shard) {
  constexpr size_t kMaxPlaced = 1 << 16;  // a few MB at most; dropped whole when full
  if (placed_.size() >= kMaxPlaced) placed_.clear();
  placed_[msg_id] = shard;
}

std::string ShardSet::ShardPath(int index) const {
  return dir_ + "/" + ShardFileName(index, config_.shards);
}

Shard& ShardSet::At(int index) {
  auto& slot = shards_[index];
  if (!slot) {
    std::string path = ShardPath(index);
    if (!Exists(path))
      Fail(Code::kStorageError, "shard file " + path + " is missing (cluster.json says " +
                                    std::to_string(config_.shards) + " shards)");
    if (!LooksLikeShard(path)) Fail(Code::kStorageError, path + " is corrupt or not a weibo shard");
    auto shard = std::make_unique<Shard>(index, path, false, explain_log_);
    // durability normal: no commit waits for an fsync (weibo(7), "Durability").
    if (config_.durability == "normal") shard->CapSync(Sync::kNormal);
    Migrate(*shard, false);
    if (MetaValue(*shard, "cluster_id") != config_.cluster_id ||
        MetaValue(*shard, "shard_index") != std::to_string(index) ||
        MetaValue(*shard, "shard_count") != std::to_string(config_.shards))
      Fail(Code::kStorageError, path + " belongs to another cluster or shard count");
    slot = std::move(shard);
  }
  return *slot;
}

Shard& ShardSet::SearchAt(int index) {
  auto& slot = search_[index];
  if (!slot) {
    At(index);  // the shard must exist: a search file never stands alone
    auto search = std::make_unique<Shard>(index, dir_ + "/" + SearchFileName(index, config_.shards),
                                          true, explain_log_);
    search->set_label("search");
    if (search->UserVersion() == 0) search->Exec("PRAGMA journal_mode=WAL");
    MigrateSearch(*search);
    slot = std::move(search);
  }
  return *slot;
}

// A new archive file is made whole under another name and renamed into place: a reader
// (which never creates one) sees no file or a complete one, and a kill while it is made
// leaves only the temporary file, made again by the next run.
void MakeArchive(const ClusterConfig& config, int index, const std::string& path) {
  const std::string tmp = path + ".new";
  for (const char* suffix : {"", "-wal", "-shm"}) std::remove((tmp + suffix).c_str());
  {
    Shard made(index, tmp, true, nullptr);
    Migrate(made, true);
    WriteTxn txn(made);
    for (const auto& row : {std::pair<const char*, std::string>{"cluster_id", config.cluster_id},
                            {"shard_index", std::to_string(index)},
                            {"shard_count", std::to_string(config.shards)},
                            {"archive", "1"}})
      made.Query("INSERT INTO meta(key, value) VALUES (?, ?)").BindAll(row.first, row.second).Run();
    txn.Commit();
    made.Checkpoint(0);  // everything in the file itself, its header's application_id too
  }
  for (const char* suffix : {"-wal", "-shm"}) std::remove((tmp + suffix).c_str());
  if (std::rename(tmp.c_str(), path.c_str()) != 0)
    Fail(Code::kStorageError, "cannot create " + path);
}

Shard* ShardSet::ArchiveAt(int index, bool create) {
  auto& slot = archive_[index];
  if (slot) return slot.get();
  const std::string path = dir_ + "/" + ArchiveFileName(index, config_.shards);
  if (!Exists(path)) {
    if (!create) return nullptr;
    At(index);  // an archive never stands alone either
    MakeArchive(config_, index, path);
  }
  if (!LooksLikeShard(path)) Fail(Code::kStorageError, path + " is corrupt or not an archive");
  auto archive = std::make_unique<Shard>(index, path, false, explain_log_);
  archive->set_label("archive");
  if (config_.durability == "normal") archive->CapSync(Sync::kNormal);
  Migrate(*archive, false);
  if (MetaValue(*archive, "cluster_id") != config_.cluster_id ||
      MetaValue(*archive, "shard_index") != std::to_string(index) ||
      MetaValue(*archive, "archive") != "1")
    Fail(Code::kStorageError,
         path + " is not this cluster's archive of shard " + std::to_string(index));
  slot = std::move(archive);
  return slot.get();
}

int64_t ShardSet::ArchivedBelow() {
  if (archive_path_.empty()) archive_path_ = dir_ + "/archive.json";
  const std::string& path = archive_path_;
  const int64_t stamp = FileStamp(path);
  if (stamp != archive_stamp_) {
    archive_stamp_ = stamp;
    archived_below_ = 0;
    std::ifstream in(path);
    Json j = in ? Json::parse(in, nullptr, false) : Json();
    if (j.is_object() && j.value("before_id", Json()).is_string())
      archived_below_ = std::stoll(j.at("before_id").get<std::string>());
  }
  return archived_below_;
}

void ShardSet::RaiseArchivedBelow(int64_t id) {
  // Under an flock: the nodes of a cluster each raise it at the start of their part of a
  // run, and a lower value written over a higher one would hide archived messages.
  const std::string path = dir_ + "/archive.json";
  int lock = OpenPrivate(path + ".lock", O_RDWR);
  if (lock < 0) Fail(Code::kStorageError, "cannot open " + path + ".lock");
  while (flock(lock, LOCK_EX) != 0 && errno == EINTR) {
  }
  archive_stamp_ = -1;  // read it again under the lock
  bool ok = true;
  if (id > ArchivedBelow()) {
    // A temporary file of this process's own, renamed over the file, then synced: the
    // boundary must outlive a power cut once anything below it has moved.
    const std::string tmp = path + "." + std::to_string(getpid());
    ok = WritePrivateFile(tmp, Json{{"before_id", std::to_string(id)}}.dump(2) + "\n") &&
         std::rename(tmp.c_str(), path.c_str()) == 0;
    for (const std::string& synced : {path, dir_}) {
      int fd = ok ? open(synced.c_str(), O_RDONLY | O_CLOEXEC) : -1;
      ok = fd >= 0 && fsync(fd) == 0 && ok;
      if (fd >= 0) close(fd);
    }
    archive_stamp_ = -1;
  }
  close(lock);  // releases the flock
  if (!ok) Fail(Code::kStorageError, "cannot write " + path);
}

int ShardSet::ShardOfName(const std::string& name) const {
  return weibo::ShardOfName(name, config_.shards);
}

int ShardOfName(const std::string& name, int count) {
  unsigned char hash[8];
  crypto_generichash(hash, sizeof hash, reinterpret_cast<const unsigned char*>(name.data()),
                     name.size(), nullptr, 0);
  uint64_t h = 0;
  for (int i = 7; i >= 0; --i) h = (h << 8) | hash[i];
  return static_cast<int>(h % static_cast<uint64_t>(count));
}

const std::vector<IndexSpec>& ShardSet::Indexes() {
  const int64_t stamp = FileStamp(dir_ + "/cluster.json");
  if (stamp != config_stamp_) {
    // Only the indexes are taken: the shard count and the rest never change under a
    // running process.
    config_.indexes = ClusterConfig::FromJson(ReadClusterJson(dir_)).indexes;
    config_stamp_ = stamp;
  }
  return config_.indexes;
}

void ShardSet::WriteIndexes(const std::vector<IndexSpec>& indexes) {
  Json j = ReadClusterJson(dir_);
  j["indexes"] = IndexesJson(indexes);
  const std::string path = dir_ + "/cluster.json";
  if (!WritePrivateFile(path, j.dump(2) + "\n")) Fail(Code::kStorageError, "cannot write " + path);
  config_.indexes = indexes;
  config_stamp_ = FileStamp(path);
}

void ShardSet::CheckpointOpened(int64_t min_wal_bytes) {
  for (auto& shard : shards_)
    if (shard) shard->Checkpoint(min_wal_bytes);
  for (auto& search : search_)
    if (search) search->Checkpoint(min_wal_bytes);
  for (auto& archive : archive_)
    if (archive) archive->Checkpoint(min_wal_bytes);
}

bool ShardSet::CheckpointOneOpened(int64_t min_wal_bytes) {
  for (auto& shard : shards_)
    if (shard && shard->Checkpoint(min_wal_bytes)) return true;
  return false;
}

void ShardSet::Create(const std::string& dir, ClusterConfig config, bool force) {
  if (!IsPowerOfTwo(config.shards))
    Fail(Code::kInvalidArgument, "--shards must be a power of two from 1 to 256");
  if (config.feed != "push" && config.feed != "pull" && config.feed != "hybrid")
    Fail(Code::kInvalidArgument, "--feed must be push, pull or hybrid");
  CheckStrategy(config.strategy);
  if (config.page_size < 1 || config.page_size > kMaxPageSize)
    Fail(Code::kInvalidArgument, "--page-size must be from 1 to 1000");
  if (config.inbox_cap < 1) Fail(Code::kInvalidArgument, "--inbox-cap must be at least 1");
  if (config.celebrity_threshold < 1)
    Fail(Code::kInvalidArgument, "--celebrity-threshold must be at least 1");
  if (config.active_list < 1) Fail(Code::kInvalidArgument, "--active-list must be at least 1");
  if (config.tier_fans < 1) Fail(Code::kInvalidArgument, "--tier-fans must be at least 1");
  if (!ValidDurability(config.durability))
    Fail(Code::kInvalidArgument, "--durability must be full or normal");
  if (!Exists(dir) && !MakePrivateDir(dir))
    Fail(Code::kStorageError, "cannot create data directory " + dir);
  // An existing directory too, as initdb does: it is about to hold every user's messages.
  if (chmod(dir.c_str(), kPrivateDirMode) != 0)
    Fail(Code::kStorageError, "cannot make data directory " + dir + " private (chmod 0700)");
  std::string json_path = dir + "/cluster.json";
  if (Exists(json_path) && !force)
    Fail(Code::kInvalidArgument,
         "a cluster already exists in " + dir + " (use --force to replace it)");
  ClusterLock lock = ClusterLock::Exclusive(dir);  // held until the new cluster is written
  for (const char* name : {"/archive.json", "/archive.json.lock"})
    std::remove((dir + name).c_str());
  // Remove every shard file of the old cluster, whatever its count was.
  for (int i = 0; i < 256; ++i)
    for (int count : {16, 256}) {
      for (const std::string& name :
           {ShardFileName(i, count), SearchFileName(i, count), ArchiveFileName(i, count)}) {
        std::string base = dir + "/" + name;
        for (const char* suffix : {"", "-wal", "-shm", ".ckpt", ".lock", ".new"})
          std::remove((base + suffix).c_str());
      }
    }
  unsigned char id[16];
  randombytes_buf(id, sizeof id);
  char hex[33];
  sodium_bin2hex(hex, sizeof hex, id, sizeof id);
  config.cluster_id = hex;
  for (int i = 0; i < config.shards; ++i) {
    Shard shard(i, dir + "/" + ShardFileName(i, config.shards), true, nullptr);
    Migrate(shard, true);
    WriteTxn txn(shard);
    const std::pair<const char*, std::string> rows[] = {
        {"cluster_id", config.cluster_id},
        {"shard_index", std::to_string(i)},
        {"shard_count", std::to_string(config.shards)},
        {"next_user_id", "1"}};
    for (const auto& row : rows) {
      Stmt& s = shard.Query("INSERT INTO meta(key, value) VALUES (?, ?)");
      s.Bind(1, row.first).Bind(2, row.second).Run();
    }
    txn.Commit();
    shard.Checkpoint(0);  // the file's own header now carries the application_id
    // Its search file, empty: made here so that no reader ever has to create one.
    Shard search(i, dir + "/" + SearchFileName(i, config.shards), true, nullptr);
    search.set_label("search");
    search.Exec("PRAGMA journal_mode=WAL");
    MigrateSearch(search);
    search.Checkpoint(0);
  }
  // cluster.json last: a directory is a cluster only once every shard exists.
  if (!WritePrivateFile(json_path, config.ToJson().dump(2) + "\n"))
    Fail(Code::kStorageError, "cannot write " + json_path);
}

}  // namespace weibo
