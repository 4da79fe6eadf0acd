// Clock: the one source of time (ids, created, last_active). A fixed clock (--now,
// WEIBO_NOW) makes every id and time deterministic, so golden output is byte-stable.
#ifndef WEIBO_STORAGE_CLOCK_H_
#define WEIBO_STORAGE_CLOCK_H_

#include <cstdint>
#include <optional>
#include <string>

namespace weibo {

class Clock {
 public:
  explicit Clock(int64_t fixed_ms = 0) : fixed_ms_(fixed_ms) {}
  int64_t NowMs() const;

 private:
  int64_t fixed_ms_;
};

// "1700000000" (epoch seconds) or ISO 8601 "2026-01-02T03:04:05Z" / "+08:00" offsets, or
// a plain date "2026-01-02": milliseconds since the Unix epoch; nullopt when malformed.
std::optional<int64_t> ParseTime(const std::string& text);
// ISO 8601 UTC with second precision: "2026-01-02T03:04:05Z".
std::string FormatTime(int64_t ms);

}  // namespace weibo

#endif  // WEIBO_STORAGE_CLOCK_H_
