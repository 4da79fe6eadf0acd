// The entity store's write and read paths (seed 001, FriendFeed; tables/entity.h), shared
// by the message flows (attributes), weibo-find, weibo-cleaner and fsck.
#ifndef WEIBO_FLOWS_ENTITIES_H_
#define WEIBO_FLOWS_ENTITIES_H_

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "flows/job_payloads.h"
#include "jobs/context.h"

namespace weibo {

// Failure(invalid_argument) unless name is an identifier: a lowercase ASCII letter, then
// lowercase letters, digits and '_', 1 to 32 in all. `what` names it in the message.
void CheckIdentifier(const char* what, const std::string& name);

// The attributes of --attr KEY=VALUE ... as an object. Failure(invalid_argument) for a pair
// without '=', a key that is not an identifier, a key given twice, a value with invalid
// UTF-8 or a control character, or attributes over the entity body limit together.
Json AttrsOf(const Json& pairs);
// AttrsOf of args' "attrs" (post, repost, comment), or null when there are none.
Json AttrsArg(const Json& args);

// Where an entity's row of an index goes: the value and the shard (of shard_on's value);
// nullopt when the body lacks either property (the entity is not in that index).
struct IndexPlacement {
  std::string value;
  int shard;
};
std::optional<IndexPlacement> PlaceIndexRow(const IndexSpec& index, const Json& body, int count);

// In shard's open write transaction (shard = the entity's own): the entity first, then its
// row of every declared index — in the same transaction when the row lives on this shard,
// else as an index_row job (the outbox) — and the removal of the rows its old body had.
void WriteEntity(Context& ctx, Shard& shard, const std::string& id, const Json& body);
// In shard's open write transaction: deletes the entity and, likewise, its index rows.
void RemoveEntity(Context& ctx, Shard& shard, const std::string& id);
// A message's attributes (its entity's body), or null when it has none.
Json MessageAttrs(Context& ctx, int64_t msg_id);
void ApplyIndexRow(Context& ctx, Shard& target, const IndexRowJob& job);

// The declared index of that name, or nullptr.
const IndexSpec* FindIndex(Context& ctx, const std::string& name);

// Index drift (flows/cleaner.cc): a row missing or stale, and the fix that repairs it.
struct IndexDrift {
  std::string detail;
  int shard;   // where the fix writes
  bool stale;  // a stale row (the fix deletes it), else a missing one (the fix adds it)
  std::function<void(Shard&)> fix;
};
// Every missing and stale row of every index, across all shards (fsck's check).
std::vector<IndexDrift> FindIndexDrift(Context& ctx);

}  // namespace weibo

#endif  // WEIBO_FLOWS_ENTITIES_H_
