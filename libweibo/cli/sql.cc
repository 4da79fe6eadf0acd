// weibo-sql: a read-only SQL query over one shard or every shard (weibo-sql(1)).
//
// Why not plain sqlite3: its connection checkpoints the WAL when it closes and then
// deletes the -wal and -shm files, which is exactly what weibo never does implicitly (the
// WAL-reset race, README "Design choices"); it also writes if asked to. Here every shard
// is opened with SQLITE_OPEN_READONLY and with checkpoint-on-close off, each statement is
// refused before it runs unless sqlite3_stmt_readonly says it changes nothing, and the
// cluster's shared lock is held so that weibo-init --force waits until the query ends.
#include <sqlite3.h>
#include <utf8proc.h>

#include <algorithm>
#include <fstream>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>

#include "storage/failure.h"
#include "storage/files.h"
#include "storage/shard_set.h"
#include "weibo/cli.h"
#include "weibo/version.h"

namespace weibo::cli {
namespace {

using Ordered = nlohmann::ordered_json;  // a row keeps its columns in the query's order

// A row's cell as text, for the table, and as JSON.
struct Cell {
  std::string text;
  Ordered json;
};

struct Block {  // the rows of one statement on one shard
  int shard;
  std::vector<std::string> columns;
  std::vector<std::vector<Cell>> rows;
};

Cell ReadCell(sqlite3_stmt* stmt, int i) {
  switch (sqlite3_column_type(stmt, i)) {
    case SQLITE_NULL:
      return {"NULL", nullptr};
    case SQLITE_INTEGER: {
      const sqlite3_int64 v = sqlite3_column_int64(stmt, i);
      // Ids use all 63 bits; a JSON reader with doubles (jq) would round those past 2^53,
      // so they are strings there, as in every weibo command's --json.
      constexpr sqlite3_int64 kExact = sqlite3_int64{1} << 53;
      return {std::to_string(v),
              v > -kExact && v < kExact ? Ordered(v) : Ordered(std::to_string(v))};
    }
    case SQLITE_FLOAT: {
      const double v = sqlite3_column_double(stmt, i);
      return {Ordered(v).dump(), v};
    }
    case SQLITE_BLOB: {
      const auto* p = static_cast<const unsigned char*>(sqlite3_column_blob(stmt, i));
      const int n = sqlite3_column_bytes(stmt, i);
      std::string hex = "X'";
      static const char* kDigits = "0123456789ABCDEF";
      for (int k = 0; k < n; ++k) {
        hex += kDigits[p[k] >> 4];
        hex += kDigits[p[k] & 15];
      }
      hex += "'";
      return {hex, hex};
    }
    default: {
      const auto* p = reinterpret_cast<const char*>(sqlite3_column_text(stmt, i));
      std::string s(p, static_cast<size_t>(sqlite3_column_bytes(stmt, i)));
      std::string shown;  // one row a line in the table
      for (char c : s) shown += c == '\n' ? std::string("\\n") : std::string(1, c);
      return {shown, s};
    }
  }
}

class ReadOnlyShard {
 public:
  explicit ReadOnlyShard(const std::string& path) {
    int rc =
        sqlite3_open_v2(path.c_str(), &db_, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX, nullptr);
    if (rc != SQLITE_OK)
      Fail(Code::kStorageError,
           "cannot open " + path + ": " + (db_ ? sqlite3_errmsg(db_) : sqlite3_errstr(rc)));
    sqlite3_db_config(db_, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 1, nullptr);
    sqlite3_busy_timeout(db_, 5000);
    sqlite3_exec(db_, "PRAGMA query_only=1", nullptr, nullptr, nullptr);
  }
  ~ReadOnlyShard() { sqlite3_close_v2(db_); }
  ReadOnlyShard(const ReadOnlyShard&) = delete;
  ReadOnlyShard& operator=(const ReadOnlyShard&) = delete;

  // Runs every statement of sql, appending one Block each that returns columns.
  void Run(int shard, const std::string& sql, std::vector<Block>* out) {
    const char* tail = sql.c_str();
    while (*tail != '\0') {
      sqlite3_stmt* stmt = nullptr;
      const char* start = tail;
      if (sqlite3_prepare_v2(db_, tail, -1, &stmt, &tail) != SQLITE_OK)
        Fail(Code::kInvalidArgument, sqlite3_errmsg(db_));
      if (stmt == nullptr) continue;  // whitespace or a comment
      std::unique_ptr<sqlite3_stmt, int (*)(sqlite3_stmt*)> owned(stmt, sqlite3_finalize);
      if (!sqlite3_stmt_readonly(stmt))
        Fail(Code::kInvalidArgument, "weibo-sql only reads, and this statement would write: " +
                                         std::string(start, static_cast<size_t>(tail - start)) +
                                         " (the weibo-* commands change a cluster)");
      Block block{shard, {}, {}};
      for (int i = 0; i < sqlite3_column_count(stmt); ++i)
        block.columns.push_back(sqlite3_column_name(stmt, i));
      int rc;
      while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
        std::vector<Cell>& row = block.rows.emplace_back();
        for (int i = 0; i < sqlite3_column_count(stmt); ++i) row.push_back(ReadCell(stmt, i));
      }
      if (rc != SQLITE_DONE) Fail(Code::kStorageError, sqlite3_errmsg(db_));
      if (!block.columns.empty()) out->push_back(std::move(block));
    }
  }

 private:
  sqlite3* db_ = nullptr;
};

size_t Width(const std::string& s) {  // terminal columns: a CJK character takes two
  size_t width = 0;
  const auto* p = reinterpret_cast<const utf8proc_uint8_t*>(s.data());
  utf8proc_ssize_t left = static_cast<utf8proc_ssize_t>(s.size());
  while (left > 0) {
    utf8proc_int32_t c;
    utf8proc_ssize_t n = utf8proc_iterate(p, left, &c);
    if (n <= 0) return width + static_cast<size_t>(left);
    width += static_cast<size_t>(std::max(0, utf8proc_charwidth(c)));
    p += n;
    left -= n;
  }
  return width;
}

// Aligned columns under a header, shard first; a header again wherever the columns change
// (a second statement).
std::string Table(const std::vector<Block>& blocks) {
  std::string out;
  for (size_t b = 0; b < blocks.size();) {
    size_t e = b;
    while (e < blocks.size() && blocks[e].columns == blocks[b].columns) ++e;
    std::vector<std::vector<std::string>> lines;
    std::vector<std::string> header{"shard"};
    header.insert(header.end(), blocks[b].columns.begin(), blocks[b].columns.end());
    lines.push_back(header);
    for (size_t k = b; k < e; ++k)
      for (const auto& row : blocks[k].rows) {
        std::vector<std::string> line{std::to_string(blocks[k].shard)};
        for (const Cell& c : row) line.push_back(c.text);
        lines.push_back(line);
      }
    if (lines.size() == 1) {  // no rows: nothing, as every command prints an empty list
      b = e;
      continue;
    }
    std::vector<size_t> widths(header.size(), 0);
    for (const auto& line : lines)
      for (size_t i = 0; i < line.size(); ++i) widths[i] = std::max(widths[i], Width(line[i]));
    if (!out.empty()) out += "\n";
    for (const auto& line : lines) {
      std::string text;
      for (size_t i = 0; i < line.size(); ++i) {
        text += line[i];
        if (i + 1 < line.size()) text += std::string(widths[i] - Width(line[i]) + 2, ' ');
      }
      out += text + "\n";
    }
    b = e;
  }
  return out;
}

Ordered JsonRows(const std::vector<Block>& blocks) {
  Ordered rows = Ordered::array();
  for (const Block& block : blocks)
    for (const auto& row : block.rows) {
      Ordered object = {{"shard", block.shard}};
      for (size_t i = 0; i < row.size(); ++i) object[block.columns[i]] = row[i].json;
      rows.push_back(std::move(object));
    }
  return rows;
}

}  // namespace

int SqlMain(int argc, char** argv) {
  const std::string program = "weibo-sql";
  CLI::App app("Run a read-only SQL query on one shard or on every shard.", program);
  app.set_version_flag("--version", program + " " + kVersion);
  std::string sql, data;
  int shard = -1;
  bool all = false, json = false;
  app.add_option("SQL", sql, "the query: SELECT, PRAGMA or EXPLAIN statements that only read")
      ->required();
  CLI::Option* one =
      app.add_option("--shard", shard, "query this shard only (0 to N-1)")->type_name("N");
  app.add_flag("--all", all, "query every shard (the default)")->excludes(one);
  CLI::Option* data_option = AddDataOption(app, &data);
  app.add_flag("--json", json, "print the rows as one JSON array of objects");
  std::string jq_expression;
  app.add_option("--jq", jq_expression,
                 "print what the jq expression EXPR makes of the JSON rows (implies --json)")
      ->type_name("EXPR");
  app.footer(
      "Examples:\n  weibo-sql \"SELECT user_id, user_name FROM user_name\"\n  weibo-sql --shard 1 "
      "--json \"SELECT count(*) AS pending FROM outbox WHERE state = 0\"");
  if (auto exit = ParseArgs(app, argc, argv, [&] { return json || !jq_expression.empty(); }))
    return *exit;
  std::unique_ptr<Jq> jq;
  if (!jq_expression.empty()) {
    jq = std::make_unique<Jq>(jq_expression);
    if (!jq->Check().ok()) return ReportError(program, jq->Check(), true);
    json = true;
  }
  const std::string dir = DataDir(data_option, data);
  try {
    std::ifstream in(dir + "/cluster.json");
    if (!in)
      Fail(Code::kStorageError,
           "no cluster in " + dir + ": cluster.json is missing (run weibo-init)");
    const Json j = Json::parse(in, nullptr, false);
    if (j.is_discarded()) Fail(Code::kStorageError, dir + "/cluster.json is not valid JSON");
    const ClusterConfig config = ClusterConfig::FromJson(j);
    if (one->count() > 0 && (shard < 0 || shard >= config.shards))
      Fail(Code::kInvalidArgument, "--shard must be from 0 to " +
                                       std::to_string(config.shards - 1) + " in this cluster of " +
                                       std::to_string(config.shards));
    ClusterLock lock = ClusterLock::Shared(dir);
    std::vector<Block> blocks;
    for (int s = 0; s < config.shards; ++s) {
      if (one->count() > 0 && s != shard) continue;
      ReadOnlyShard(dir + "/" + ShardFileName(s, config.shards)).Run(s, sql, &blocks);
    }
    if (jq) {
      std::string out;
      Status filtered = jq->Run(JsonRows(blocks).dump(), &out);
      std::cout << out;
      if (!filtered.ok()) return ReportError(program, filtered, true);
      return 0;
    }
    std::cout << (json ? JsonRows(blocks).dump() + "\n" : Table(blocks));
    return 0;
  } catch (const Failure& f) {
    return ReportError(program, f.status(), json);
  }
}

}  // namespace weibo::cli
