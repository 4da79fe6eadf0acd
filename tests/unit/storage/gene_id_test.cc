// storage/gene_id.cc: message ids by the gene method (SPEC §2).
#include "storage/gene_id.h"

#include <limits>
#include <set>

#include "storage/clock.h"
#include "test_support.h"

namespace weibo {
namespace {

using test::FreshShard;
using test::kNow;
using test::TempDir;

int64_t Sequence(int64_t id) { return (id >> 8) & 0x3fff; }

TEST_CASE("gene id layout: 41 bits of ms since 2020, 14 bits of sequence, 8 bits of gene") {
  REQUIRE(kGeneEpochMs == *ParseTime("2020-01-01T00:00:00Z"));
  REQUIRE(GeneIdFloor(kGeneEpochMs, 0) == 0);
  REQUIRE(GeneIdFloor(kGeneEpochMs, 1) == 1);
  REQUIRE(GeneIdFloor(kGeneEpochMs + 5, 0x1ff) == ((5LL << 22) | 0xff));
  int64_t id = GeneIdFloor(kNow, 300);
  REQUIRE((id & 0xff) == 300 % 256);
  REQUIRE(Sequence(id) == 0);
  REQUIRE(GeneIdTimeMs(id) == kNow);
  REQUIRE(id > 0);
  REQUIRE((id >> 63) == 0);
}

TEST_CASE("gene ids: the last millisecond is 2089-09-06, and a later clock stays in range") {
  REQUIRE(kGeneLatestMs == *ParseTime("2089-09-06T15:47:35Z") + 551);
  int64_t last = GeneIdFloor(kGeneLatestMs, 7);
  REQUIRE(last > 0);
  REQUIRE(GeneIdTimeMs(last) == kGeneLatestMs);
  // A clock past the range (a fuzzed request once sent the year 4052) is clamped, not
  // shifted out of the 63 bits.
  REQUIRE(GeneIdFloor(*ParseTime("4052-02-01T00:00:00Z"), 7) == last);
}

TEST_CASE("gene ids: a clock from outside ends with the id range's last whole week") {
  // Issue 11: a --now in the range's last, partial week (2089-08-31 on) is refused.
  REQUIRE(kClockLatestMs == *ParseTime("2089-08-30T23:59:59Z") + 999);
  REQUIRE((kClockLatestMs + 1 - kGeneEpochMs) % kGeneWeekMs == 0);
  REQUIRE(kClockLatestMs < kGeneLatestMs);
  REQUIRE(ClockInRange(kGeneEpochMs));
  REQUIRE(ClockInRange(kClockLatestMs));
  REQUIRE_FALSE(ClockInRange(kGeneEpochMs - 1));
  REQUIRE_FALSE(ClockInRange(kClockLatestMs + 1));
  REQUIRE_FALSE(ClockInRange(*ParseTime("2089-09-01")));
  REQUIRE_FALSE(ClockInRange(kGeneLatestMs));
  REQUIRE_FALSE(ClockInRange(std::numeric_limits<int64_t>::max()));
  REQUIRE_FALSE(ClockInRange(std::numeric_limits<int64_t>::min()));
  REQUIRE(ClockRange() == "from 2020-01-01T00:00:00Z to 2089-08-30T23:59:59Z");
  // ParseClock: ParseTime, then ClockInRange (--now).
  REQUIRE(ParseClock("2089-08-30T23:59:59Z") == std::optional<int64_t>(kClockLatestMs - 999));
  REQUIRE(ParseClock("2020-01-01") == std::optional<int64_t>(kGeneEpochMs));
  REQUIRE_FALSE(ParseClock("2089-08-31").has_value());
  REQUIRE_FALSE(ParseClock("2019-12-31").has_value());
  REQUIRE_FALSE(ParseClock("yesterday").has_value());
}

TEST_CASE("gene ids: a sequence at the end of the id range refuses, never wraps negative") {
  TempDir dir;
  auto shard = FreshShard(dir);
  WriteTxn txn(*shard);
  // The highest id of gene 7 (last millisecond, last sequence): a sequence a far clock and
  // borrowing pushed to the end, as the poison post of issue 11 did to a gene.
  const int64_t top = std::numeric_limits<int64_t>::max() - 0xff + 7;
  REQUIRE(GeneIdTimeMs(top) == kGeneLatestMs);
  shard->Query("INSERT INTO msg_seq(low8, last_id) VALUES (7, ?)").Bind(1, top).Run();
  try {
    NextGeneId(*shard, 7, kNow);
    FAIL("an id past the end of the range was handed out");
  } catch (const Failure& f) {
    REQUIRE(f.status().code() == Code::kStorageError);
    REQUIRE_THAT(f.status().message(), Catch::Contains("weibo-fsck --repair"));
  }
  // One step below the top still has its next id, the top itself.
  ResetSequence(*shard, 7, top - 256);
  REQUIRE(NextGeneId(*shard, 7, kNow) == top);
  // Other genes are not held up.
  REQUIRE(NextGeneId(*shard, 8, kNow) == GeneIdFloor(kNow, 8));
  txn.Commit();
}

TEST_CASE("gene ids: id mod N == author mod N for every shard count 1..256") {
  TempDir dir;
  auto shard = FreshShard(dir);
  WriteTxn txn(*shard);
  for (int64_t author = 1; author <= 600; ++author) {
    for (int k = 0; k < 2; ++k) {
      int64_t id = NextGeneId(*shard, author, kNow + author % 3);
      for (int n = 1; n <= 256; n *= 2) {
        INFO("author " << author << " id " << id << " N " << n);
        REQUIRE(id % n == author % n);
      }
    }
  }
  txn.Commit();
}

TEST_CASE("gene ids strictly increase, on a fixed clock, a moving one and a clock that goes back") {
  TempDir dir;
  auto shard = FreshShard(dir);
  WriteTxn txn(*shard);
  int64_t last = 0;
  const int64_t clocks[] = {kNow,        kNow,        kNow,        kNow + 1,
                            kNow + 1000, kNow + 1000, kNow - 5000, kNow};
  for (int64_t now : clocks) {
    int64_t id = NextGeneId(*shard, 7, now);
    REQUIRE(id > last);
    REQUIRE(id % 256 == 7);
    last = id;
  }
  // Two authors with the same gene share a sequence: still no id repeats.
  int64_t a = NextGeneId(*shard, 3, kNow + 2000);
  int64_t b = NextGeneId(*shard, 3 + 256, kNow + 2000);
  REQUIRE(b == a + 256);
  txn.Commit();
}

TEST_CASE("gene ids: the first id of a millisecond has sequence 0, then 1, 2, ...") {
  TempDir dir;
  auto shard = FreshShard(dir);
  WriteTxn txn(*shard);
  for (int64_t seq = 0; seq < 5; ++seq) {
    int64_t id = NextGeneId(*shard, 9, kNow);
    REQUIRE(id == GeneIdFloor(kNow, 9) + seq * 256);
    REQUIRE(Sequence(id) == seq);
  }
  // A later millisecond starts again at sequence 0.
  REQUIRE(NextGeneId(*shard, 9, kNow + 10) == GeneIdFloor(kNow + 10, 9));
  txn.Commit();
}

TEST_CASE(
    "gene ids: an exhausted sequence borrows the next millisecond (16385 ids in one fixed ms)") {
  TempDir dir;
  auto shard = FreshShard(dir);
  WriteTxn txn(*shard);
  std::set<int64_t> seen;
  int64_t last = 0;
  for (int i = 0; i < 16385; ++i) {
    int64_t id = NextGeneId(*shard, 5, kNow);
    REQUIRE(id > last);
    REQUIRE(id % 256 == 5);
    REQUIRE(GeneIdTimeMs(id) == (i < 16384 ? kNow : kNow + 1));
    seen.insert(id);
    last = id;
  }
  REQUIRE(seen.size() == 16385);
  REQUIRE(Sequence(last) == 0);
  // The borrowed millisecond is used up in order: the next id is its sequence 1.
  REQUIRE(NextGeneId(*shard, 5, kNow) == GeneIdFloor(kNow + 1, 5) + 256);
  REQUIRE(NextGeneId(*shard, 5, kNow + 1) == GeneIdFloor(kNow + 1, 5) + 512);
  txn.Commit();
}

TEST_CASE("gene ids: the sequence is durable, a reopened shard continues after the last id") {
  TempDir dir;
  int64_t last = 0;
  {
    auto shard = FreshShard(dir);
    WriteTxn txn(*shard);
    for (int i = 0; i < 3; ++i) last = NextGeneId(*shard, 11, kNow);
    txn.Commit();
  }
  Shard reopened(0, dir.Join("shard.db"), false, nullptr);
  WriteTxn txn(reopened);
  REQUIRE(NextGeneId(reopened, 11, kNow) == last + 256);
  txn.Commit();
}

TEST_CASE("gene ids: a rolled back allocation is handed out again, never skipped into a repeat") {
  TempDir dir;
  auto shard = FreshShard(dir);
  int64_t first;
  {
    WriteTxn txn(*shard);
    first = NextGeneId(*shard, 4, kNow);
  }  // rolled back: the message was never written
  WriteTxn txn(*shard);
  REQUIRE(NextGeneId(*shard, 4, kNow) == first);
  REQUIRE(NextGeneId(*shard, 4, kNow) == first + 256);
  txn.Commit();
}

TEST_CASE("plain ids (uid-mapping): unique, growing, their low bits turning over every shard") {
  TempDir dir;
  auto shard = FreshShard(dir, "shard.db", 5);
  std::set<int64_t> ids;
  std::set<int64_t> low;
  int64_t last = 0;
  for (int i = 0; i < 600; ++i) {  // one millisecond, then the next clock, then behind it
    const int64_t now = i < 300 ? kNow : i < 500 ? kNow + 1 : kNow - 1000;
    WriteTxn txn(*shard);
    const int64_t id = NextMsgId(*shard, 7, now, false);
    txn.Commit();
    REQUIRE(id > last);
    REQUIRE(((id >> 8) & 0xff) == 5);  // the shard that made it, never the author's gene
    REQUIRE(GeneIdTimeMs(id) >= kNow);
    last = id;
    ids.insert(id);
    low.insert(id % 16);
  }
  REQUIRE(ids.size() == 600);
  REQUIRE(low.size() == 16);  // id mod N cycles through every shard
  // The gene path is unchanged: NextMsgId with gene is NextGeneId.
  WriteTxn txn(*shard);
  REQUIRE((NextMsgId(*shard, 7, kNow + 5000, true) & 0xff) == 7);
  txn.Commit();
}

}  // namespace
}  // namespace weibo
