// cleaner: mends the entity store's indexes (seed 001's cleaner, weibo-cleaner(1)).
//
// Two walks per declared index and shard:
//   missing  the shard's entities, most recently updated first (where drift is likeliest
//            and matters most), each checked for its row of the index on the shard its
//            shard_on value names; a missing row is written there. This is also the
//            backfill of a newly declared index: every entity written before the
//            declaration lacks its row, every entity written after has it.
//   stale    the shard's index rows in key order, each checked against its entity: a row
//            whose entity is gone, no longer has the value, or whose shard_on value names
//            another shard is deleted.
// The fixes of a chunk of kChunk items are applied together, one transaction per shard
// they touch (a synced commit per row made a backfill of 80 000 rows take minutes). Each
// walk saves its cursor in the walked shard's cleaner_progress after each chunk's fixes
// committed, so a run killed at any point continues at its
// last chunk (a chunk redone fixes nothing twice: the fixes are idempotent); a walk that
// reaches its end clears its cursor, and the next run starts again from the newest. --batch
// N stops the run after N items, as a kill would, with the cursors saved.
//
// Shards: every one, as fsck --repair does (weibo-cluster(1), "Writes that are not the
// owner's"): it runs while writes go on, and a row a writer changes while it looks may be
// left briefly wrong — which reads tolerate (flows/find.cc) and the next run mends.
#include <algorithm>
#include <limits>
#include <map>

#include "flows/entities.h"
#include "storage/failure.h"
#include "tables/entity.h"

namespace weibo {
namespace {

constexpr int64_t kChunk = 256;
constexpr int64_t kNoLimit = std::numeric_limits<int64_t>::max();

std::string Hex(const std::string& id) { return EntityIdHex(id); }

class Sweep {
 public:
  // on_drift gets each missing or stale row, and on_chunk (when set) is called after each
  // chunk's rows, before its cursor is saved; resume: read and save the walks' cursors.
  Sweep(Context& ctx, std::function<void(IndexDrift)> on_drift, std::function<void()> on_chunk,
        bool resume, int64_t budget)
      : ctx_(ctx),
        on_drift_(std::move(on_drift)),
        on_chunk_(std::move(on_chunk)),
        resume_(resume),
        budget_(budget) {}

  // The missing walks of every index over every shard, then the stale walks: the entities
  // first, newest first. False when the budget ran out first.
  bool Run(const std::vector<IndexSpec>& indexes) {
    for (const IndexSpec& index : indexes)
      for (int i = 0; i < ctx_.shards().count(); ++i)
        if (!Missing(index, ctx_.shards().At(i))) return false;
    for (const IndexSpec& index : indexes)
      for (int i = 0; i < ctx_.shards().count(); ++i)
        if (!Stale(index, ctx_.shards().At(i))) return false;
    return true;
  }

  int64_t entities() const { return entities_; }
  int64_t rows() const { return rows_; }
  void set_total(int64_t total) { total_ = total; }

 private:
  int64_t Take() { return std::min(kChunk, budget_); }
  void Step(int64_t n) {
    budget_ -= n;
    done_ += n;
    if (total_ > 0) ctx_.Progress("cleaner", std::min(done_, total_), total_);
  }

  // Saves (or, when the walk is done, clears) the walk's cursor on its shard.
  void Save(Shard& shard, const std::string& task, const Json& cursor, bool done) {
    if (!resume_) return;
    WriteTxn txn(shard);
    if (done)
      ClearCleanerCursor(shard, task);
    else
      SaveCleanerCursor(shard, task, cursor);
    txn.Commit();
  }

  bool Missing(const IndexSpec& index, Shard& shard) {
    const std::string task = "missing:" + index.name;
    Json cursor = resume_ ? CleanerCursor(shard, task) : Json();
    int64_t updated = cursor.is_array() ? cursor.at(0).get<int64_t>() : kNoLimit;
    int64_t added = cursor.is_array() ? cursor.at(1).get<int64_t>() : kNoLimit;
    while (true) {
      if (budget_ <= 0) return false;
      const int64_t take = Take();
      std::vector<EntityRow> chunk;
      {
        ReadTxn txn(shard);
        chunk = EntitiesBefore(shard, updated, added, take);
      }
      for (const EntityRow& e : chunk) CheckEntity(index, shard, e);
      if (on_chunk_) on_chunk_();
      Step(static_cast<int64_t>(chunk.size()));
      if (!chunk.empty()) updated = chunk.back().updated, added = chunk.back().added_id;
      const bool done = static_cast<int64_t>(chunk.size()) < take;
      Save(shard, task, Json::array({updated, added}), done);
      entities_ += static_cast<int64_t>(chunk.size());
      if (done) return true;
    }
  }

  void CheckEntity(const IndexSpec& index, Shard& shard, const EntityRow& e) {
    auto place = PlaceIndexRow(index, e.body, ctx_.shards().count());
    if (!place) return;
    Shard& target = ctx_.shards().At(place->shard);
    if (!IndexTableExists(target, index.name) ||
        HasIndexRow(target, index.name, place->value, e.id))
      return;
    on_drift_({"index " + index.name + ": entity " + Hex(e.id) + " on " + shard.name() +
                   " has no row for its " + index.property + " on " + target.name(),
               place->shard, false,
               [name = index.name, value = place->value, id = e.id](Shard& sh) {
                 InsertIndexRow(sh, name, value, id);
               }});
  }

  bool Stale(const IndexSpec& index, Shard& shard) {
    const std::string task = "stale:" + index.name;
    if (!IndexTableExists(shard, index.name)) return true;
    Json cursor = resume_ ? CleanerCursor(shard, task) : Json();
    IndexRow after;
    if (cursor.is_array())
      after = {cursor.at(0).get<std::string>(), EntityIdFromHex(cursor.at(1).get<std::string>())};
    while (true) {
      if (budget_ <= 0) return false;
      const int64_t take = Take();
      std::vector<IndexRow> chunk;
      {
        ReadTxn txn(shard);
        chunk = IndexRowsAfter(shard, index.name, after, take);
      }
      for (const IndexRow& row : chunk) CheckRow(index, shard, row);
      if (on_chunk_) on_chunk_();
      Step(static_cast<int64_t>(chunk.size()));
      if (!chunk.empty()) after = chunk.back();
      const bool done = static_cast<int64_t>(chunk.size()) < take;
      Save(shard, task, Json::array({after.value, Hex(after.entity_id)}), done);
      rows_ += static_cast<int64_t>(chunk.size());
      if (done) return true;
    }
  }

  void CheckRow(const IndexSpec& index, Shard& shard, const IndexRow& row) {
    const int count = ctx_.shards().count();
    // A message's entity is where the message is (the strategy's placement, a lookup under
    // uid-mapping); any other entity by its route key mod N.
    const int64_t msg = MessageOfEntity(row.entity_id);
    auto entity =
        row.entity_id.size() != kEntityIdSize ? std::nullopt
        : msg != 0
            ? GetEntity(ctx_.shards().ForMsg(msg), row.entity_id)
            : GetEntity(ctx_.shards().At(static_cast<int>(EntityRouteKey(row.entity_id) % count)),
                        row.entity_id);
    std::optional<IndexPlacement> place;
    if (entity) place = PlaceIndexRow(index, entity->body, count);
    if (place && place->value == row.value && place->shard == shard.index()) return;
    const char* why = !entity ? "whose entity is gone"
                      : !place || place->value != row.value
                          ? "whose entity no longer has that value"
                          : "on a shard its entity's shard_on value does not name";
    on_drift_({"index " + index.name + ": stale row " + row.value + " -> " + Hex(row.entity_id) +
                   " on " + shard.name() + ", " + why,
               shard.index(), true, [name = index.name, row](Shard& sh) {
                 DeleteIndexRow(sh, name, row.value, row.entity_id);
               }});
  }

  Context& ctx_;
  std::function<void(IndexDrift)> on_drift_;
  std::function<void()> on_chunk_;
  bool resume_;
  int64_t budget_;
  int64_t entities_ = 0, rows_ = 0, done_ = 0, total_ = 0;
};

// What the walks of these indexes will look at: the progress bar's total.
int64_t Work(Context& ctx, const std::vector<IndexSpec>& indexes) {
  int64_t total = 0;
  for (int i = 0; i < ctx.shards().count(); ++i) {
    Shard& shard = ctx.shards().At(i);
    ReadTxn txn(shard);
    const int64_t entities = CountEntities(shard);
    for (const IndexSpec& index : indexes)
      total +=
          entities + (IndexTableExists(shard, index.name) ? CountIndexRows(shard, index.name) : 0);
  }
  return total;
}

}  // namespace

std::vector<IndexDrift> FindIndexDrift(Context& ctx) {
  std::vector<IndexDrift> drift;
  Sweep sweep(
      ctx, [&](IndexDrift d) { drift.push_back(std::move(d)); }, nullptr, false, kNoLimit);
  sweep.Run(ctx.shards().Indexes());
  return drift;
}

Json Cleaner(Context& ctx, const Json& args) {
  std::vector<IndexSpec> indexes = ctx.shards().Indexes();
  if (args.contains("index")) {
    const IndexSpec* index = FindIndex(ctx, args.at("index").get<std::string>());
    if (index == nullptr)
      Fail(Code::kNotFound, "no index named " + args.at("index").get<std::string>());
    indexes = {*index};
  }
  const int64_t batch = args.value("batch", kNoLimit);
  if (batch < 1) Fail(Code::kInvalidArgument, "--batch must be at least 1");
  int64_t missing = 0, stale = 0;
  std::map<int, std::vector<IndexDrift>> fixes;  // a chunk's, by the shard they write
  Sweep sweep(
      ctx,
      [&](IndexDrift d) {
        ++(d.stale ? stale : missing);
        fixes[d.shard].push_back(std::move(d));
      },
      [&] {
        for (auto& [index, list] : fixes) {
          Shard& target = ctx.shards().At(index);
          WriteTxn txn(target);
          for (IndexDrift& d : list) d.fix(target);
          txn.Commit();
        }
        fixes.clear();
      },
      true, batch);
  if (ctx.reports_progress()) sweep.set_total(Work(ctx, indexes));
  const bool complete = sweep.Run(indexes);
  Json names = Json::array();
  for (const IndexSpec& index : indexes) names.push_back(index.name);
  return Json{{"indexes", names},         {"entities", sweep.entities()}, {"rows", sweep.rows()},
              {"missing_added", missing}, {"stale_removed", stale},       {"complete", complete}};
}

}  // namespace weibo
