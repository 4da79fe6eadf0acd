// The entity store (seed 001, FriendFeed; tables/entity.h) and weibo-index(1).
//
// Writes: the entity first, in the writer's own transaction on the entity's shard (a
// message's: the message's shard), then one row per declared index on the shard of the
// entity's shard_on value — in that same transaction when it is the same shard, else as an
// index_row job in the outbox, applied by the drain like every other job. There is no
// transaction across shards: the body is the truth, an index may lag it, and a read through
// an index re-checks the property against the body (flows/find.cc), so a result is never
// wrong; weibo-cleaner(1) mends what a crash or a change of the declared indexes left.
//
// weibo-index add/list/drop: the declarations live in cluster.json (ShardSet::Indexes,
// read again by running processes when the file changes). add creates index_<name> on
// every shard before it declares it, drop undeclares before it drops the tables, so a
// writer that sees a declaration finds its table; both rewrite cluster.json holding shard
// 0's write lock, so two of them never lose each other's change.
#include "flows/entities.h"

#include <algorithm>

#include "storage/failure.h"
#include "tables/entity.h"

namespace weibo {
namespace {

constexpr size_t kMaxIdentifier = 32;

void PlaceRow(Context& ctx, Shard& shard, const IndexSpec& index, const IndexPlacement& place,
              const std::string& id, bool remove) {
  if (place.shard != shard.index()) {
    Enqueue(ctx, shard, place.shard, IndexRowJob{index.name, place.value, EntityIdHex(id), remove});
    return;
  }
  // A process may still hold a declaration whose table weibo-index drop has just removed.
  if (!IndexTableExists(shard, index.name)) return;
  if (remove)
    DeleteIndexRow(shard, index.name, place.value, id);
  else
    InsertIndexRow(shard, index.name, place.value, id);
}

// Rows of the old body no longer in the new one are removed; the new body's rows are
// (re)written, which also fills a row that was missing.
void PlaceRows(Context& ctx, Shard& shard, const std::string& id, const Json* old_body,
               const Json* new_body) {
  const int n = ctx.shards().count();
  for (const IndexSpec& index : ctx.shards().Indexes()) {
    std::optional<IndexPlacement> before, now;
    if (old_body != nullptr) before = PlaceIndexRow(index, *old_body, n);
    if (new_body != nullptr) now = PlaceIndexRow(index, *new_body, n);
    if (before && !(now && now->value == before->value && now->shard == before->shard))
      PlaceRow(ctx, shard, index, *before, id, true);
    if (now) PlaceRow(ctx, shard, index, *now, id, false);
  }
}

// Runs f on every shard, each in its own write transaction.
template <typename F>
void OnEveryShard(Context& ctx, F f) {
  for (int i = 0; i < ctx.shards().count(); ++i) {
    WriteTxn txn(ctx.shards().At(i));
    f(ctx.shards().At(i));
    txn.Commit();
  }
}

Json IndexJson(const IndexSpec& index) {
  return Json{{"name", index.name}, {"property", index.property}, {"shard_on", index.shard_on}};
}

}  // namespace

void CheckIdentifier(const char* what, const std::string& name) {
  const bool ok =
      !name.empty() && name.size() <= kMaxIdentifier && name[0] >= 'a' && name[0] <= 'z' &&
      name.find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789_") == std::string::npos;
  if (!ok)
    Fail(Code::kInvalidArgument, std::string(what) + " '" + name +
                                     "' is not an identifier (a-z, then a-z, 0-9 or _; at most " +
                                     std::to_string(kMaxIdentifier) + ")");
}

Json AttrsOf(const Json& pairs) {
  if (!pairs.is_array()) Fail(Code::kInvalidArgument, "--attr must be a list of KEY=VALUE");
  Json attrs = Json::object();
  for (const Json& pair : pairs) {
    if (!pair.is_string()) Fail(Code::kInvalidArgument, "--attr must be a list of KEY=VALUE");
    const std::string text = pair.get<std::string>();
    const size_t eq = text.find('=');
    if (eq == std::string::npos)
      Fail(Code::kInvalidArgument, "--attr '" + text + "' has no '=' (KEY=VALUE)");
    const std::string key = text.substr(0, eq), value = text.substr(eq + 1);
    CheckIdentifier("the attribute", key);
    if (attrs.contains(key)) Fail(Code::kInvalidArgument, "--attr " + key + " is given twice");
    for (unsigned char c : value)
      if (c < 0x20 || c == 0x7f)
        Fail(Code::kInvalidArgument, "--attr " + key + " holds a control character");
    try {
      Json(value).dump();  // throws on invalid UTF-8
    } catch (const Json::exception&) {
      Fail(Code::kInvalidUtf8, "--attr " + key + " is not valid UTF-8");
    }
    attrs[key] = value;
  }
  EncodeEntityBody(attrs);  // refuses attributes over the body limit together
  return attrs;
}

Json AttrsArg(const Json& args) {
  auto it = args.find("attrs");
  return it == args.end() || it->is_null() ? Json() : AttrsOf(*it);
}

std::optional<IndexPlacement> PlaceIndexRow(const IndexSpec& index, const Json& body, int count) {
  auto value = IndexValue(body, index.property);
  auto shard_on = index.shard_on == index.property ? value : IndexValue(body, index.shard_on);
  if (!value || !shard_on) return std::nullopt;
  return IndexPlacement{*value, EntityValueShard(*shard_on, count)};
}

void WriteEntity(Context& ctx, Shard& shard, const std::string& id, const Json& body) {
  auto old = GetEntity(shard, id);
  PutEntity(shard, id, ctx.now(), body);
  PlaceRows(ctx, shard, id, old ? &old->body : nullptr, &body);
}

void RemoveEntity(Context& ctx, Shard& shard, const std::string& id) {
  auto old = GetEntity(shard, id);
  if (!old) return;
  DeleteEntity(shard, id);
  PlaceRows(ctx, shard, id, &old->body, nullptr);
}

Json MessageAttrs(Context& ctx, int64_t msg_id) {
  auto entity = GetEntity(ctx.shards().ForMsg(msg_id), MessageEntityId(msg_id));
  return entity ? entity->body : Json();
}

void ApplyIndexRow(Context&, Shard& target, const IndexRowJob& job) {
  if (!IndexTableExists(target, job.index)) return;  // dropped since: nothing to keep
  const std::string id = EntityIdFromHex(job.entity);
  if (job.remove)
    DeleteIndexRow(target, job.index, job.value, id);
  else
    InsertIndexRow(target, job.index, job.value, id);
}

const IndexSpec* FindIndex(Context& ctx, const std::string& name) {
  for (const IndexSpec& index : ctx.shards().Indexes())
    if (index.name == name) return &index;
  return nullptr;
}

Json IndexAdd(Context& ctx, const Json& args) {
  IndexSpec index{args.at("name").get<std::string>(), args.at("property").get<std::string>(),
                  args.value("shard_on", std::string())};
  if (index.shard_on.empty()) index.shard_on = index.property;
  CheckIdentifier("the index name", index.name);
  CheckIdentifier("the property", index.property);
  CheckIdentifier("the shard_on property", index.shard_on);
  Shard& first = ctx.shards().At(0);
  WriteTxn lock(first);  // serialises the read-modify-write of cluster.json
  std::vector<IndexSpec> indexes = ctx.shards().Indexes();
  for (const IndexSpec& other : indexes)
    if (other.name == index.name)
      Fail(Code::kInvalidArgument,
           "an index named " + index.name + " exists already (property " + other.property + ")");
  // Made on shard 0 inside the lock's transaction, and on the others each in its own.
  CreateIndexTable(first, index.name);
  for (int i = 1; i < ctx.shards().count(); ++i) {
    WriteTxn txn(ctx.shards().At(i));
    CreateIndexTable(ctx.shards().At(i), index.name);
    txn.Commit();
  }
  indexes.push_back(index);
  ctx.shards().WriteIndexes(indexes);
  lock.Commit();
  return IndexJson(index);
}

Json IndexList(Context& ctx, const Json&) {
  Json out = Json::array();
  for (const IndexSpec& index : ctx.shards().Indexes()) out.push_back(IndexJson(index));
  return out;
}

Json IndexDrop(Context& ctx, const Json& args) {
  const std::string name = args.at("name").get<std::string>();
  std::vector<IndexSpec> indexes;
  {
    WriteTxn lock(ctx.shards().At(0));
    indexes = ctx.shards().Indexes();
    auto it = std::find_if(indexes.begin(), indexes.end(),
                           [&](const IndexSpec& index) { return index.name == name; });
    if (it == indexes.end()) Fail(Code::kNotFound, "no index named " + name);
    indexes.erase(it);
    ctx.shards().WriteIndexes(indexes);
    lock.Commit();
  }
  OnEveryShard(ctx, [&](Shard& shard) {
    DropIndexTable(shard, name);
    for (const char* walk : {"missing:", "stale:"}) ClearCleanerCursor(shard, walk + name);
  });
  return Json{{"name", name}, {"dropped", true}};
}

}  // namespace weibo
