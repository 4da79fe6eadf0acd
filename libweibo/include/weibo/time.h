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
// or an offset "+08:00"), or a plain date "2026-01-02". nullopt when the text is none of
// these, or names a day that does not exist (2026-02-31).
std::optional<int64_t> ParseTime(const std::string& text);

// ISO 8601 UTC with second precision: "2026-01-02T03:04:05Z".
std::string FormatTime(int64_t ms);

// The clocks a message id can carry: the gene method counts milliseconds from 2020-01-01
// in 41 bits (libweibo/storage/gene_id.h). A clock given from outside must lie in
// [kEarliestTimeMs, kLatestTimeMs].
constexpr int64_t kEarliestTimeMs = 1577836800000;                           // 2020-01-01
constexpr int64_t kLatestTimeMs = kEarliestTimeMs + (int64_t{1} << 41) - 1;  // 2089-09-06

}  // namespace weibo

#endif  // WEIBO_TIME_H_
