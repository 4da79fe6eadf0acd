// msg_counter (seed 004): one compact row of counters per message, beside its msg_info.
//
// commented_count and transferred_count only grow (they number comments and reposts, and
// so fix their page_index); comment_count and transfer_count are the live ones and drop
// when a comment or repost is deleted. like_count and view_count feed SPEC §6.
#ifndef WEIBO_TABLES_MSG_COUNTER_H_
#define WEIBO_TABLES_MSG_COUNTER_H_

#include <cstdint>
#include <optional>
#include <vector>

namespace weibo {

class Shard;
class Stmt;

struct CounterRow {
  int64_t msg_id = 0;
  int64_t commented = 0, comments = 0, transferred = 0, transfers = 0, likes = 0, views = 0;
};

// The row from a statement's columns first.. first+6: msg_id, then the counters in
// msg_counter's column order.
CounterRow ReadCounterRow(Stmt& s, int first);
void InitCounter(Shard& shard, int64_t msg_id);
std::optional<CounterRow> GetCounter(Shard& shard, int64_t msg_id);
// The row as a reader sees it: like_count and view_count with the deltas of the message
// still pending in its own shard's outbox (jobs of kind kCounterDeltaKind, tables/outbox.h,
// payload {"msg_id", "likes", "views"}) added, read in one statement, so one snapshot
// (flows/like.cc).
std::optional<CounterRow> GetLiveCounter(Shard& shard, int64_t msg_id);
// Adds deltas to a message's counters; false when the message has no counter row.
bool AddCounter(Shard& shard, const CounterRow& delta);
void DeleteCounter(Shard& shard, int64_t msg_id);
void SetCounter(Shard& shard, const CounterRow& row);
std::vector<CounterRow> AllCounters(Shard& shard);

}  // namespace weibo

#endif  // WEIBO_TABLES_MSG_COUNTER_H_
