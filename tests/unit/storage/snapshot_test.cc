// storage/snapshot.cc: a private copy of a data directory, taken without writing to it,
// that holds every commit — those still only in a WAL too.
#include "storage/snapshot.h"

#include "test_support.h"

namespace weibo {
namespace {

using test::Cluster;
using test::TempDir;

TEST_CASE("Snapshot: copies every commit and changes nothing in the source") {
  Cluster c;
  int64_t alice = c.AddUser("alice");
  int64_t msg = c.Post(alice, "only in the WAL");
  // No checkpoint ran (the WAL is far below the 8 MiB of CheckpointOpened): the post's
  // pages are in shard-01.db-wal, not in the file.
  REQUIRE(std::filesystem::file_size(c.ShardPath(1) + "-wal") > 0);
  const auto before = test::FileStates(c.dir());
  std::string copy;
  {
    Snapshot snapshot(c.dir());
    copy = snapshot.dir();
    REQUIRE(copy != c.dir());
    REQUIRE(std::filesystem::exists(copy + "/cluster.json"));
    REQUIRE(std::filesystem::exists(copy + "/" + ShardFileName(1, 4) + "-wal"));
    REQUIRE_FALSE(std::filesystem::exists(copy + "/" + ShardFileName(1, 4) + "-shm"));
    REQUIRE_FALSE(std::filesystem::exists(copy + "/cluster.lock"));
    REQUIRE((std::filesystem::status(copy).permissions() & std::filesystem::perms::others_all) ==
            std::filesystem::perms::none);
    EmbeddedOptions options;
    options.data_dir = copy;
    auto executor = OpenEmbedded(options);
    Result<Json> shown = executor->Execute({"show", Json{{"msg", std::to_string(msg)}}});
    REQUIRE(shown.ok());
    REQUIRE(shown.value().at("content") == "only in the WAL");
    // A write to the copy stays there.
    REQUIRE(executor->Execute({"post", Json{{"user", alice}, {"content", "copy only"}}}).ok());
  }
  REQUIRE_FALSE(std::filesystem::exists(copy));
  REQUIRE(test::FileStates(c.dir()) == before);
  REQUIRE(c.User(alice).at("msg_count") == 1);
}

TEST_CASE("Snapshot: a directory without a cluster is storage_error, and leaves no copy") {
  TempDir dir;
  REQUIRE(test::FailureCode([&] { Snapshot s(dir.path()); }) == Code::kStorageError);
  REQUIRE(test::FailureCode([&] { Snapshot s(dir.Join("missing")); }) == Code::kStorageError);
  REQUIRE(std::filesystem::is_empty(dir.path()));
}

}  // namespace
}  // namespace weibo
