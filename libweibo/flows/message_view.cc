// MessageView: one message as SPEC §10's JSON — its row, counters, author name, the
// fixed page_index of a comment or repost (read from the relation row beside the message
// it refers to) and the root message (seed 000, 6-30 update), or {"id","deleted":true}
// when the author deleted it.
#include <cinttypes>
#include <cstdio>

#include "flows/archive.h"
#include "flows/entities.h"
#include "flows/job_payloads.h"
#include "flows/message.h"
#include "storage/clock.h"
#include "tables/message_cache.h"
#include "tables/msg_counter.h"
#include "tables/msg_msg_relation.h"

namespace weibo {
namespace {

const char* TypeName(int type) {
  switch (type) {
    case kComment:
      return "comment";
    case kRepost:
      return "repost";
    default:
      return "original";
  }
}

}  // namespace

Json CountsJson(const CounterRow& c) {
  // Field by field into room reserved once (the hot path of count: six per message).
  // nlohmann's initializer-list constructor builds each {key, value} as a two-element
  // array first and then copies it into the object, a few allocations per field; the
  // ordered object is a vector of pairs, and these keys are distinct.
  Json j = Json::object();
  auto& fields = *j.get_ptr<Json::object_t*>();
  fields.reserve(6);
  fields.emplace_back("comments", c.comments);
  fields.emplace_back("commented", c.commented);
  fields.emplace_back("reposts", c.transfers);
  fields.emplace_back("reposted", c.transferred);
  fields.emplace_back("likes", c.likes);
  fields.emplace_back("views", c.views);
  return j;
}

std::string CountItemText(const CounterRow& c) {
  // Only keys and integers, which JSON writes one way: no escaping, no choice of format.
  char buf[256];
  const int n = std::snprintf(
      buf, sizeof buf,
      "{\"id\":\"%" PRId64 "\",\"counts\":{\"comments\":%" PRId64 ",\"commented\":%" PRId64
      ",\"reposts\":%" PRId64 ",\"reposted\":%" PRId64 ",\"likes\":%" PRId64 ",\"views\":%" PRId64
      "}}",
      c.msg_id, c.comments, c.commented, c.transfers, c.transferred, c.likes, c.views);
  return std::string(buf, static_cast<size_t>(n));
}

void MessageView::Load(const std::vector<int64_t>& msg_ids) {
  ShardSet& shards = ctx_.shards();
  std::vector<std::vector<int64_t>> by_shard(shards.count());
  for (int64_t id : msg_ids)
    if (rows_.emplace(id, nullptr).second)  // gone unless the shard returns it
      by_shard[shards.ForMsg(id).index()].push_back(id);
  MessageCache* cache = ctx_.message_cache();
  for (int i = 0; i < shards.count(); ++i) {
    if (by_shard[i].empty()) continue;
    Shard& shard = shards.At(i);
    auto keep = [&](std::shared_ptr<const PageRow> row) {
      if (row->author_name && names_.size() <= 64)
        names_.emplace_back(row->msg.user_id, *row->author_name);
      const int64_t id = row->msg.id;
      rows_[id] = std::move(row);
    };
    // A server's cached rows first (tables/message_cache.h); the shard's statement reads
    // only the others, and they are cached for the next page.
    std::vector<int64_t> cold;
    const bool cached = cache != nullptr && cache->Usable(shard);
    if (cached) {
      for (int64_t id : by_shard[i]) {
        if (MessageCache::Row hot = cache->Find(i, id))
          keep(std::move(hot));
        else
          cold.push_back(id);
      }
    }
    const std::vector<int64_t>& read = cached ? cold : by_shard[i];
    for (PageRow& row : GetPageRows(shard, read)) {
      auto shared = std::make_shared<const PageRow>(std::move(row));
      if (cached) cache->Put(shard, shared);
      keep(std::move(shared));
    }
    // Not live: archived, or gone. The archive's boundary (a stat() a call) is read only
    // when a row is missing, and after the shard's read: an archive run raises it before
    // it moves anything (flows/archive.cc), so a row moved before that read is below it.
    std::vector<int64_t> missing;
    int64_t archived_below = -1;
    for (int64_t id : by_shard[i]) {
      if (rows_[id]) continue;
      if (archived_below < 0) archived_below = shards.ArchivedBelow();
      if (id < archived_below) missing.push_back(id);
    }
    Shard* archive = missing.empty() ? nullptr : shards.ArchiveAt(i);
    if (archive == nullptr) continue;
    for (PageRow& row : GetPageRows(*archive, missing)) {
      const int64_t id = row.msg.id;
      rows_[id] = std::make_shared<const PageRow>(std::move(row));
    }
  }
}

void MessageView::Prefetch(const std::vector<int64_t>& msg_ids) {
  Load(msg_ids);
  std::vector<int64_t> roots;
  for (int64_t id : msg_ids) {
    const auto& row = rows_[id];
    if (row && row->msg.root_msg_id != 0) {
      ctx_.shards().KnowAuthor(row->msg.root_msg_id, row->msg.root_user_id);  // no lookup
      roots.push_back(row->msg.root_msg_id);
    }
  }
  Load(roots);
}

void MessageView::Know(PageRow row) {
  const int64_t id = row.msg.id;
  rows_[id] = std::make_shared<const PageRow>(std::move(row));
}

void MessageView::KnowNew(Shard& shard, PageRow row) {
  MessageCache* cache = ctx_.message_cache();
  // Put keeps only rows whose attrs are known, read outside a write transaction after
  // Usable: the commit is this connection's own, which the cache adopts.
  if (cache != nullptr && cache->Usable(shard)) {
    cache->Posted(shard, row.msg);  // the author's newest posts, with this one in front
    if (row.attrs_known) {          // one copy, shared by the cache: not a copy to copy again
      auto kept = std::make_shared<PageRow>(row);
      kept->author_name = UserName(row.msg.user_id);
      cache->Put(shard, std::move(kept));
    }
  }
  Know(std::move(row));
}

std::string MessageView::UserName(int64_t user_id) {
  for (const auto& entry : names_)
    if (entry.first == user_id) return entry.second;
  auto user = GetUser(ctx_.shards().ForUser(user_id), user_id);
  std::string name = user ? user->name : std::string();
  if (names_.size() > 64) names_.clear();
  names_.emplace_back(user_id, name);
  return name;
}

Json MessageView::Render(int64_t msg_id) {
  auto cached = rows_.find(msg_id);
  if (cached != rows_.end()) return cached->second ? Render(cached->second->msg) : Json();
  auto row = GetMsg(ctx_.shards().ForMsg(msg_id), msg_id);
  if (!row) row = ArchivedMsg(ctx_, msg_id);  // after the shard: never neither (archive.h)
  return row ? Render(*row) : Json();
}

Json MessageView::Render(const MsgRow& m) {
  CounterRow c;
  auto cached = rows_.find(m.id);
  if (cached != rows_.end() && cached->second) {
    c = cached->second->counter.value_or(CounterRow{});
  } else {
    Shard& shard = ctx_.shards().ForMsg(m.id);
    auto live = GetLiveCounter(shard, m.id);
    c = live ? *live : ArchivedCounter(ctx_, m.id).value_or(CounterRow{});
  }
  // Field by field into room reserved once, as CountsJson: a page renders twenty of these,
  // and each key added by operator[] searched the object and grew its vector, copying every
  // field before it (a pair with a const key is copied, not moved).
  Json j = Json::object();
  auto& fields = *j.get_ptr<Json::object_t*>();
  fields.reserve(13);
  fields.emplace_back("id", std::to_string(m.id));
  fields.emplace_back("user_id", std::to_string(m.user_id));
  fields.emplace_back("user_name", UserName(m.user_id));
  fields.emplace_back("type", TypeName(m.type));
  fields.emplace_back("content", m.content);
  fields.emplace_back("time", FormatTime(m.time));
  if (m.edits > 0) {  // only an edited message has them: absent means never edited
    fields.emplace_back("edited", FormatTime(m.edited));
    fields.emplace_back("edits", m.edits);
  }
  if (m.ref_msg_id != 0) {
    Json ref = Json::object();
    auto& ref_fields = *ref.get_ptr<Json::object_t*>();
    ref_fields.reserve(2);
    ref_fields.emplace_back("id", std::to_string(m.ref_msg_id));
    ref_fields.emplace_back("user_id", std::to_string(m.ref_user_id));
    fields.emplace_back("ref", std::move(ref));
    auto rel = GetMsgRelation(ctx_.shards().ForMsg(m.ref_msg_id), m.user_id, m.id);
    Shard* archive = rel ? nullptr : ArchiveOfMsg(ctx_, m.ref_msg_id);
    if (archive != nullptr) rel = GetMsgRelation(*archive, m.user_id, m.id);  // ref archived
    fields.emplace_back("page_index", rel ? Json(rel->page_index) : Json());
  } else {
    fields.emplace_back("ref", nullptr);
    fields.emplace_back("page_index", nullptr);
  }
  fields.emplace_back("counts", CountsJson(c));
  if (m.root_msg_id == 0) {
    fields.emplace_back("root", nullptr);
  } else {
    Json root = Render(m.root_msg_id);
    fields.emplace_back("root", root.is_null()
                                    ? Json{{"id", std::to_string(m.root_msg_id)}, {"deleted", true}}
                                    : std::move(root));
  }
  // --attr's, only on a message that has them; most often read with the page's rows.
  Json attrs = cached != rows_.end() && cached->second && cached->second->attrs_known
                   ? cached->second->attrs
                   : MessageAttrs(ctx_, m.id);
  if (!attrs.is_null()) fields.emplace_back("attrs", std::move(attrs));
  return j;
}

}  // namespace weibo
