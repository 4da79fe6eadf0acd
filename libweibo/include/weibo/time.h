// Time at the edge: the one parser of a clock given from outside (--now, a request's
// "now", a trace's "now") used by the commands, the daemon and the bench, and the one
// format results show times in.
#ifndef WEIBO_TIME_H_
#define WEIBO_TIME_H_

#include <cstdint>
#include <optional>
#include <string>

namespace weibo {

// Milliseconds since the Unix epoch of "1700000000" (epoch seconds, at most 12 digits),
// ISO 8601 "2026-01-02T03:04:05Z" (also with a space for the 'T', no zone meaning UTC,
// or an offset "+08:00"), or a plain date "2026-01-02". Seconds may have a fraction of 1
// to 9 digits ("1700000000.25", "2026-01-02T03:04:05.250Z"), kept to the millisecond
// (rounded down). nullopt when the text is none of these, or names a day that does not
// exist (2026-02-31).
std::optional<int64_t> ParseTime(const std::string& text);

// ISO 8601 UTC with second precision: "2026-01-02T03:04:05Z".
std::string FormatTime(int64_t ms);

// The clocks a message id can carry: the gene method counts milliseconds from 2020-01-01
// in 41 bits (libweibo/storage/gene_id.h), to 2089-09-06T15:47:35.551Z.
constexpr int64_t kEarliestTimeMs = 1577836800000;                           // 2020-01-01
constexpr int64_t kLatestTimeMs = kEarliestTimeMs + (int64_t{1} << 41) - 1;  // 2089-09-06
constexpr int64_t kWeekMs = 7LL * 24 * 3600 * 1000;

// The last millisecond a clock given from outside may say (--now, WEIBO_NOW, a request's
// "now"): the end of the last whole week of the id range, 2089-08-30T23:59:59.999Z. The
// pull feed partitions an author's posts by week of the id (tables/author_feed.h), and
// the range's last week is cut short; a clock in it would also leave ids borrowing the
// next millisecond (NextGeneId) only days before the end of the range.
constexpr int64_t kClockLatestMs =
    kEarliestTimeMs + ((kLatestTimeMs - kEarliestTimeMs + 1) / kWeekMs) * kWeekMs - 1;

// The check every edge makes of a clock given from outside: [kEarliestTimeMs,
// kClockLatestMs].
inline bool ClockInRange(int64_t ms) { return ms >= kEarliestTimeMs && ms <= kClockLatestMs; }

// The range, as the messages refusing a clock name it:
// "from 2020-01-01T00:00:00Z to 2089-08-30T23:59:59Z".
std::string ClockRange();

// ParseTime of a clock given from outside (--now, a request's "now"): nullopt when the
// text is not a time or the time is not ClockInRange.
std::optional<int64_t> ParseClock(const std::string& text);

}  // namespace weibo

#endif  // WEIBO_TIME_H_
