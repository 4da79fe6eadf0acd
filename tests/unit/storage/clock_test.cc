// storage/clock.cc: the fixed clock and the time formats of SPEC §10 (--now, ISO 8601).
#include "storage/clock.h"

#include <ctime>
#include <string>
#include <vector>

#include "test_support.h"

namespace weibo {
namespace {

TEST_CASE("Clock: a fixed clock returns its time, 0 means the system clock") {
  REQUIRE(Clock(test::kNow).NowMs() == test::kNow);
  int64_t now = Clock(0).NowMs();
  REQUIRE(now > *ParseTime("2024-01-01"));
  REQUIRE(now < *ParseTime("2100-01-01"));
}

TEST_CASE("ParseTime: epoch seconds") {
  REQUIRE(ParseTime("1700000000") == std::optional<int64_t>(1700000000000LL));
  REQUIRE(ParseTime("1") == std::optional<int64_t>(1000));
  REQUIRE_FALSE(ParseTime("1234567890123").has_value());  // 13 digits: not seconds
}

TEST_CASE("ParseTime: ISO 8601 with Z, offsets, a space, and plain dates") {
  REQUIRE(ParseTime("2023-11-14T22:13:20Z") == std::optional<int64_t>(test::kNow));
  REQUIRE(ParseTime("2023-11-14T22:13:20") == std::optional<int64_t>(test::kNow));
  REQUIRE(ParseTime("2023-11-14 22:13:20Z") == std::optional<int64_t>(test::kNow));
  REQUIRE(ParseTime("2023-11-15T06:13:20+08:00") == std::optional<int64_t>(test::kNow));
  REQUIRE(ParseTime("2023-11-14T17:13:20-05:00") == std::optional<int64_t>(test::kNow));
  REQUIRE(ParseTime("2020-01-01") == std::optional<int64_t>(1577836800000LL));
  REQUIRE(ParseTime("1970-01-02") == std::optional<int64_t>(86400000LL));
}

TEST_CASE("ParseTime: fractions of a second, kept to the millisecond") {
  REQUIRE(ParseTime("1700000000.5") == std::optional<int64_t>(1700000000500LL));
  REQUIRE(ParseTime("1700000000.123456789") == std::optional<int64_t>(1700000000123LL));
  REQUIRE(ParseTime("2023-11-14T22:13:20.250Z") == std::optional<int64_t>(test::kNow + 250));
  REQUIRE(ParseTime("2023-11-15T06:13:20.007+08:00") == std::optional<int64_t>(test::kNow + 7));
  REQUIRE(ParseTime("2023-11-14T22:13:20.9") == std::optional<int64_t>(test::kNow + 900));
  for (const char* bad : {"1700000000.", "1700000000.5x", "1700000000.1234567890", ".5",
                          "2023-11-14T22:13:20.Z", "2023-11-14.5", "1700000000..5"}) {
    INFO(bad);
    REQUIRE_FALSE(ParseTime(bad).has_value());
  }
}

TEST_CASE("ParseTime: malformed input is nullopt") {
  for (const char* bad : {"", "yesterday", "2023-13-01", "2023-00-10", "2023-01-32", "2023-1-1",
                          "2023-11-14T25:00:00Z", "2023-11-14T22:61:00Z", "2023-11-14T22:13Z",
                          "2023-11-14T22:13:20+0800", "2023-11-14T22:13:20 UTC", "-5", "12ab",
                          "2023-11-14X22:13:20Z"}) {
    INFO(bad);
    REQUIRE_FALSE(ParseTime(bad).has_value());
  }
}

// FormatTime computes the date itself from 1970 to 9999: it must say what the C library
// says, leap days and century years included.
TEST_CASE("FormatTime: the same text as gmtime_r and strftime") {
  auto libc = [](int64_t ms) {
    std::time_t t = static_cast<std::time_t>(ms / 1000);
    std::tm tm{};
    gmtime_r(&t, &tm);
    char buf[64];
    std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
    return std::string(buf);
  };
  const int64_t kDay = 86400000;
  std::vector<int64_t> cases = {0,
                                999,
                                1000,
                                kDay - 1,
                                kDay,
                                kEarliestTimeMs,
                                kLatestTimeMs,
                                kClockLatestMs,
                                951782400000 /* 2000-02-29 */,
                                4107456000000 /* 2100-02-28 */,
                                253402300799999,
                                -1,
                                -1000,
                                -kDay - 1,
                                253402300800000};
  test::XorShift next;
  for (int i = 0; i < 200000; ++i)
    cases.push_back(static_cast<int64_t>(next() % uint64_t{253402300800000}));
  for (int64_t day = 10950; day < 11050; ++day) cases.push_back(day * kDay + 43210123);
  for (int64_t ms : cases) {
    INFO(ms);
    REQUIRE(FormatTime(ms) == libc(ms));
  }
}

TEST_CASE("FormatTime: ISO 8601 UTC with second precision") {
  REQUIRE(FormatTime(test::kNow) == "2023-11-14T22:13:20Z");
  REQUIRE(FormatTime(test::kNow + 999) == "2023-11-14T22:13:20Z");
  REQUIRE(FormatTime(0) == "1970-01-01T00:00:00Z");
  REQUIRE(FormatTime(*ParseTime("2026-01-02T03:04:05+01:00")) == "2026-01-02T02:04:05Z");
}

}  // namespace
}  // namespace weibo
