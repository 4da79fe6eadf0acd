// ExplainLog: every statement the shards of one ShardSet run, in the order they run, for
// --explain (each command) and weibo-explain(1) (a dry run of one).
//
// It is filled by SQLite's own trace hooks on each connection (Shard, shard.cc), so what it
// holds is what SQLite ran, not what the code meant to run: a statement is logged when its
// first step starts (SQLITE_TRACE_STMT), counts the rows it returns (SQLITE_TRACE_ROW), and
// learns the rows it changed when it ends or is reset (SQLITE_TRACE_PROFILE), from the
// connection's sqlite3_total_changes() then and at its start. Statements are told apart by
// their sqlite3_stmt while they run: a SELECT may be stepped between the runs of others.
#ifndef WEIBO_STORAGE_EXPLAIN_LOG_H_
#define WEIBO_STORAGE_EXPLAIN_LOG_H_

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

namespace weibo {

// One run of one statement.
struct StatementRun {
  std::string shard;  // the file's name(): "shard-03", "search-03"
  std::string sql;    // as prepared, with its ? placeholders
  // The values bound to its parameters, by number (?1 first), each as an SQL literal:
  // 42, 'text' (quotes doubled), X'0A0B', NULL — as sqlite3_expanded_sql writes them.
  std::vector<std::string> values;
  int64_t rows_read = 0;     // rows it returned
  int64_t rows_written = 0;  // rows it inserted, updated or deleted
  std::string phase;         // the log's phase when it ran ("" or, say, "drain")
};

class ExplainLog {
 public:
  const std::vector<StatementRun>& runs() const { return runs_; }
  // One line a run, "shard-03: SELECT ...": what --explain prints.
  std::vector<std::string> Lines() const;
  void Clear();
  // Tags the runs that start from now on (Context::Settle marks its drain "drain").
  void set_phase(std::string phase) { phase_ = std::move(phase); }
  const std::string& phase() const { return phase_; }

  // The trace hooks of a connection (shard.cc). stmt identifies a run until Finished.
  // expanded is sqlite3_expanded_sql's text (nullptr when SQLite could not make it).
  void Started(const void* stmt, const std::string& shard, const char* sql, const char* expanded,
               int64_t total_changes);
  void Row(const void* stmt);
  // writes: the statement may change rows (not sqlite3_stmt_readonly); a read's count stays
  // 0, since writes of other statements may have run while it was being stepped.
  void Finished(const void* stmt, bool writes, int64_t total_changes);

 private:
  struct Open {
    size_t run;
    int64_t changes_at_start;
  };
  std::vector<StatementRun> runs_;
  std::unordered_map<const void*, Open> open_;
  std::string phase_;
};

// The values sqlite3_expanded_sql put in place of sql's parameters (?, ?NNN), by parameter
// number, as SQL literals. Empty when the two texts do not line up.
std::vector<std::string> BoundValues(const std::string& sql, const std::string& expanded);

// Runs grouped by their SQL text, in the order each text first ran, as weibo-sim's
// --explain groups them ("13x on 4 shards: SELECT ..."): the runs, the shards they ran on
// (in first-run order) and their rows.
struct StatementGroup {
  std::string sql;
  std::vector<const StatementRun*> runs;
  std::vector<std::string> shards;
  int64_t rows_read = 0, rows_written = 0;
};
std::vector<StatementGroup> GroupStatements(const std::vector<const StatementRun*>& runs);

}  // namespace weibo

#endif  // WEIBO_STORAGE_EXPLAIN_LOG_H_
