// show, comments, reposts, count: reading one message, its fixed pages, and the
// counters of many messages in one call (seed 004's batch counter read).
//
// show --history adds the texts the message had before its edits (tables/msg_history.h).
// show counts a view (SPEC §6): a counter_delta job (flows/like.cc) written in one
// transaction on the message's shard, merged with the other pending deltas of the message
// when applied; the view is in the message it prints. comments and reposts read one fixed
// page: the relation rows with that page_index, all on the message's own shard (seed 000's 12-08
// correction), oldest first, then each comment or repost from its author's shard. A page may hold
// fewer than page_size items (deleted ones leave holes) and a page beyond the last one handed out
// is empty; only an unknown message is not_found. count reads msg_counter rows, each on its
// message's shard, or in a server the hot ones from memory (tables/counter_cache.h).
// Each reaches an archived message in the archive (flows/archive.h); show counts no view
// of one (the archive is read only but for what weibo-archive moves into it).
#include "flows/archive.h"
#include "flows/flows.h"
#include "flows/message.h"
#include "storage/clock.h"
#include "storage/failure.h"
#include "tables/counter_cache.h"
#include "tables/msg_counter.h"
#include "tables/msg_history.h"
#include "tables/msg_msg_relation.h"

namespace weibo {
namespace {

Json RelationPage(Context& ctx, const Json& args, int type) {
  int64_t msg_id = args.at("msg").get<int64_t>();
  int64_t page = args.value("page", int64_t{0});
  Shard* shard = &ctx.shards().ForMsg(msg_id);
  // A deleted message keeps its comments and reposts; only an id never seen is unknown.
  // An archived one has its pages in the archive (they move with it, flows/archive.cc).
  if (!GetCounter(*shard, msg_id) && !HasMsgRelations(*shard, msg_id)) {
    shard = ArchiveOfMsg(ctx, msg_id);
    if (shard == nullptr || (!GetCounter(*shard, msg_id) && !HasMsgRelations(*shard, msg_id)))
      Fail(Code::kNotFound, "no message with id " + std::to_string(msg_id));
  }
  MessageView view(ctx);
  Json out = Json::array();
  for (const auto& rel : MsgRelationPage(*shard, msg_id, type, page)) {
    Json m = view.Render(rel.reference_msg_id);
    if (!m.is_null()) out.push_back(std::move(m));
  }
  return out;
}

}  // namespace

Json Show(Context& ctx, const Json& args) {
  int64_t msg_id = args.at("msg").get<int64_t>();
  Shard* shard = &ctx.shards().ForMsg(msg_id);
  bool live = true;
  {
    WriteTxn txn(*shard);
    live = GetCounter(*shard, msg_id).has_value();
    if (live) EnqueueCounterDelta(ctx, *shard, CounterDeltaJob{msg_id, 0, 1});
    txn.Commit();
  }
  // An archived message is shown as it was archived: the archive takes no views.
  if (!live && !(shard = ArchiveOfMsg(ctx, msg_id)))
    Fail(Code::kNotFound, "no message with id " + std::to_string(msg_id));
  if (live) ctx.Settle();
  Json m = MessageView(ctx).Render(msg_id);
  if (m.is_null()) Fail(Code::kNotFound, "no message with id " + std::to_string(msg_id));
  if (args.value("history", false)) {  // the texts edits replaced, oldest first
    Json history = Json::array();
    for (const HistoryRow& h : MsgHistory(*shard, msg_id))
      history.push_back(
          Json{{"version", h.version}, {"content", h.content}, {"time", FormatTime(h.time)}});
    m["history"] = std::move(history);
  }
  return m;
}

Json Comments(Context& ctx, const Json& args) { return RelationPage(ctx, args, kComment); }

Json Reposts(Context& ctx, const Json& args) { return RelationPage(ctx, args, kRepost); }

namespace {

// Calls item(row, cached) for each message of count's args, in their order: cached is the
// entry of a server's hot counters (its row and its text) or nullptr for a row just read
// from its shard (and then kept there, with its text: CountText serves it from then on).
template <typename Item>
void ForEachCount(Context& ctx, const Json& args, const Item& item) {
  CounterCache* cache = ctx.counter_cache();
  std::vector<bool> validated(ctx.shards().count(), false);
  for (const auto& id_json : args.at("msgs")) {
    int64_t msg_id = id_json.get<int64_t>();
    Shard& shard = ctx.shards().ForMsg(msg_id);
    if (cache != nullptr) {
      if (!validated[shard.index()]) cache->Validate(shard);  // once per shard and request
      validated[shard.index()] = true;
      if (const CachedCounter* hot = cache->Find(shard.index(), msg_id)) {
        item(hot->row, hot);
        continue;
      }
    }
    std::optional<CounterRow> c = GetLiveCounter(shard, msg_id);
    if (!c)
      c = ArchivedCounter(ctx, msg_id);  // after the shard: never neither
    else if (cache != nullptr)
      cache->Put(shard, *c, CountItemText(*c));
    if (!c) Fail(Code::kNotFound, "no message with id " + std::to_string(msg_id));
    item(*c, nullptr);
  }
}

}  // namespace

Json Count(Context& ctx, const Json& args) {
  Json out = Json::array();
  out.get_ptr<Json::array_t*>()->reserve(args.at("msgs").size());
  ForEachCount(ctx, args, [&](const CounterRow& c, const CachedCounter*) {
    Json item = Json::object();  // built as CountsJson is, without initializer lists
    auto& fields = *item.get_ptr<Json::object_t*>();
    fields.reserve(2);
    fields.emplace_back("id", std::to_string(c.msg_id));
    fields.emplace_back("counts", CountsJson(c));
    out.push_back(std::move(item));
  });
  return out;
}

std::string CountText(Context& ctx, const Json& args) {
  // A hot message's item is the cache's text as it is; a cold one's is written once and
  // kept with its row (an entry Put without a text gets one written each time).
  std::string out = "[";
  out.reserve(args.at("msgs").size() * 128);
  ForEachCount(ctx, args, [&](const CounterRow& c, const CachedCounter* cached) {
    if (out.size() > 1) out += ',';
    if (cached != nullptr && !cached->text().empty())
      out += cached->text();
    else
      out += CountItemText(c);
  });
  out += ']';
  return out;
}

}  // namespace weibo
