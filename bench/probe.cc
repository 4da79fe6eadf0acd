#include "probe.h"

#include <sqlite3.h>

#include <cstdio>
#include <cstring>
#include <list>
#include <string>

namespace weibo::bench {
namespace {

struct Connection {
  sqlite3* db;
  int shard;
};

struct State {
  bool installed = false, watching = false, count_reads = false;
  std::list<Connection> connections;  // stable addresses: the trace callback's context
  int64_t rows_read = 0, statements = 0;
  std::bitset<256> shards, msg_shards;
};

State& S() {
  static State state;
  return state;
}

// "…/shard-03.db" -> 3; -1 for any other file.
int ShardOfPath(const char* path) {
  if (path == nullptr) return -1;
  const char* base = std::strrchr(path, '/');
  base = base ? base + 1 : path;
  int index = -1, consumed = 0;
  if (std::sscanf(base, "shard-%d.db%n", &index, &consumed) != 1 || base[consumed] != '\0')
    return -1;
  return index >= 0 && index < 256 ? index : -1;
}

int OnTrace(unsigned type, void* context, void*, void* x) {
  auto* c = static_cast<Connection*>(context);
  State& s = S();
  if (type == SQLITE_TRACE_STMT) {
    ++s.statements;
    s.shards.set(static_cast<size_t>(c->shard));
    // x: the statement's unexpanded SQL text (or a trigger's comment).
    const char* sql = static_cast<const char*>(x);
    if (sql != nullptr && (std::strstr(sql, "msg_info") || std::strstr(sql, "tid_map")))
      s.msg_shards.set(static_cast<size_t>(c->shard));
  } else if (type == SQLITE_TRACE_ROW) {
    ++s.rows_read;
  } else if (type == SQLITE_TRACE_CLOSE) {
    s.connections.remove_if([c](const Connection& x) { return &x == c; });
  }
  return 0;
}

int OnOpen(sqlite3* db, const char**, const sqlite3_api_routines*) {
  State& s = S();
  if (!s.watching) return SQLITE_OK;
  int shard = ShardOfPath(sqlite3_db_filename(db, "main"));
  if (shard < 0) return SQLITE_OK;
  s.connections.push_back({db, shard});
  unsigned mask = SQLITE_TRACE_CLOSE | (s.count_reads ? SQLITE_TRACE_STMT | SQLITE_TRACE_ROW : 0);
  sqlite3_trace_v2(db, mask, OnTrace, &s.connections.back());
  return SQLITE_OK;
}

}  // namespace

void Probe::Install() {
  State& s = S();
  if (s.installed) return;
  sqlite3_auto_extension(reinterpret_cast<void (*)()>(OnOpen));
  s.installed = true;
}

void Probe::Watch(bool on, bool count_reads) {
  S().watching = on;
  S().count_reads = count_reads;
}

ProbeCounters Probe::Read() {
  const State& s = S();
  ProbeCounters c;
  for (const auto& conn : s.connections) c.rows_written += sqlite3_total_changes(conn.db);
  c.rows_read = s.rows_read;
  c.statements = s.statements;
  c.shards = s.shards;
  c.msg_shards = s.msg_shards;
  return c;
}

void Probe::ClearShards() {
  S().shards.reset();
  S().msg_shards.reset();
}

ProbePause::ProbePause() : was_watching_(S().watching) { S().watching = false; }
ProbePause::~ProbePause() { S().watching = was_watching_; }

}  // namespace weibo::bench
