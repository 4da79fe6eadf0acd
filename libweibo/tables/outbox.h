// outbox: durable jobs for other shards (SPEC §5), and job_applied: the jobs a shard has
// already applied.
//
// A flow writes its own rows and, in the same transaction, one outbox row per change that
// belongs to another shard. A job's global id is (source shard << 40) | local row id. The
// target applies it and records the id in its job_applied table in one transaction, so a
// job applied twice (a crash before the source marked it done) changes nothing the second
// time. Then the source marks it done by deleting its row: a done job is needed by no one
// (AUTOINCREMENT never hands its id out again, so a job_applied mark cannot be mistaken for
// another job's), and kept, the done rows were most of a shard's bytes (weibo-bench archive).
// A deletion lost in a power cut leaves the job pending, to be applied again harmlessly, as
// a lost mark did. Rows of state 1 were those an older build marked done: schema version 15
// deletes them.
#ifndef WEIBO_TABLES_OUTBOX_H_
#define WEIBO_TABLES_OUTBOX_H_

#include <cstdint>
#include <string>
#include <vector>

namespace weibo {

class Shard;

struct JobRow {
  int64_t local_id = 0;
  int source_shard = 0;
  int target_shard = 0;
  std::string kind;
  std::string payload;  // JSON
  int64_t created = 0;
  int state = 0;  // 0 pending; 1 done (by a build before schema 15: done jobs are deleted)

  int64_t global_id() const { return (static_cast<int64_t>(source_shard) << 40) | local_id; }
};

// The kind of the counter deltas (flows/job_payloads.h: CounterDeltaJob::kKind). Schema 16's
// partial index outbox_counter_delta holds only the rows of this kind, by target shard, so
// the live counters (tables/msg_counter.h) and the pages (tables/msg_page.h) read a shard's
// few pending deltas instead of scanning its whole outbox. SQLite uses a partial index only
// for a query whose WHERE names the kind as this literal, not as a bound parameter: those
// statements spell it out, and a unit test checks their plans use the index.
constexpr char kCounterDeltaKind[] = "counter_delta";

// The statement InsertJob runs, bound to target, kind, payload and created: weibo-explain(1)
// finds the jobs a dry run would create by it in the explain log.
extern const char kInsertJobSql[];
// Returns the job's local id.
int64_t InsertJob(Shard& shard, int target, const std::string& kind, const std::string& payload,
                  int64_t now_ms);
bool GetJob(Shard& shard, int64_t local_id, JobRow* row);
// The jobs from local id `from` to `to` (both included) still in the outbox, in id order: one
// statement, so one read transaction, for the jobs a request has just created.
std::vector<JobRow> JobsBetween(Shard& shard, int64_t from, int64_t to);
std::vector<JobRow> PendingJobs(Shard& shard, int64_t limit);
// The same, from the first pending job with an id above after_id.
std::vector<JobRow> PendingJobs(Shard& shard, int64_t after_id, int64_t limit);
// How many of this shard's jobs below `below` are pending (one count over the pending
// index, however many there are).
int64_t CountPendingBelow(Shard& shard, int64_t below);
// The pending jobs of this shard for one target shard with job ids below `below`, oldest
// first, at most limit.
std::vector<JobRow> PendingJobsBefore(Shard& shard, int target, int64_t below, int64_t limit);
int64_t CountJobs(Shard& shard, int state);
// Deletes the job's row (above).
void MarkJobDone(Shard& shard, int64_t local_id);
bool JobApplied(Shard& shard, int64_t global_id);
void RecordJobApplied(Shard& shard, int64_t global_id, int64_t now_ms);

}  // namespace weibo

#endif  // WEIBO_TABLES_OUTBOX_H_
