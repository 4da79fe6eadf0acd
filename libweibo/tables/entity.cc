#include "tables/entity.h"

#include <sodium.h>
#include <sqlite3.h>
#include <zlib.h>

#include <limits>

#include "storage/failure.h"
#include "storage/shard.h"
#include "storage/shard_set.h"

namespace weibo {
namespace {

constexpr char kMessageTag[8] = {'m', 's', 'g', 0, 0, 0, 0, 0};

// The SQL of one index table. Names are identifiers checked before they get here
// (flows/entities.cc), so the table name is the only text built into a statement; values
// are always bound.
std::string Sql(const char* before, const std::string& name, const char* after) {
  return std::string(before) + "index_" + name + after;
}

// A statement about one index row, its value and entity id bound to ?1 and ?2.
Stmt& RowStmt(Shard& shard, const std::string& sql, const std::string& value,
              const std::string& entity_id) {
  Stmt& s = shard.Query(sql.c_str());
  s.Bind(1, value);
  s.BindBlob(2, entity_id);
  return s;
}

EntityRow ReadEntity(Stmt& s) {
  return EntityRow{s.Int(0), s.Blob(1), s.Int(2), DecodeEntityBody(s.Blob(3))};
}

}  // namespace

std::string MessageEntityId(int64_t msg_id) {
  std::string id(kMessageTag, sizeof kMessageTag);
  for (int shift = 56; shift >= 0; shift -= 8)
    id.push_back(static_cast<char>((static_cast<uint64_t>(msg_id) >> shift) & 0xff));
  return id;
}

int64_t EntityRouteKey(const std::string& entity_id) {
  uint64_t v = 0;
  for (size_t i = entity_id.size() >= 8 ? entity_id.size() - 8 : 0; i < entity_id.size(); ++i)
    v = (v << 8) | static_cast<unsigned char>(entity_id[i]);
  return static_cast<int64_t>(v & static_cast<uint64_t>(std::numeric_limits<int64_t>::max()));
}

int64_t MessageOfEntity(const std::string& entity_id) {
  if (entity_id.size() != kEntityIdSize || entity_id.compare(0, 8, kMessageTag, 8) != 0) return 0;
  return EntityRouteKey(entity_id);
}

std::string EntityIdHex(const std::string& entity_id) {
  std::string hex(entity_id.size() * 2 + 1, '\0');
  sodium_bin2hex(hex.data(), hex.size(), reinterpret_cast<const unsigned char*>(entity_id.data()),
                 entity_id.size());
  hex.pop_back();
  return hex;
}

std::string EntityIdFromHex(const std::string& hex) {
  std::string id(kEntityIdSize, '\0');
  size_t len = 0;
  if (hex.size() != 2 * kEntityIdSize ||
      sodium_hex2bin(reinterpret_cast<unsigned char*>(id.data()), id.size(), hex.data(), hex.size(),
                     nullptr, &len, nullptr) != 0 ||
      len != kEntityIdSize)
    Fail(Code::kInvalidArgument, "an entity id is 32 hex digits, not '" + hex + "'");
  return id;
}

std::string EncodeEntityBody(const Json& body) {
  if (!body.is_object()) Fail(Code::kInvalidArgument, "an entity body must be a JSON object");
  const std::string text = body.dump();
  if (text.size() > kMaxEntityBody)
    Fail(Code::kInvalidArgument, "an entity body is at most " + std::to_string(kMaxEntityBody) +
                                     " bytes, not " + std::to_string(text.size()));
  uLongf size = compressBound(text.size());
  std::string out(size, '\0');
  if (compress2(reinterpret_cast<Bytef*>(out.data()), &size,
                reinterpret_cast<const Bytef*>(text.data()), text.size(),
                Z_DEFAULT_COMPRESSION) != Z_OK)
    Fail(Code::kStorageError, "zlib could not compress an entity body");
  out.resize(size);
  return out;
}

Json DecodeEntityBody(const std::string& blob) {
  // The body was at most kMaxEntityBody bytes when written: a larger one is not ours.
  std::string text(kMaxEntityBody, '\0');
  uLongf size = text.size();
  Json body;
  if (uncompress(reinterpret_cast<Bytef*>(text.data()), &size,
                 reinterpret_cast<const Bytef*>(blob.data()), blob.size()) == Z_OK) {
    text.resize(size);
    body = Json::parse(text, nullptr, false);
  }
  if (!body.is_object()) Fail(Code::kStorageError, "an entity body is corrupt");
  return body;
}

std::optional<std::string> IndexValue(const Json& body, const std::string& property) {
  auto it = body.find(property);
  if (it == body.end()) return std::nullopt;
  if (it->is_string()) return it->get<std::string>();
  if (it->is_number_integer()) return it->dump();
  return std::nullopt;
}

int EntityValueShard(const std::string& value, int count) {
  const bool digits = !value.empty() && value.size() <= 18 &&
                      value.find_first_not_of("0123456789") == std::string::npos;
  if (digits) return static_cast<int>(std::stoll(value) % count);
  return ShardOfName(value, count);
}

void PutEntity(Shard& shard, const std::string& id, int64_t updated, const Json& body) {
  Stmt& s = shard.Query(
      "INSERT INTO entities(id, updated, body) VALUES (?, ?, ?) "
      "ON CONFLICT(id) DO UPDATE SET updated = excluded.updated, body = excluded.body");
  s.BindBlob(1, id);
  s.Bind(2, updated);
  s.BindBlob(3, EncodeEntityBody(body));
  s.Run();
}

std::optional<EntityRow> GetEntity(Shard& shard, const std::string& id) {
  Stmt& s = shard.Query("SELECT added_id, id, updated, body FROM entities WHERE id = ?");
  s.BindBlob(1, id);
  std::optional<EntityRow> row;
  if (s.Step()) row = ReadEntity(s);
  s.Reset();
  return row;
}

bool DeleteEntity(Shard& shard, const std::string& id) {
  Stmt& s = shard.Query("DELETE FROM entities WHERE id = ?");
  s.BindBlob(1, id);
  return s.Run() > 0;
}

int64_t CountEntities(Shard& shard) {
  return shard.Query("SELECT count(*) FROM entities").IntOr(0);
}

std::vector<EntityRow> EntitiesBefore(Shard& shard, int64_t updated, int64_t added_id,
                                      int64_t limit) {
  Stmt& s = shard.Query(
      "SELECT added_id, id, updated, body FROM entities WHERE (updated, added_id) < (?, ?) "
      "ORDER BY updated DESC, added_id DESC LIMIT ?");
  s.BindAll(updated, added_id, limit);
  std::vector<EntityRow> rows;
  while (s.Step()) rows.push_back(ReadEntity(s));
  s.Reset();
  return rows;
}

void CreateIndexTable(Shard& shard, const std::string& name) {
  shard.Exec(Sql("CREATE TABLE IF NOT EXISTS ", name,
                 "(value TEXT NOT NULL, entity_id BLOB NOT NULL, "
                 "PRIMARY KEY(value, entity_id)) WITHOUT ROWID")
                 .c_str());
  // The cleaner and the write path find an entity's rows by its id.
  shard.Exec(Sql("CREATE INDEX IF NOT EXISTS ", name + "_by_entity ON index_" + name, "(entity_id)")
                 .c_str());
}

void DropIndexTable(Shard& shard, const std::string& name) {
  shard.Exec(Sql("DROP TABLE IF EXISTS ", name, "").c_str());
}

bool IndexTableExists(Shard& shard, const std::string& name) {
  return shard.Query("SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = ?")
      .Bind(1, "index_" + name)
      .Exists();
}

bool InsertIndexRow(Shard& shard, const std::string& name, const std::string& value,
                    const std::string& entity_id) {
  return RowStmt(shard, Sql("INSERT OR IGNORE INTO ", name, "(value, entity_id) VALUES (?, ?)"),
                 value, entity_id)
             .Run() > 0;
}

bool DeleteIndexRow(Shard& shard, const std::string& name, const std::string& value,
                    const std::string& entity_id) {
  return RowStmt(shard, Sql("DELETE FROM ", name, " WHERE value = ? AND entity_id = ?"), value,
                 entity_id)
             .Run() > 0;
}

bool HasIndexRow(Shard& shard, const std::string& name, const std::string& value,
                 const std::string& entity_id) {
  return RowStmt(shard, Sql("SELECT 1 FROM ", name, " WHERE value = ? AND entity_id = ?"), value,
                 entity_id)
      .Exists();
}

std::vector<std::string> IndexEntities(Shard& shard, const std::string& name,
                                       const std::string& value, const std::string& below,
                                       int64_t limit) {
  // No bound: every 16-byte id is below seventeen 0xff bytes.
  const std::string bound = below.empty() ? std::string(kEntityIdSize + 1, '\xff') : below;
  Stmt& s = shard.Query(Sql("SELECT entity_id FROM ", name,
                            " WHERE value = ? AND entity_id < ? ORDER BY entity_id DESC LIMIT ?")
                            .c_str());
  s.Bind(1, value);
  s.BindBlob(2, bound);
  s.Bind(3, limit);
  std::vector<std::string> ids;
  while (s.Step()) ids.push_back(s.Blob(0));
  s.Reset();
  return ids;
}

std::vector<IndexRow> IndexRowsAfter(Shard& shard, const std::string& name, const IndexRow& after,
                                     int64_t limit) {
  Stmt& s = shard.Query(Sql("SELECT value, entity_id FROM ", name,
                            " WHERE (value, entity_id) > (?, ?) ORDER BY value, entity_id LIMIT ?")
                            .c_str());
  s.Bind(1, after.value);
  s.BindBlob(2, after.entity_id);
  s.Bind(3, limit);
  std::vector<IndexRow> rows;
  while (s.Step()) rows.push_back({s.Text(0), s.Blob(1)});
  s.Reset();
  return rows;
}

int64_t CountIndexRows(Shard& shard, const std::string& name) {
  return shard.Query(Sql("SELECT count(*) FROM ", name, "").c_str()).IntOr(0);
}

Json CleanerCursor(Shard& shard, const std::string& task) {
  Stmt& s = shard.Query("SELECT cursor FROM cleaner_progress WHERE task = ?");
  s.Bind(1, task);
  Json cursor;
  if (s.Step()) cursor = Json::parse(s.Text(0), nullptr, false);
  s.Reset();
  return cursor.is_discarded() ? Json() : cursor;
}

void SaveCleanerCursor(Shard& shard, const std::string& task, const Json& cursor) {
  shard.Query("INSERT OR REPLACE INTO cleaner_progress(task, cursor) VALUES (?, ?)")
      .BindAll(task, cursor.dump())
      .Run();
}

void ClearCleanerCursor(Shard& shard, const std::string& task) {
  shard.Query("DELETE FROM cleaner_progress WHERE task = ?").Bind(1, task).Run();
}

}  // namespace weibo
