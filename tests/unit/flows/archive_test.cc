// flows/archive.cc and the archive's read side (flows/archive.h): old messages move to
// archive-NN.db with their rows, every read still finds them, writes to them are refused,
// an interrupted move is never seen twice and fsck finishes it, one run at a time.
#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>

#include "storage/gene_id.h"
#include "test_support.h"

namespace weibo {
namespace {

using test::Cluster;
using test::ClusterOptions;
using test::IdOf;
using test::IdsOf;
using test::RawDb;

constexpr long long kDay = 24LL * 3600 * 1000;
// The clock of the new messages, ten days after the old ones (test::kNow).
constexpr long long kLater = test::kNow + 10 * kDay;
// --before: between them. test::kNow + kDay is 2023-11-15T22:13:20Z.
const char* const kBefore = "2023-11-15T22:13:20Z";

std::string S(int64_t id) { return std::to_string(id); }

// Rows of a message id in one file: its msg_info row (0 or 1).
int64_t MsgRows(const std::string& path, int64_t id) {
  RawDb db(path);
  return db.Int("SELECT count(*) FROM msg_info WHERE msg_id = " + S(id));
}

struct Scene {
  Cluster c;
  int64_t alice = 0, bob = 0, carol = 0;
  int64_t old_post = 0, old_comment = 0, old_repost = 0, late_comment = 0, new_post = 0;

  explicit Scene(ClusterOptions options = ClusterOptions()) : c(options) {
    alice = c.AddUser("alice");
    bob = c.AddUser("bob");
    carol = c.AddUser("carol");
    c.Follow(bob, alice);
    c.Follow(carol, alice);
    old_post = c.Post(alice, "an old post");
    old_comment = c.Comment(bob, old_post, "an old comment");
    old_repost = c.Repost(carol, old_post, "an old repost");
    c.Run("like", {{"user", bob}, {"msg", S(old_post)}});
    for (int i = 0; i < 5; ++i) c.Post(alice, "old " + std::to_string(i));
    c.SetNow(kLater);
    late_comment = c.Comment(bob, old_post, "a comment made later");
    new_post = c.Post(alice, "a new post");
  }
  std::string Path(int64_t msg) const { return c.ShardPath(static_cast<int>(msg % c.shards())); }
  std::string ArchivePath(int64_t msg) const {
    return c.dir() + "/" + ArchiveFileName(static_cast<int>(msg % c.shards()), c.shards());
  }
  Json Archive(int batch = 500) {
    return c.Run("archive", {{"before", kBefore}, {"batch", batch}});
  }
};

TEST_CASE("archive: old messages move with their rows, and every read still finds them") {
  Scene s;
  const Json shown = s.c.Run("show", {{"msg", S(s.old_post)}});
  const Json home = s.c.Timeline(s.bob, {{"count", 200}});
  const Json posts = s.c.Timeline(s.alice, {{"posts", true}, {"count", 200}});
  const Json comments = s.c.Run("comments", {{"msg", S(s.old_post)}, {"page", 0}});
  const Json likes = s.c.Run("likes", {{"msg", S(s.old_post)}});
  const Json report = s.Archive(2);     // small batches: several per shard
  REQUIRE(report.at("messages") == 8);  // 6 posts, a comment and a repost; not the late one
  REQUIRE(report.at("remaining") == 0);
  REQUIRE(report.at("batches").get<int64_t>() > 4);
  REQUIRE(MsgRows(s.Path(s.old_post), s.old_post) == 0);
  REQUIRE(MsgRows(s.ArchivePath(s.old_post), s.old_post) == 1);
  REQUIRE(MsgRows(s.Path(s.late_comment), s.late_comment) == 1);  // newer: stays live
  {  // the relation rows of the old post went with it, the late comment's too
    RawDb db(s.ArchivePath(s.old_post));
    REQUIRE(db.Int("SELECT count(*) FROM msg_msg_relation WHERE referenced_msg_id = " +
                   S(s.old_post)) == 3);
    REQUIRE(db.Int("SELECT count(*) FROM msg_like WHERE msg_id = " + S(s.old_post)) == 1);
  }
  // The same answers as before (show counts no view of an archived message).
  Json again = s.c.Run("show", {{"msg", S(s.old_post)}});
  REQUIRE(again.at("counts") == shown.at("counts"));
  REQUIRE(again.at("content") == "an old post");
  REQUIRE(s.c.Timeline(s.bob, {{"count", 200}}) == home);
  REQUIRE(s.c.Timeline(s.alice, {{"posts", true}, {"count", 200}}) == posts);
  REQUIRE(s.c.Run("comments", {{"msg", S(s.old_post)}, {"page", 0}}) == comments);
  REQUIRE(s.c.Run("likes", {{"msg", S(s.old_post)}}) == likes);
  REQUIRE(s.c.Counts(s.old_post).at("comments") == 2);
  // The late comment still names its archived message's page and root.
  Json late = s.c.Run("show", {{"msg", S(s.late_comment)}});
  REQUIRE(late.at("page_index") == 0);  // page_size 2: the second comment
  REQUIRE(late.at("root").at("content") == "an old post");
  // Paged past the live rows, one item a page: the same items in the same order.
  std::vector<int64_t> paged = s.c.WholeTimeline(s.bob, 1);
  REQUIRE(paged == IdsOf(home));
  REQUIRE(s.c.Fsck().at("ok") == true);
  // Again: nothing left to move (the ids only: showing the late comment counted a view).
  REQUIRE(s.Archive().at("messages") == 0);
  REQUIRE(IdsOf(s.c.Timeline(s.bob, {{"count", 200}})) == IdsOf(home));
}

TEST_CASE("archive: every feed mode's home timeline is the same after archiving") {
  for (const char* feed : {"push", "pull", "hybrid"}) {
    INFO(feed);
    ClusterOptions options;
    options.feed = feed;
    Scene s(options);
    const std::vector<int64_t> before = s.c.WholeTimeline(s.carol, 3);
    s.Archive();
    REQUIRE(s.c.WholeTimeline(s.carol, 3) == before);
    REQUIRE(s.c.Fsck().at("ok") == true);
  }
}

TEST_CASE("archive: writes to an archived message are refused with archived") {
  Scene s;
  s.Archive();
  const std::string m = S(s.old_post);
  REQUIRE(s.c.CodeOf("comment", {{"user", s.carol}, {"msg", m}, {"content", "late"}}) ==
          Code::kArchived);
  REQUIRE(s.c.CodeOf("repost", {{"user", s.bob}, {"msg", m}}) == Code::kArchived);
  REQUIRE(s.c.CodeOf("like", {{"user", s.carol}, {"msg", m}}) == Code::kArchived);
  REQUIRE(s.c.CodeOf("unlike", {{"user", s.bob}, {"msg", m}}) == Code::kArchived);
  REQUIRE(s.c.CodeOf("edit", {{"user", s.alice}, {"msg", m}, {"content", "new"}}) ==
          Code::kArchived);
  REQUIRE(s.c.CodeOf("delete", {{"user", s.alice}, {"msg", m}}) == Code::kArchived);
  REQUIRE(s.c.CodeOf("show", {{"msg", "1"}}) == Code::kNotFound);  // unknown stays unknown
  // A live comment of an archived message may go: the count drops in the archive.
  s.c.Delete(s.bob, s.late_comment);
  REQUIRE(s.c.Counts(s.old_post).at("comments") == 1);
  REQUIRE(s.c.Counts(s.old_post).at("commented") == 2);
  REQUIRE(s.c.Fsck().at("ok") == true);
}

TEST_CASE("archive: a comment written while its message is archived lands in the archive") {
  Scene s;
  s.c.SetDrain(false);  // the comment's ref_add stays pending across the archive run
  int64_t k = s.c.Comment(s.carol, s.old_post, "racing the archive");
  s.c.Run("like", {{"user", s.carol}, {"msg", S(s.old_post)}});  // a pending like delta too
  s.Archive();
  s.c.Run("drain");
  REQUIRE(s.c.Counts(s.old_post).at("comments") == 3);
  REQUIRE(s.c.Counts(s.old_post).at("likes") == 2);
  REQUIRE(IdsOf(s.c.Run("comments", {{"msg", S(s.old_post)}, {"page", 1}})) ==
          std::vector<int64_t>{k});  // the third comment: page 1 of page_size 2
  REQUIRE(s.c.Fsck().at("ok") == true);
}

TEST_CASE("archive: a move stopped between its commits is seen once and fsck finishes it") {
  Scene s;
  const std::vector<int64_t> home = s.c.WholeTimeline(s.bob, 2);
  const Json counts = s.c.Counts(s.old_post);
  // A run that moved nothing (all is newer) made the files; then one with kBefore raised
  // the boundary, as a run does first, and was killed after the archive's commit of its
  // first batch and before the shard's: the archive holds a copy of a live message.
  s.c.Run("archive", {{"before", "2023-11-13T00:00:00Z"}});
  std::ofstream(s.c.dir() + "/archive.json")
      << Json{{"before_id", S(GeneIdFloor(test::kNow + kDay, 0))}}.dump() << "\n";
  const int64_t m = s.old_post;
  {
    RawDb db(s.ArchivePath(m));
    db.Exec("ATTACH DATABASE '" + s.Path(m) + "' AS live");
    for (const char* t : {"msg_info", "msg_counter", "msg_like", "author_feed"})
      db.Exec(std::string("INSERT INTO main.") + t + " SELECT * FROM live." + t +
              " WHERE msg_id = " + S(m));
  }
  REQUIRE(s.c.WholeTimeline(s.bob, 2) == home);  // once, not twice
  REQUIRE(s.c.Counts(m) == counts);
  Json report = s.c.Fsck();
  REQUIRE(report.at("ok") == false);
  REQUIRE(test::ViolationChecks(report) == std::vector<std::string>{"archive"});
  REQUIRE(s.c.Fsck(true).at("violations").size() == 1);
  REQUIRE(s.c.Fsck().at("ok") == true);
  // Finished as the run would have: everything older than kBefore is archived, once.
  REQUIRE(MsgRows(s.Path(m), m) == 0);
  REQUIRE(MsgRows(s.ArchivePath(m), m) == 1);
  REQUIRE(s.c.WholeTimeline(s.bob, 2) == home);
  REQUIRE(s.c.Counts(m) == counts);
}

TEST_CASE("archive: TIME in the future or malformed, and a second run at once, are refused") {
  Scene s;
  REQUIRE(s.c.CodeOf("archive", {{"before", "2023-11-25T00:00:00Z"}}) == Code::kInvalidArgument);
  REQUIRE(s.c.CodeOf("archive", {{"before", "last week"}}) == Code::kInvalidArgument);
  REQUIRE(s.c.CodeOf("archive", {{"before", kBefore}, {"batch", 0}}) == Code::kInvalidArgument);
  // Another run holds shard 2's lock (a flock, as weibo-archive takes it).
  const std::string lock = s.c.dir() + "/" + ArchiveFileName(2, s.c.shards()) + ".lock";
  int fd = open(lock.c_str(), O_RDWR | O_CREAT, 0600);
  REQUIRE(fd >= 0);
  REQUIRE(flock(fd, LOCK_EX | LOCK_NB) == 0);
  Status busy = s.c.Fail("archive", {{"before", kBefore}});
  close(fd);
  REQUIRE(busy.code() == Code::kArchiveRunning);
  REQUIRE(busy.message().find("shard-02") != std::string::npos);
  REQUIRE(MsgRows(s.Path(s.old_post), s.old_post) == 1);  // nothing moved
  REQUIRE(s.Archive().at("messages") == 8);
}

}  // namespace
}  // namespace weibo
