// The per-shard schema and its migrations, versioned with PRAGMA user_version.
#ifndef WEIBO_STORAGE_SCHEMA_H_
#define WEIBO_STORAGE_SCHEMA_H_

#include <cstdint>

namespace weibo {

class Shard;

// "WEIB": PRAGMA application_id of every shard file; a file without it is foreign.
constexpr int32_t kApplicationId = 0x57454942;

// The schema version this build writes and understands.
int64_t SchemaVersion();

// Brings a shard to SchemaVersion(), each step in one BEGIN IMMEDIATE transaction.
// Fails with storage_error for a foreign file or a newer schema than this build knows.
void Migrate(Shard& shard, bool fresh);

// "WEIS": PRAGMA application_id of every search file (search-NN.db).
constexpr int32_t kSearchApplicationId = 0x57454953;
// Creates or brings a search file to this build's search schema (schema.cc,
// kSearchMigrations); the file must be in WAL mode already.
void MigrateSearch(Shard& shard);

}  // namespace weibo

#endif  // WEIBO_STORAGE_SCHEMA_H_
