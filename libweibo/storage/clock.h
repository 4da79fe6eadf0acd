// Clock: the one source of time (ids, created, last_active). A fixed clock (--now,
// WEIBO_NOW) makes every id and time deterministic, so golden output is byte-stable.
#ifndef WEIBO_STORAGE_CLOCK_H_
#define WEIBO_STORAGE_CLOCK_H_

#include <cstdint>

#include "weibo/time.h"  // ParseTime, FormatTime

namespace weibo {

class Clock {
 public:
  explicit Clock(int64_t fixed_ms = 0) : fixed_ms_(fixed_ms) {}
  int64_t NowMs() const;

 private:
  int64_t fixed_ms_;
};

}  // namespace weibo

#endif  // WEIBO_STORAGE_CLOCK_H_
