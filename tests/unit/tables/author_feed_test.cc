// tables/author_feed.h: the week partitions of an author's outbox, at the edges of the id
// range. The range's last partition (3635) is cut short at the range's end, so the id that
// would begin partition 3636 does not fit in 63 bits: PartStart and PartEnd saturate
// (issue 11: PartStart(part + 1) overflowed and hid an author's posts for good).
#include "tables/author_feed.h"

#include <limits>

#include "storage/clock.h"
#include "storage/gene_id.h"
#include "test_support.h"

namespace weibo {
namespace {

constexpr int64_t kMaxId = std::numeric_limits<int64_t>::max();

TEST_CASE("author_feed: partitions are weeks of the id, the last one cut short") {
  REQUIRE(kPartCount == 3636);
  REQUIRE(PartOf(0) == 0);
  REQUIRE(PartOf(kMaxId) == kPartCount - 1);
  REQUIRE(PartOf(GeneIdFloor(kClockLatestMs, 255)) == kPartCount - 2);  // a clock's last week
  REQUIRE(PartOf(GeneIdFloor(kClockLatestMs + 1, 0)) == kPartCount - 1);
  REQUIRE(GeneIdTimeMs(PartStart(kPartCount - 1)) == *ParseTime("2089-08-31"));
}

TEST_CASE("author_feed: partition bounds saturate at the edges of the id range") {
  REQUIRE(PartStart(0) == 0);
  REQUIRE(PartStart(-1) == 0);
  REQUIRE(PartStart(kPartCount) == kMaxId);
  REQUIRE(PartStart(kPartCount + 1000) == kMaxId);
  REQUIRE(PartStart(std::numeric_limits<int64_t>::max()) == kMaxId);
  REQUIRE(PartEnd(kPartCount - 1) == kMaxId);  // the last partition holds the highest id
  REQUIRE(PartEnd(kPartCount) == kMaxId);
  REQUIRE(PartEnd(std::numeric_limits<int64_t>::max()) == kMaxId);
  for (int64_t part : {int64_t{0}, int64_t{1}, int64_t{2000}, kPartCount - 3, kPartCount - 2}) {
    INFO("partition " << part);
    REQUIRE(PartEnd(part) == PartStart(part + 1) - 1);
    REQUIRE(PartEnd(part) > PartStart(part));
    REQUIRE(PartOf(PartStart(part)) == part);
    REQUIRE(PartOf(PartEnd(part)) == part);
    REQUIRE(PartOf(PartEnd(part) + 1) == part + 1);
  }
}

}  // namespace
}  // namespace weibo
