#include "storage/explain_log.h"

#include <algorithm>
#include <cctype>

namespace weibo {
namespace {

// The length of the SQL literal sqlite3_expanded_sql wrote at text[at]: 'quoted' (a quote
// doubled inside), X'hex', NULL, zeroblob(N) or a number; 0 when there is none.
size_t LiteralLength(const std::string& text, size_t at) {
  auto quoted_from = [&](size_t open) -> size_t {
    for (size_t i = open + 1; i < text.size(); ++i) {
      if (text[i] != '\'') continue;
      if (i + 1 < text.size() && text[i + 1] == '\'') {
        ++i;
        continue;
      }
      return i + 1 - at;
    }
    return 0;
  };
  if (at >= text.size()) return 0;
  if (text[at] == '\'') return quoted_from(at);
  if ((text[at] == 'x' || text[at] == 'X') && at + 1 < text.size() && text[at + 1] == '\'')
    return quoted_from(at + 1);
  if (text.compare(at, 4, "NULL") == 0) return 4;
  if (text.compare(at, 9, "zeroblob(") == 0) {
    size_t close = text.find(')', at);
    return close == std::string::npos ? 0 : close + 1 - at;
  }
  size_t end = at;
  while (end < text.size() && (std::isalnum(static_cast<unsigned char>(text[end])) ||
                               text[end] == '-' || text[end] == '+' || text[end] == '.'))
    ++end;
  return end - at;
}

}  // namespace

std::vector<std::string> BoundValues(const std::string& sql, const std::string& expanded) {
  std::vector<std::string> values;
  size_t i = 0, j = 0;
  int highest = 0;  // a bare ? is numbered one past the highest number so far, as in SQLite
  while (i < sql.size()) {
    const char c = sql[i];
    if (c == '?') {
      size_t digits = i + 1;
      while (digits < sql.size() && std::isdigit(static_cast<unsigned char>(sql[digits]))) ++digits;
      int number = digits > i + 1 ? std::stoi(sql.substr(i + 1, digits - i - 1)) : highest + 1;
      size_t length = LiteralLength(expanded, j);
      if (number < 1 || length == 0) return {};
      highest = std::max(highest, number);
      if (values.size() < static_cast<size_t>(number)) values.resize(number);
      values[number - 1] = expanded.substr(j, length);
      i = digits;
      j += length;
      continue;
    }
    if (j >= expanded.size() || expanded[j] != c) return {};
    ++i;
    ++j;
    if (c == '\'' || c == '"') {  // a literal or identifier of the text itself: no parameters
      while (i < sql.size() && j < expanded.size() && sql[i] == expanded[j]) {
        const bool closing = sql[i] == c;
        ++i;
        ++j;
        if (closing) break;
      }
    }
  }
  return j == expanded.size() ? values : std::vector<std::string>{};
}

std::vector<std::string> ExplainLog::Lines() const {
  std::vector<std::string> lines;
  lines.reserve(runs_.size());
  for (const StatementRun& run : runs_) lines.push_back(run.shard + ": " + run.sql);
  return lines;
}

void ExplainLog::Clear() {
  runs_.clear();
  open_.clear();
  phase_.clear();
}

void ExplainLog::Started(const void* stmt, const std::string& shard, const char* sql,
                         const char* expanded, int64_t total_changes) {
  StatementRun run;
  run.shard = shard;
  run.sql = sql;
  if (expanded != nullptr) run.values = BoundValues(run.sql, expanded);
  run.phase = phase_;
  open_[stmt] = Open{runs_.size(), total_changes};
  runs_.push_back(std::move(run));
}

void ExplainLog::Row(const void* stmt) {
  auto it = open_.find(stmt);
  if (it != open_.end()) ++runs_[it->second.run].rows_read;
}

void ExplainLog::Finished(const void* stmt, bool writes, int64_t total_changes) {
  auto it = open_.find(stmt);
  if (it == open_.end()) return;
  if (writes) runs_[it->second.run].rows_written = total_changes - it->second.changes_at_start;
  open_.erase(it);
}

std::vector<StatementGroup> GroupStatements(const std::vector<const StatementRun*>& runs) {
  std::vector<StatementGroup> groups;
  for (const StatementRun* run : runs) {
    auto it = std::find_if(groups.begin(), groups.end(),
                           [&](const StatementGroup& g) { return g.sql == run->sql; });
    if (it == groups.end()) it = groups.insert(groups.end(), StatementGroup{run->sql, {}, {}});
    it->runs.push_back(run);
    if (std::find(it->shards.begin(), it->shards.end(), run->shard) == it->shards.end())
      it->shards.push_back(run->shard);
    it->rows_read += run->rows_read;
    it->rows_written += run->rows_written;
  }
  return groups;
}

}  // namespace weibo
