#include "tables/outbox.h"

#include <sqlite3.h>

#include "storage/shard.h"

namespace weibo {
namespace {

JobRow ReadRow(Stmt& s, int source) {
  JobRow r;
  r.local_id = s.Int(0);
  r.source_shard = source;
  r.target_shard = static_cast<int>(s.Int(1));
  r.kind = s.Text(2);
  r.payload = s.Text(3);
  r.created = s.Int(4);
  r.state = static_cast<int>(s.Int(5));
  return r;
}

// Every row s steps through, as read by ReadRow.
std::vector<JobRow> ReadRows(Stmt& s, int source) {
  std::vector<JobRow> rows;
  while (s.Step()) rows.push_back(ReadRow(s, source));
  return rows;
}

}  // namespace

const char kInsertJobSql[] =
    "INSERT INTO outbox(target_shard, kind, payload, created) VALUES (?, ?, ?, ?)";

int64_t InsertJob(Shard& shard, int target, const std::string& kind, const std::string& payload,
                  int64_t now_ms) {
  shard.Query(kInsertJobSql).BindAll(target, kind, payload, now_ms).Run();
  // A pending delta moves a live counter that the servers' caches hold; the update hook
  // says only "a row of outbox" (storage/commit_log.h). Its delete (MarkJobDone) needs no
  // such note: a delta is marked done in the transaction that merges it into its
  // msg_counter row (jobs.cc, ApplyParsed: counter deltas are never deferred, and their
  // target is their own shard), which the hook names; a sum of zero moves nothing.
  if (kind == kCounterDeltaKind) shard.NoteChange(kCounterDeltaKind);
  return sqlite3_last_insert_rowid(shard.db());
}

bool GetJob(Shard& shard, int64_t local_id, JobRow* row) {
  Stmt& s = shard.Query(
      "SELECT job_id, target_shard, kind, payload, created, state FROM outbox WHERE job_id = ?");
  s.Bind(1, local_id);
  bool found = s.Step();
  if (found) *row = ReadRow(s, shard.index());
  s.Reset();
  return found;
}

std::vector<JobRow> JobsBetween(Shard& shard, int64_t from, int64_t to) {
  Stmt& s = shard.Query(
      "SELECT job_id, target_shard, kind, payload, created, state FROM outbox "
      "WHERE job_id BETWEEN ? AND ? ORDER BY job_id");
  s.BindAll(from, to);
  return ReadRows(s, shard.index());
}

std::vector<JobRow> PendingJobs(Shard& shard, int64_t limit) {
  return PendingJobs(shard, 0, limit);
}

std::vector<JobRow> PendingJobs(Shard& shard, int64_t after_id, int64_t limit) {
  Stmt& s = shard.Query(
      "SELECT job_id, target_shard, kind, payload, created, state FROM outbox "
      "WHERE state = 0 AND job_id > ? ORDER BY job_id LIMIT ?");
  s.BindAll(after_id, limit);
  return ReadRows(s, shard.index());
}

int64_t CountPendingBelow(Shard& shard, int64_t below) {
  return shard.Query("SELECT count(*) FROM outbox WHERE state = 0 AND job_id < ?")
      .Bind(1, below)
      .IntOr(0);
}

std::vector<JobRow> PendingJobsBefore(Shard& shard, int target, int64_t below, int64_t limit) {
  Stmt& s = shard.Query(
      "SELECT job_id, target_shard, kind, payload, created, state FROM outbox "
      "WHERE state = 0 AND job_id < ? AND target_shard = ? ORDER BY job_id LIMIT ?");
  s.Bind(1, below).Bind(2, target).Bind(3, limit);
  return ReadRows(s, shard.index());
}

int64_t CountJobs(Shard& shard, int state) {
  // The pending state as a literal, so that the count reads the partial index
  // outbox_pending; a parameter there would re-prepare the statement at every bind
  // (tables/user_relation.cc).
  if (state == 0) return shard.Query("SELECT count(*) FROM outbox WHERE state = 0").IntOr(0);
  return shard.Query("SELECT count(*) FROM outbox WHERE state = ?").Bind(1, state).IntOr(0);
}

void MarkJobDone(Shard& shard, int64_t local_id) {
  shard.Query("DELETE FROM outbox WHERE job_id = ?").Bind(1, local_id).Run();
}

bool JobApplied(Shard& shard, int64_t global_id) {
  return shard.Query("SELECT 1 FROM job_applied WHERE job_id = ?").Bind(1, global_id).Exists();
}

void RecordJobApplied(Shard& shard, int64_t global_id, int64_t now_ms) {
  shard.Query("INSERT OR IGNORE INTO job_applied(job_id, applied) VALUES (?, ?)")
      .BindAll(global_id, now_ms)
      .Run();
}

}  // namespace weibo
