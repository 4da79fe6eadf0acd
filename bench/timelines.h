// The sim's correctness check: every user's home timeline must be item for item the same
// in every feed mode, since a feed mode may only change where a timeline is read from
// (weibo-timeline(1)), never what it holds.
#ifndef WEIBO_BENCH_TIMELINES_H_
#define WEIBO_BENCH_TIMELINES_H_

#include <cstdint>
#include <string>
#include <vector>

#include "weibo/request.h"

namespace weibo::bench {

// Per user (index id - 1), the items newest first, each as its trace reference k ("#k"),
// or as -id for an id no op of the trace returned.
using Timelines = std::vector<std::vector<int64_t>>;

// Walks every user's home timeline with max_id pages of 200, up to max_items items each.
Result<Timelines> CollectTimelines(Executor& executor, int64_t users,
                                   const std::vector<int64_t>& message_ids, int64_t max_items);

struct Comparison {
  int64_t users = 0, items = 0;  // compared, in the first mode
  int64_t users_differing = 0;
  std::vector<std::string> reports;  // the first few differences, one line each
};

Comparison CompareTimelines(const std::vector<std::string>& feeds,
                            const std::vector<Timelines>& timelines, size_t max_reports);

}  // namespace weibo::bench

#endif  // WEIBO_BENCH_TIMELINES_H_
