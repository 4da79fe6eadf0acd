// entities and index_<name>: FriendFeed's schemaless store (seed 001, SPEC §9).
//
// entities(added_id, id, updated, body) is on every shard. id is 16 bytes; its last 8, read
// as a big-endian integer, route it as a message id does (the gene method): an entity of
// message M has the id "msg" + five zero bytes + M, and lives on M's shard. body is a
// JSON object compressed with zlib, at most kMaxEntityBody bytes before compression; the
// body is the truth, and every index is derived from it.
//
// index_<name>(value, entity_id) holds one row per entity whose body has the index's
// property (a string, or an integer written in decimal), on the shard of the entity's
// shard_on property (EntityValueShard). An index may be briefly wrong — a row not written
// yet, or left behind by a change — so a read through it re-checks the entity (flows/
// entities.cc), and weibo-cleaner(1) repairs it. Rows are ordered by entity_id, so a
// message's rows come newest first when read backwards.
//
// cleaner_progress(task, cursor): where a walk of weibo-cleaner(1) over this shard stopped.
#ifndef WEIBO_TABLES_ENTITY_H_
#define WEIBO_TABLES_ENTITY_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "weibo/storage.h"

namespace weibo {

class Shard;

constexpr size_t kEntityIdSize = 16;
constexpr size_t kMaxEntityBody = 64 * 1024;

// The entity of a message: "msg", five zero bytes, then the id big-endian.
std::string MessageEntityId(int64_t msg_id);
// The message of an entity id made by MessageEntityId, or 0 for any other id.
int64_t MessageOfEntity(const std::string& entity_id);
// The integer an id routes by (its last 8 bytes, big-endian): the shard is this mod N.
int64_t EntityRouteKey(const std::string& entity_id);
std::string EntityIdHex(const std::string& entity_id);
// The id of 32 hex digits; Failure(invalid_argument) for anything else.
std::string EntityIdFromHex(const std::string& hex);

// zlib of the object's JSON text. Failure(invalid_argument) when body is not a JSON object
// or its text is over kMaxEntityBody bytes.
std::string EncodeEntityBody(const Json& body);
// The object back; Failure(storage_error) when blob is not one EncodeEntityBody made.
Json DecodeEntityBody(const std::string& blob);

// A property's value as an index holds it: a string as itself, an integer in decimal;
// nullopt for a missing property or any other type (not indexed).
std::optional<std::string> IndexValue(const Json& body, const std::string& property);
// The shard an index row of this shard_on value lives on: an integer's value mod count (an
// index on user_id lands on the user's shard), anything else by BLAKE2b-64 as a name.
int EntityValueShard(const std::string& value, int count);

struct EntityRow {
  int64_t added_id = 0;
  std::string id;  // 16 bytes
  int64_t updated = 0;
  Json body;
};

// Inserts or replaces the entity (a replaced one keeps its added_id).
void PutEntity(Shard& shard, const std::string& id, int64_t updated, const Json& body);
std::optional<EntityRow> GetEntity(Shard& shard, const std::string& id);
bool DeleteEntity(Shard& shard, const std::string& id);
int64_t CountEntities(Shard& shard);
// Up to limit entities older than (updated, added_id) — exclusive — newest first; the
// walk of the cleaner. Start with (INT64_MAX, INT64_MAX).
std::vector<EntityRow> EntitiesBefore(Shard& shard, int64_t updated, int64_t added_id,
                                      int64_t limit);

// index_<name>: name must already be an identifier (flows/entities.cc checks it).
void CreateIndexTable(Shard& shard, const std::string& name);
void DropIndexTable(Shard& shard, const std::string& name);
bool IndexTableExists(Shard& shard, const std::string& name);
// INSERT OR IGNORE / DELETE of one row: both idempotent. Return whether a row changed.
bool InsertIndexRow(Shard& shard, const std::string& name, const std::string& value,
                    const std::string& entity_id);
bool DeleteIndexRow(Shard& shard, const std::string& name, const std::string& value,
                    const std::string& entity_id);
bool HasIndexRow(Shard& shard, const std::string& name, const std::string& value,
                 const std::string& entity_id);
// The entity ids of value's rows below `below` (exclusive; "" for no bound), greatest
// first, at most limit.
std::vector<std::string> IndexEntities(Shard& shard, const std::string& name,
                                       const std::string& value, const std::string& below,
                                       int64_t limit);

struct IndexRow {
  std::string value;
  std::string entity_id;
};
// Rows after (value, entity_id) in key order, at most limit; ("", "") starts at the first.
std::vector<IndexRow> IndexRowsAfter(Shard& shard, const std::string& name, const IndexRow& after,
                                     int64_t limit);
int64_t CountIndexRows(Shard& shard, const std::string& name);

// cleaner_progress: the task's saved cursor (a JSON value), or null; Save/Clear in the
// caller's write transaction.
Json CleanerCursor(Shard& shard, const std::string& task);
void SaveCleanerCursor(Shard& shard, const std::string& task, const Json& cursor);
void ClearCleanerCursor(Shard& shard, const std::string& task);

}  // namespace weibo

#endif  // WEIBO_TABLES_ENTITY_H_
