// The raw-insert baseline: how fast this machine's SQLite takes rows of the inbox's shape,
// with none of the library around it — the practical limit a fan-out is compared with.
//
// A fresh database in WAL mode with synchronous=FULL (as every shard), the same table as
// msg_index (user_id, msg_id, author_id, time, WITHOUT ROWID, the same primary key and,
// like msg_index since schema version 8, no other index), and one BEGIN IMMEDIATE ... COMMIT per
// batch, where the batches are the fan-out's per-shard groups of the workload
// (TraceModel::batches), so the rows per transaction — and so the fsyncs per row — are those of a
// push fan-out.
#ifndef WEIBO_BENCH_RAW_INSERT_H_
#define WEIBO_BENCH_RAW_INSERT_H_

#include <cstdint>
#include <string>
#include <vector>

#include "model.h"
#include "weibo/request.h"
#include "weibo/status.h"

namespace weibo::bench {

struct RawInsertResult {
  int64_t transactions = 0, rows = 0;
  double seconds = 0;
  double RowsPerSecond() const { return seconds > 0 ? rows / seconds : 0; }
  double RowsPerTransaction() const { return transactions > 0 ? double(rows) / transactions : 0; }
  Json ToJson() const;
};

// Inserts `transactions` batches (the model's, cycled; one row a batch if it has none)
// into dir/raw-insert.db, which must not exist.
Result<RawInsertResult> RunRawInsert(const std::string& dir, const std::vector<FanBatch>& batches,
                                     int64_t transactions);

}  // namespace weibo::bench

#endif  // WEIBO_BENCH_RAW_INSERT_H_
