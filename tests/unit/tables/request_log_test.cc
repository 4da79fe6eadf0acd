// tables/request_log.cc: the durable dedup window — ids recorded once, found by id, pruned
// by age and by count, a few rows per write.
#include "tables/request_log.h"

#include "test_support.h"

namespace weibo {
namespace {

using test::FreshShard;
using test::TempDir;

constexpr int64_t kT = 1700000000000LL;

void Record(Shard& shard, const std::string& id, int64_t result, int64_t now) {
  WriteTxn txn(shard);
  RecordRequest(shard, id, "post", RequestFingerprint("post", Json{{"n", result}}), result, now);
  txn.Commit();
}

TEST_CASE("request_log: an id is found with its op and result, the first record wins") {
  TempDir dir;
  auto shard = FreshShard(dir);
  REQUIRE_FALSE(FindRequest(*shard, "r1"));
  Record(*shard, "r1", 42, kT);
  auto row = FindRequest(*shard, "r1");
  REQUIRE(row);
  REQUIRE(row->op == "post");
  REQUIRE(row->result == 42);
  REQUIRE(row->time == kT);
  REQUIRE(row->fingerprint == RequestFingerprint("post", Json{{"n", 42}}));
  Record(*shard, "r1", 43, kT + 1);
  REQUIRE(FindRequest(*shard, "r1")->result == 42);
  REQUIRE(CountRequests(*shard) == 1);
  REQUIRE_FALSE(FindRequest(*shard, "r2"));
}

TEST_CASE("request_log: a fingerprint is of the op and the args in canonical form") {
  const std::string fp = RequestFingerprint("post", Json{{"user", "@a"}, {"content", "x"}});
  REQUIRE(fp.size() == 32);
  REQUIRE(fp.find_first_not_of("0123456789abcdef") == std::string::npos);
  // Json keeps keys in the order given: the fingerprint does not.
  REQUIRE(RequestFingerprint("post", Json{{"content", "x"}, {"user", "@a"}}) == fp);
  REQUIRE(RequestFingerprint("post", Json{{"user", "@a"}, {"content", "y"}}) != fp);
  REQUIRE(RequestFingerprint("post", Json{{"user", "@b"}, {"content", "x"}}) != fp);
  REQUIRE(RequestFingerprint("delete", Json{{"user", "@a"}, {"content", "x"}}) != fp);
  REQUIRE(RequestFingerprint("post", Json{{"user", 1}, {"content", "x"}}) != fp);
}

TEST_CASE("request_log: a rolled-back transaction records nothing") {
  TempDir dir;
  auto shard = FreshShard(dir);
  {
    WriteTxn txn(*shard);
    RecordRequest(*shard, "r1", "post", "", 1, kT);
  }
  REQUIRE_FALSE(FindRequest(*shard, "r1"));
}

TEST_CASE("request_log: ids older than the window are pruned by later writes, a few each") {
  TempDir dir;
  auto shard = FreshShard(dir);
  for (int i = 0; i < 10; ++i) Record(*shard, "old" + std::to_string(i), i, kT + i);
  // Still inside the window: nothing goes.
  Record(*shard, "new0", 0, kT + kRequestWindowMs - 1);
  REQUIRE(CountRequests(*shard) == 11);
  // Past it: each write removes up to kRequestPrunePerWrite of the oldest.
  Record(*shard, "new1", 0, kT + kRequestWindowMs + 100);
  REQUIRE(CountRequests(*shard) == 12 - kRequestPrunePerWrite);
  REQUIRE_FALSE(FindRequest(*shard, "old0"));
  REQUIRE(FindRequest(*shard, "old9"));
  for (int i = 2; i < 5; ++i)
    Record(*shard, "new" + std::to_string(i), 0, kT + kRequestWindowMs + 100);
  REQUIRE(CountRequests(*shard) == 5);  // new0 to new4: every old one has gone
  for (int i = 0; i < 10; ++i) REQUIRE_FALSE(FindRequest(*shard, "old" + std::to_string(i)));
  for (int i = 0; i < 5; ++i) REQUIRE(FindRequest(*shard, "new" + std::to_string(i)));
}

TEST_CASE("request_log: beyond kRequestLogCap newer ids, the oldest go whatever their age") {
  TempDir dir;
  auto shard = FreshShard(dir);
  // Plant a full log behind the library's back (100000 rows, one statement).
  test::RawDb(dir.Join("shard.db"))
      .Exec("WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < " +
            std::to_string(kRequestLogCap) +
            ") INSERT INTO request_log(seq, request_id, op, result, time) "
            "SELECT i, 'r' || i, 'post', i, " +
            std::to_string(kT) + " FROM n");
  REQUIRE(CountRequests(*shard) == kRequestLogCap);
  Record(*shard, "next", 0, kT);  // seq cap + 1: row 1 is now beyond the cap
  REQUIRE(CountRequests(*shard) == kRequestLogCap);
  REQUIRE_FALSE(FindRequest(*shard, "r1"));
  REQUIRE(FindRequest(*shard, "r2"));
  REQUIRE(FindRequest(*shard, "next"));
}

}  // namespace
}  // namespace weibo
