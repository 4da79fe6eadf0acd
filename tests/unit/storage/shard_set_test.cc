// storage/shard_set.cc: a data directory (cluster.json + one file per shard), routing, and
// every way opening one can fail (SPEC §2, §10 storage_error).
#include "storage/shard_set.h"

#include <sys/stat.h>

#include <set>

#include "test_support.h"

namespace weibo {
namespace {

using test::Cluster;
using test::FailureCode;
using test::RawDb;
using test::TempDir;

ClusterConfig Config(int shards, std::string feed = "hybrid") {
  ClusterConfig c;
  c.shards = shards;
  c.feed = std::move(feed);
  return c;
}

Json ReadJson(const std::string& path) {
  std::ifstream in(path);
  return Json::parse(in);
}

TEST_CASE("ShardFileName: two digits, three from 128 shards up") {
  REQUIRE(ShardFileName(0, 16) == "shard-00.db");
  REQUIRE(ShardFileName(15, 16) == "shard-15.db");
  REQUIRE(ShardFileName(3, 1) == "shard-03.db");
  REQUIRE(ShardFileName(3, 256) == "shard-003.db");
  REQUIRE(ShardFileName(255, 256) == "shard-255.db");
}

TEST_CASE("ShardSet::Create writes cluster.json and one file per shard") {
  TempDir dir;
  ClusterConfig c = Config(16, "pull");
  c.page_size = 7;
  ShardSet::Create(dir.path(), c, false);
  Json j = ReadJson(dir.Join("cluster.json"));
  REQUIRE(j.at("format") == "weibo-cluster");
  REQUIRE(j.at("shards") == 16);
  REQUIRE(j.at("feed") == "pull");
  REQUIRE(j.at("page_size") == 7);
  REQUIRE(j.at("inbox_cap") == 800);
  REQUIRE(j.at("celebrity_threshold") == 10000);
  REQUIRE(j.at("strategy") == "gene");
  REQUIRE(j.at("cluster_id").get<std::string>().size() == 32);
  for (int i = 0; i < 16; ++i) REQUIRE(std::filesystem::exists(dir.Join(ShardFileName(i, 16))));
  REQUIRE_FALSE(std::filesystem::exists(dir.Join("shard-16.db")));
  REQUIRE_FALSE(std::filesystem::exists(dir.Join("cluster.json.tmp")));

  ShardSet set(dir.path(), nullptr);
  REQUIRE(set.count() == 16);
  REQUIRE(set.config().feed == "pull");
  REQUIRE(set.config().page_size == 7);
  REQUIRE(set.config().cluster_id == j.at("cluster_id").get<std::string>());
  REQUIRE(set.At(5).index() == 5);
  REQUIRE(set.At(5).name() == "shard-05");
}

TEST_CASE("ShardSet::Create creates the data directory when it does not exist") {
  TempDir dir;
  std::string data = dir.Join("new-data");
  ShardSet::Create(data, Config(2), false);
  REQUIRE(std::filesystem::exists(data + "/cluster.json"));
  REQUIRE(ShardSet(data, nullptr).count() == 2);
}

TEST_CASE("ShardSet::Create refuses bad shard counts, feeds, strategies and page sizes") {
  TempDir dir;
  for (int n : {0, 3, 12, 512, -4}) {
    INFO(n);
    REQUIRE(FailureCode([&] { ShardSet::Create(dir.path(), Config(n), false); }) ==
            Code::kInvalidArgument);
  }
  REQUIRE(FailureCode([&] { ShardSet::Create(dir.path(), Config(4, "fanout"), false); }) ==
          Code::kInvalidArgument);
  ClusterConfig bad_strategy = Config(4);
  bad_strategy.strategy = "hash";
  REQUIRE(FailureCode([&] { ShardSet::Create(dir.path(), bad_strategy, false); }) ==
          Code::kInvalidArgument);
  bad_strategy.strategy = "";
  REQUIRE(FailureCode([&] { ShardSet::Create(dir.path(), bad_strategy, false); }) ==
          Code::kInvalidArgument);
  for (int page : {0, 1001}) {
    ClusterConfig c = Config(4);
    c.page_size = page;
    REQUIRE(FailureCode([&] { ShardSet::Create(dir.path(), c, false); }) == Code::kInvalidArgument);
  }
  REQUIRE_FALSE(std::filesystem::exists(dir.Join("cluster.json")));
}

TEST_CASE("ShardSet::Create over an existing cluster: refused without force, replaced with it") {
  TempDir dir;
  ShardSet::Create(dir.path(), Config(4), false);
  std::string first_id = ReadJson(dir.Join("cluster.json")).at("cluster_id");
  REQUIRE(FailureCode([&] { ShardSet::Create(dir.path(), Config(4), false); }) ==
          Code::kInvalidArgument);
  REQUIRE(ReadJson(dir.Join("cluster.json")).at("cluster_id") == first_id);
  {
    ShardSet set(dir.path(), nullptr);
    set.At(3);
  }

  ShardSet::Create(dir.path(), Config(2), true);
  Json j = ReadJson(dir.Join("cluster.json"));
  REQUIRE(j.at("cluster_id") != first_id);
  REQUIRE(j.at("shards") == 2);
  // The old cluster's extra shard files are gone, so the new one opens cleanly.
  REQUIRE_FALSE(std::filesystem::exists(dir.Join("shard-03.db")));
  ShardSet set(dir.path(), nullptr);
  set.At(0);
  set.At(1);
}

TEST_CASE("ShardSet: opening a missing directory or a directory without cluster.json fails") {
  TempDir dir;
  REQUIRE(FailureCode([&] { ShardSet(dir.Join("nope"), nullptr); }) == Code::kStorageError);
  REQUIRE(FailureCode([&] { ShardSet(dir.path(), nullptr); }) == Code::kStorageError);
  std::ofstream(dir.Join("cluster.json")) << "{not json";
  REQUIRE(FailureCode([&] { ShardSet(dir.path(), nullptr); }) == Code::kStorageError);
  std::ofstream(dir.Join("cluster.json")) << R"({"format":"something-else","shards":4})";
  REQUIRE(FailureCode([&] { ShardSet(dir.path(), nullptr); }) == Code::kStorageError);
}

TEST_CASE("ShardSet: an invalid cluster.json (shards, page_size) is a storage error") {
  TempDir dir;
  ShardSet::Create(dir.path(), Config(4), false);
  Json j = ReadJson(dir.Join("cluster.json"));
  for (auto edit : std::vector<std::pair<const char*, int>>{
           {"shards", 3}, {"page_size", 0}, {"inbox_cap", 0}}) {
    Json bad = j;
    bad[edit.first] = edit.second;
    std::ofstream(dir.Join("cluster.json")) << bad.dump();
    INFO(edit.first);
    REQUIRE(FailureCode([&] { ShardSet(dir.path(), nullptr); }) == Code::kStorageError);
  }
}

// PRAGMA synchronous inside a write transaction of shard 0 asking for sync.
int64_t SyncInWrite(const std::string& dir, Sync sync) {
  ShardSet set(dir, nullptr);
  Shard& shard = set.At(0);
  WriteTxn txn(shard, sync);
  int64_t level = shard.Query("PRAGMA synchronous").IntOr(-1);
  txn.Commit();
  return level;
}

TEST_CASE("ShardSet: durability full commits with synchronous=FULL, normal never above NORMAL") {
  TempDir full, normal;
  ShardSet::Create(full.path(), Config(2), false);
  ClusterConfig c = Config(2);
  c.durability = "normal";
  ShardSet::Create(normal.path(), c, false);
  REQUIRE(ReadJson(full.Join("cluster.json")).at("durability") == "full");
  REQUIRE(ReadJson(normal.Join("cluster.json")).at("durability") == "normal");
  REQUIRE(SyncInWrite(full.path(), Sync::kFull) == 2);
  REQUIRE(SyncInWrite(full.path(), Sync::kNormal) == 1);
  REQUIRE(SyncInWrite(normal.path(), Sync::kFull) == 1);
  REQUIRE(SyncInWrite(normal.path(), Sync::kNormal) == 1);
  // A cluster.json of before the key is full; an unknown value is refused.
  Json j = ReadJson(full.Join("cluster.json"));
  j.erase("durability");
  std::ofstream(full.Join("cluster.json")) << j.dump();
  REQUIRE(ShardSet(full.path(), nullptr).config().durability == "full");
  j["durability"] = "off";
  std::ofstream(full.Join("cluster.json")) << j.dump();
  REQUIRE(FailureCode([&] { ShardSet(full.path(), nullptr); }) == Code::kStorageError);
  TempDir bad;
  c.durability = "off";
  REQUIRE(FailureCode([&] { ShardSet::Create(bad.path(), c, false); }) == Code::kInvalidArgument);
}

TEST_CASE("ShardSet: a missing shard file fails when that shard is used") {
  TempDir dir;
  ShardSet::Create(dir.path(), Config(4), false);
  test::RemoveShardFiles(dir.Join("shard-02.db"));
  ShardSet set(dir.path(), nullptr);
  set.At(1);
  REQUIRE(FailureCode([&] { set.At(2); }) == Code::kStorageError);
}

TEST_CASE("ShardSet: a foreign file in a shard's place is a storage error") {
  TempDir dir;
  ShardSet::Create(dir.path(), Config(4), false);
  SECTION("not SQLite at all") {
    test::RemoveShardFiles(dir.Join("shard-01.db"));
    std::ofstream(dir.Join("shard-01.db")) << std::string(8192, 'x');
  }
  SECTION("an SQLite database of something else") {
    test::RemoveShardFiles(dir.Join("shard-01.db"));
    sqlite3* db = nullptr;
    REQUIRE(sqlite3_open(dir.Join("shard-01.db").c_str(), &db) == SQLITE_OK);
    REQUIRE(sqlite3_exec(db, "CREATE TABLE t(x); INSERT INTO t VALUES (1);", nullptr, nullptr,
                         nullptr) == SQLITE_OK);
    sqlite3_close(db);
  }
  SECTION("a shard of another cluster") {
    TempDir other;
    ShardSet::Create(other.path(), Config(4), false);
    test::CopyShardFiles(other.Join("shard-01.db"), dir.Join("shard-01.db"));
  }
  SECTION("a shard with another index") {
    test::CopyShardFiles(dir.Join("shard-00.db"), dir.Join("shard-01.db"));
  }
  SECTION("a shard with a newer schema than this build") {
    RawDb(dir.Join("shard-01.db")).Exec("PRAGMA user_version=99");
  }
  ShardSet set(dir.path(), nullptr);
  REQUIRE(FailureCode([&] { set.At(1); }) == Code::kStorageError);
}

TEST_CASE("ShardSet: more shard files than cluster.json says is a storage error") {
  TempDir dir;
  ShardSet::Create(dir.path(), Config(16), false);
  Json j = ReadJson(dir.Join("cluster.json"));
  j["shards"] = 8;
  std::ofstream(dir.Join("cluster.json")) << j.dump();
  REQUIRE(FailureCode([&] { ShardSet(dir.path(), nullptr); }) == Code::kStorageError);
}

TEST_CASE("ShardSet routing: users by id mod N, messages by id mod N, names by a stable hash") {
  TempDir dir;
  ShardSet::Create(dir.path(), Config(8), false);
  ShardSet set(dir.path(), nullptr);
  for (int64_t u = 1; u <= 40; ++u) REQUIRE(set.ForUser(u).index() == u % 8);
  int64_t msg = (123456789LL << 22) | (13 << 8) | 77;
  REQUIRE(set.ForMsg(msg).index() == 77 % 8);
  // Placement under gene: the id's low bits alone; the message's shard is its author's, so
  // an author's messages are all on one shard, and the archive is that shard's.
  REQUIRE(set.MsgShardIndex(msg) == 77 % 8);
  for (int64_t u = 1; u <= 40; ++u) {
    const int64_t id = (123456789LL << 22) | (5 << 8) | (u & 0xff);
    REQUIRE(set.MsgShardIndex(id) == set.ForUser(u).index());
    REQUIRE(set.AuthorMsgShardIndex(u) == set.ForUser(u).index());
  }
  REQUIRE(set.ArchiveForMsg(msg) == nullptr);  // no archive file yet
  Shard* archive = set.ArchiveAt(77 % 8, true);
  REQUIRE(set.ArchiveForMsg(msg) == archive);

  std::set<int> used;
  for (int i = 0; i < 200; ++i) {
    std::string name = "user" + std::to_string(i);
    int s = set.ShardOfName(name);
    REQUIRE(s >= 0);
    REQUIRE(s < 8);
    REQUIRE(set.ShardOfName(name) == s);
    used.insert(s);
  }
  REQUIRE(used.size() == 8);  // 200 names spread over every shard
  REQUIRE(set.ShardOfName("小明") == set.ShardOfName("小明"));

  // Stable across processes and opens: a second ShardSet over the same files agrees.
  ShardSet again(dir.path(), nullptr);
  for (const char* name : {"alice", "bob", "小明", "x"})
    REQUIRE(again.ShardOfName(name) == set.ShardOfName(name));
  // One shard: everything is on shard 0.
  TempDir one;
  ShardSet::Create(one.path(), Config(1), false);
  ShardSet single(one.path(), nullptr);
  REQUIRE(single.ShardOfName("alice") == 0);
  REQUIRE(single.ForUser(12345).index() == 0);
}

TEST_CASE("ShardSet placement under uid-mapping: one tid_map lookup on shard tid mod N") {
  TempDir dir;
  ClusterConfig config = Config(8);
  config.strategy = "uid-mapping";
  ShardSet::Create(dir.path(), config, false);
  ShardSet set(dir.path(), nullptr);
  REQUIRE(set.UsesTidMap());
  REQUIRE_FALSE(set.GeneIds());
  const int64_t msg = (123456789LL << 22) | (3 << 8) | 77;  // no gene: 77 is not the author's
  REQUIRE(set.TidMapShardIndex(msg) == 77 % 8);
  // No mapping row yet: the mapping's shard is answered, where the message is not.
  REQUIRE(set.MsgShardIndex(msg) == 77 % 8);
  RawDb(dir.Join(ShardFileName(77 % 8, 8)))
      .Exec("INSERT INTO tid_map(tid, uid) VALUES (" + std::to_string(msg) + ", 10)");
  REQUIRE(set.MsgShardIndex(msg) == 10 % 8);
  REQUIRE(set.ForMsg(msg).index() == 10 % 8);
  REQUIRE(set.AuthorMsgShardIndex(10) == 10 % 8);
  // Gene clusters never look: the id alone.
  TempDir other;
  ShardSet::Create(other.path(), Config(8), false);
  ShardSet gene(other.path(), nullptr);
  REQUIRE_FALSE(gene.UsesTidMap());
  REQUIRE(gene.GeneIds());
}

TEST_CASE("ShardSet: the name hash is a function of the name only, whatever the shard count") {
  // BLAKE2b-64 mod N: for N dividing M, shard under N == shard under M mod N.
  TempDir a, b;
  ShardSet::Create(a.path(), Config(4), false);
  ShardSet::Create(b.path(), Config(64), false);
  ShardSet four(a.path(), nullptr), sixty_four(b.path(), nullptr);
  for (int i = 0; i < 100; ++i) {
    std::string name = "n" + std::to_string(i);
    REQUIRE(four.ShardOfName(name) == sixty_four.ShardOfName(name) % 4);
  }
}

TEST_CASE("ClusterConfig: JSON round trip and defaults for optional fields") {
  ClusterConfig c = Config(32, "push");
  c.page_size = 5;
  c.inbox_cap = 99;
  c.celebrity_threshold = 3;
  c.cluster_id = "abc";
  ClusterConfig back = ClusterConfig::FromJson(c.ToJson());
  REQUIRE(back.shards == 32);
  REQUIRE(back.feed == "push");
  REQUIRE(back.page_size == 5);
  REQUIRE(back.inbox_cap == 99);
  REQUIRE(back.celebrity_threshold == 3);
  REQUIRE(back.cluster_id == "abc");
  ClusterConfig minimal = ClusterConfig::FromJson(
      Json{{"format", "weibo-cluster"}, {"version", 1}, {"cluster_id", "x"}, {"shards", 2}});
  REQUIRE(minimal.feed == "hybrid");
  REQUIRE(minimal.page_size == 20);
  REQUIRE(minimal.inbox_cap == 800);
  REQUIRE(minimal.celebrity_threshold == 10000);
  REQUIRE(FailureCode([] {
            ClusterConfig::FromJson(Json{{"format", "weibo-cluster"}});
          }) == Code::kStorageError);
}

// The same errors through the public API: the first Execute reports them.
TEST_CASE(
    "storage errors through the public API: missing dir, no cluster.json, missing or foreign "
    "shard") {
  TempDir dir;
  EmbeddedOptions options;
  options.now_ms = test::kNow;
  SECTION("missing directory") { options.data_dir = dir.Join("missing"); }
  SECTION("no cluster.json") { options.data_dir = dir.path(); }
  // A 4-shard cluster with a user, then without shard-01's files.
  auto without_shard_01 = [&] {
    options.data_dir = dir.path();
    auto init = OpenEmbedded(options);
    REQUIRE(init->Execute({"init", {{"shards", 4}}}).ok());
    REQUIRE(init->Execute({"user_add", {{"name", "a"}}}).ok());
    init.reset();
    test::RemoveShardFiles(dir.Join("shard-01.db"));
  };
  SECTION("a missing shard file") { without_shard_01(); }
  SECTION("a foreign file in a shard's place") {
    without_shard_01();
    std::ofstream(dir.Join("shard-01.db")) << std::string(8192, 'x');
  }
  auto exec = OpenEmbedded(options);
  Result<Json> r = exec->Execute({"user_show", {{"user", 1}}});
  REQUIRE_FALSE(r.ok());
  REQUIRE(r.status().code() == Code::kStorageError);
  REQUIRE(ExitStatus(r.status().code()) == 4);
}

TEST_CASE("storage errors through the public API: init over an existing cluster needs force") {
  Cluster c;
  int64_t a = c.AddUser("alice");
  REQUIRE(c.CodeOf("init", {{"shards", 4}}) == Code::kInvalidArgument);
  REQUIRE(c.User(a).at("name") == "alice");  // nothing was lost
  c.Run("init", {{"shards", 4}, {"force", true}});
  REQUIRE(c.CodeOf("user_show", {{"user", a}}) == Code::kNotFound);
  REQUIRE(c.AddUser("bob") == 1);  // a new cluster numbers users from 1 again
}

TEST_CASE("init through the public API: arguments are checked, the defaults are SPEC's") {
  TempDir dir;
  EmbeddedOptions options;
  options.data_dir = dir.Join("data");
  auto exec = OpenEmbedded(options);
  for (const Json& bad : {Json{{"shards", 3}}, Json{{"shards", 512}}, Json{{"feed", "fan"}},
                          Json{{"page_size", 0}}, Json{{"strategy", "x"}}}) {
    INFO(bad.dump());
    Result<Json> r = exec->Execute({"init", bad});
    REQUIRE_FALSE(r.ok());
    REQUIRE(r.status().code() == Code::kInvalidArgument);
  }
  Result<Json> r = exec->Execute({"init", Json::object()});
  REQUIRE(r.ok());
  Json j = ReadJson(dir.Join("data/cluster.json"));
  REQUIRE(j.at("shards") == 16);
  REQUIRE(j.at("feed") == "hybrid");
  REQUIRE(j.at("page_size") == 20);
  REQUIRE(j.at("inbox_cap") == 800);
  REQUIRE(j.at("celebrity_threshold") == 10000);
  REQUIRE(std::filesystem::exists(dir.Join("data/shard-15.db")));
}

// Issue 11 (9): a cluster.json of a format this build does not know is refused, not read
// as if it were version 1.
TEST_CASE("ShardSet: a cluster.json version other than 1 is a storage error naming it") {
  TempDir dir;
  ShardSet::Create(dir.path(), Config(2), false);
  Json j = ReadJson(dir.Join("cluster.json"));
  REQUIRE(j.at("version") == 1);
  for (const Json& version : {Json(99), Json(0), Json("1"), Json(1.5), Json()}) {
    Json bad = j;
    if (version.is_null())
      bad.erase("version");
    else
      bad["version"] = version;
    std::ofstream(dir.Join("cluster.json")) << bad.dump();
    INFO(bad.dump());
    try {
      ShardSet set(dir.path(), nullptr);
      FAIL("opened");
    } catch (const Failure& f) {
      REQUIRE(f.status().code() == Code::kStorageError);
      if (!version.is_null()) REQUIRE_THAT(f.status().message(), Catch::Contains(version.dump()));
    }
  }
}

// Issue 11 (8): the directory 0700, every file 0600, whatever the umask.
TEST_CASE("ShardSet::Create: the directory is 0700 and every file 0600 under umask 000") {
  TempDir dir;
  mode_t old = umask(0);
  struct Restore {
    mode_t m;
    ~Restore() { umask(m); }
  } restore{old};
  const std::string data = dir.Join("data");
  ShardSet::Create(data, Config(2), false);
  {
    ShardSet set(data, nullptr);
    WriteTxn txn(set.At(1));
    set.At(1).Query("INSERT INTO meta(key, value) VALUES ('x', 'y')").Run();
    txn.Commit();
    set.At(0).Checkpoint(0);  // makes shard-00.db.ckpt
    REQUIRE(std::filesystem::exists(data + "/shard-01.db-wal"));
    REQUIRE(std::filesystem::exists(data + "/shard-01.db-shm"));
    REQUIRE(std::filesystem::exists(data + "/shard-00.db.ckpt"));
    REQUIRE(std::filesystem::exists(data + "/cluster.lock"));
  }
  auto mode = [](const std::string& path) {
    struct stat st;
    REQUIRE(stat(path.c_str(), &st) == 0);
    return st.st_mode & 07777;
  };
  REQUIRE(mode(data) == 0700);
  int files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(data)) {
    INFO(entry.path());
    REQUIRE(mode(entry.path()) == 0600);
    ++files;
  }
  REQUIRE(files >= 8);
  // An existing directory is made private too.
  const std::string open_dir = dir.Join("open");
  REQUIRE(mkdir(open_dir.c_str(), 0777) == 0);
  ShardSet::Create(open_dir, Config(1), false);
  REQUIRE(mode(open_dir) == 0700);
}

// Issue 11 (4): init --force never replaces a cluster that is open somewhere. flock locks
// of two open files conflict within one process too, so one process shows it.
TEST_CASE("ShardSet::Create with force is refused while the cluster is open") {
  TempDir dir;
  ShardSet::Create(dir.path(), Config(2), false);
  std::string first_id = ReadJson(dir.Join("cluster.json")).at("cluster_id");
  {
    ShardSet open(dir.path(), nullptr);
    open.At(0);
    try {
      ShardSet::Create(dir.path(), Config(2), true);
      FAIL("replaced a cluster in use");
    } catch (const Failure& f) {
      REQUIRE(f.status().code() == Code::kStorageError);
      REQUIRE_THAT(f.status().message(),
                   Catch::Contains("is in use") && Catch::Contains("cluster.lock"));
    }
    REQUIRE(std::filesystem::exists(dir.Join("shard-00.db")));
    REQUIRE(ReadJson(dir.Join("cluster.json")).at("cluster_id") == first_id);
    ShardSet again(dir.path(), nullptr);  // shared: any number of processes may open it
    again.At(1);
  }
  ShardSet::Create(dir.path(), Config(2), true);  // closed: replaced
  REQUIRE(ReadJson(dir.Join("cluster.json")).at("cluster_id") != first_id);
}

}  // namespace
}  // namespace weibo

TEST_CASE("CheckpointWalBytes: 128 MiB shared among the shards, 4 to 8 MiB each") {
  constexpr int64_t kMiB = int64_t{1} << 20;
  CHECK(weibo::CheckpointWalBytes(1) == 8 * kMiB);
  CHECK(weibo::CheckpointWalBytes(16) == 8 * kMiB);
  CHECK(weibo::CheckpointWalBytes(32) == 4 * kMiB);
  CHECK(weibo::CheckpointWalBytes(64) == 4 * kMiB);
  CHECK(weibo::CheckpointWalBytes(256) == 4 * kMiB);
  CHECK(weibo::CheckpointWalBytes(0) == 8 * kMiB);  // never a division by zero
}
