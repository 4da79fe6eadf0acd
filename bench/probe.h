// Probe: watches the SQLite connections the library opens on shard files, from outside.
//
// The library's executor gives no row counts, so the bench registers an SQLite auto
// extension (sqlite3_auto_extension), which SQLite calls for every connection this process
// opens. A connection to a file named shard-NN.db, opened while the probe is watching, is
// remembered with its shard number; sqlite3_total_changes() of those connections is the
// number of rows the library inserted, updated or deleted. With count_reads, a trace
// callback also counts statements started, result rows returned (rows read) and the shards
// that ran a statement. A closing connection is forgotten through the same trace callback.
//
// This only works while the library itself sets no trace callback, so executors under a
// probe run with explain off. The probe never runs SQL on the library's connections.
#ifndef WEIBO_BENCH_PROBE_H_
#define WEIBO_BENCH_PROBE_H_

#include <bitset>
#include <cstdint>

namespace weibo::bench {

struct ProbeCounters {
  int64_t rows_written = 0;  // inserted, updated or deleted, summed over connections
  int64_t rows_read = 0;     // result rows returned to the library (count_reads)
  int64_t statements = 0;    // statements started, BEGIN and COMMIT included (count_reads)
  std::bitset<256> shards;   // shards that started a statement (count_reads)
  // Shards that started a statement on msg_info or tid_map (count_reads): where the op
  // looked for or wrote the messages themselves, not their authors or readers — seed 003's
  // count of what each sharding strategy must touch.
  std::bitset<256> msg_shards;
};

class Probe {
 public:
  // Registers the auto extension; call before the first connection is opened.
  static void Install();
  // Watch connections opened from now on (or stop); count_reads adds the trace callback.
  static void Watch(bool on, bool count_reads);
  static ProbeCounters Read();
  // Forgets which shards were touched, so that Read() shows those of the next op only.
  static void ClearShards();
};

// Ignores connections opened in its scope (the bench's own read-only ones).
class ProbePause {
 public:
  ProbePause();
  ~ProbePause();

 private:
  bool was_watching_;
};

}  // namespace weibo::bench

#endif  // WEIBO_BENCH_PROBE_H_
