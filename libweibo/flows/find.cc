// find: messages by an indexed attribute (weibo-find PROPERTY=VALUE), newest first.
//
// Shards: reads only. The index's rows of VALUE — on the one shard VALUE names when the
// index is sharded on the property itself, else on every shard, merged newest first (an
// entity id of a message sorts by the message id) — then each candidate's entity on its
// message's shard. As the seed says, the index only says where to look: the property is
// checked again against the entity's body and a hit it no longer matches (a stale row) is
// dropped, as is one whose message is gone; so an index may be briefly wrong, a result
// never is. No index on the property: invalid_argument (a query never scans entities).
#include <algorithm>
#include <set>

#include "flows/entities.h"
#include "flows/message.h"
#include "storage/failure.h"
#include "tables/entity.h"

namespace weibo {
namespace {

// The index to read for a property: one sharded on the property itself when there is one
// (one shard holds all of a value's rows), else any on it.
const IndexSpec* IndexOn(Context& ctx, const std::string& property) {
  const IndexSpec* found = nullptr;
  for (const IndexSpec& index : ctx.shards().Indexes()) {
    if (index.property != property) continue;
    if (index.shard_on == property) return &index;
    if (found == nullptr) found = &index;
  }
  return found;
}

// One shard's rows of the value, read a batch at a time from the greatest entity id down.
struct Cursor {
  explicit Cursor(Shard& s) : shard(&s) {}
  Shard* shard;
  std::vector<std::string> batch;  // greatest last
  std::string below;               // "" before the first batch
  bool exhausted = false;
};

constexpr int64_t kBatch = 64;

bool Fill(Cursor& c, const std::string& index, const std::string& value) {
  if (c.batch.empty() && !c.exhausted) {
    c.batch = IndexEntities(*c.shard, index, value, c.below, kBatch);
    c.exhausted = static_cast<int64_t>(c.batch.size()) < kBatch;
    if (!c.batch.empty()) c.below = c.batch.back();
    std::reverse(c.batch.begin(), c.batch.end());
  }
  return !c.batch.empty();
}

}  // namespace

Json Find(Context& ctx, const Json& args) {
  const std::string query = args.at("query").get<std::string>();
  const size_t eq = query.find('=');
  if (eq == std::string::npos)
    Fail(Code::kInvalidArgument, "'" + query + "' is not PROPERTY=VALUE");
  const std::string property = query.substr(0, eq), value = query.substr(eq + 1);
  CheckIdentifier("the property", property);
  const int64_t count = args.value("count", int64_t{20});
  const IndexSpec* index = IndexOn(ctx, property);
  if (index == nullptr)
    Fail(Code::kInvalidArgument, "no index on the property " + property +
                                     " (weibo-index add NAME --property " + property + ")");
  std::vector<Cursor> cursors;
  if (index->shard_on == property) {
    cursors.emplace_back(ctx.shards().At(EntityValueShard(value, ctx.shards().count())));
  } else {
    for (int i = 0; i < ctx.shards().count(); ++i) cursors.emplace_back(ctx.shards().At(i));
  }
  MessageView view(ctx);
  std::set<std::string> seen;  // a stale row on another shard may name the same entity
  Json out = Json::array();
  while (static_cast<int64_t>(out.size()) < count) {
    Cursor* next = nullptr;
    for (Cursor& c : cursors)
      if (Fill(c, index->name, value) && (next == nullptr || c.batch.back() > next->batch.back()))
        next = &c;
    if (next == nullptr) break;
    const std::string id = next->batch.back();
    next->batch.pop_back();
    const int64_t msg_id = MessageOfEntity(id);
    if (msg_id == 0 || !seen.insert(id).second) continue;
    auto entity = GetEntity(ctx.shards().ForMsg(msg_id), id);
    if (!entity || IndexValue(entity->body, property) != value) continue;  // stale
    Json m = view.Render(msg_id);
    if (!m.is_null()) out.push_back(std::move(m));
  }
  return out;
}

}  // namespace weibo
