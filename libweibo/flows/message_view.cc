// MessageView: one message as SPEC §10's JSON — its row, counters, author name, the
// fixed page_index of a comment or repost (read from the relation row beside the message
// it refers to) and the root message (seed 000, 6-30 update), or {"id","deleted":true}
// when the author deleted it.

#include <algorithm>
#include <type_traits>

#include "flows/archive.h"
#include "flows/entities.h"
#include "flows/job_payloads.h"
#include "flows/message.h"
#include "storage/clock.h"
#include "storage/json_text.h"
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

// The message JSON's two writers, each one object being filled: MessageView::WriteFields
// and WriteCounts name the fields once, for the Json a library caller gets (Render) and
// for the text a page's reply is made of (RenderText, the timeline's OpSpec::text), which
// must be byte for byte that Json's dump (tests/unit/flows/timeline_test.cc).
// JsonFields fills an ordered object field by field, into room reserved once: nlohmann's
// initializer lists build each {key, value} as a two-element array and copy it, and
// operator[] searches the object and grows its vector, copying every field before it.
class JsonFields {
 public:
  explicit JsonFields(size_t reserve) : json_(Json::object()) { fields().reserve(reserve); }
  void Str(const char* key, std::string value) { fields().emplace_back(key, std::move(value)); }
  void Id(const char* key, int64_t id) { fields().emplace_back(key, std::to_string(id)); }
  void Int(const char* key, int64_t value) { fields().emplace_back(key, value); }
  void Bool(const char* key, bool value) { fields().emplace_back(key, value); }
  void Null(const char* key) { fields().emplace_back(key, nullptr); }
  void Value(const char* key, const Json& value) { fields().emplace_back(key, value); }
  template <class Body>
  void Object(const char* key, size_t reserve, Body body) {
    JsonFields child(reserve);
    body(child);
    fields().emplace_back(key, child.Take());
  }
  Json Take() { return std::move(json_); }

 private:
  Json::object_t& fields() { return *json_.get_ptr<Json::object_t*>(); }
  Json json_;
};

// TextFields appends the object's text as its fields come: '{' when made, '}' at Close.
// Keys are this file's literals, written without escaping.
class TextFields {
 public:
  explicit TextFields(std::string* out) : out_(out) { out_->push_back('{'); }
  void Close() { out_->push_back('}'); }
  void Str(const char* key, const std::string& value) {
    Key(key);
    AppendJsonString(value, out_);
  }
  void Id(const char* key, int64_t id) {
    Key(key);
    AppendJsonIdString(id, out_);
  }
  void Int(const char* key, int64_t value) {
    Key(key);
    AppendJsonInt(value, out_);
  }
  void Bool(const char* key, bool value) {
    Key(key);
    out_->append(value ? "true" : "false");
  }
  void Null(const char* key) {
    Key(key);
    out_->append("null");
  }
  void Value(const char* key, const Json& value) {
    Key(key);
    AppendJson(value, out_);
  }
  // Fields another TextFields wrote (HeadText), as the first of this object's.
  void Raw(const std::string& fields) {
    out_->append(fields);
    first_ = first_ && fields.empty();
  }
  template <class Body>
  void Object(const char* key, size_t /*reserve*/, Body body) {
    Key(key);
    TextFields child(out_);
    body(child);
    child.Close();
  }

 private:
  void Key(const char* key) {
    out_->append(first_ ? "\"" : ",\"");
    first_ = false;
    out_->append(key);
    out_->append("\":");
  }
  std::string* out_;
  bool first_ = true;
};

// The fields of a message that change only with an edit, which updates the row: a server's
// cache forgets a changed row (its update hook), and its head with it.
template <class Fields>
void WriteHead(const MsgRow& m, std::string name, Fields& w) {
  w.Id("id", m.id);
  w.Id("user_id", m.user_id);
  w.Str("user_name", std::move(name));
  w.Str("type", TypeName(m.type));
  w.Str("content", m.content);
  w.Str("time", FormatTime(m.time));
  if (m.edits > 0) {  // only an edited message has them: absent means never edited
    w.Str("edited", FormatTime(m.edited));
    w.Int("edits", m.edits);
  }
}

// WriteHead's text, without the braces: PageRow::head.
std::string HeadText(const MsgRow& m, const std::string& name) {
  std::string out;
  out.reserve(160 + m.content.size());
  TextFields w(&out);
  WriteHead(m, name, w);
  out.erase(0, 1);  // the '{'
  return out;
}

template <class Fields>
void WriteCounts(const CounterRow& c, Fields& w) {
  w.Int("comments", c.comments);
  w.Int("commented", c.commented);
  w.Int("reposts", c.transfers);
  w.Int("reposted", c.transferred);
  w.Int("likes", c.likes);
  w.Int("views", c.views);
}

}  // namespace

Json CountsJson(const CounterRow& c) {
  JsonFields w(6);
  WriteCounts(c, w);
  return w.Take();
}

std::string CountItemText(const CounterRow& c) {
  std::string out;
  out.reserve(128);
  TextFields w(&out);
  w.Id("id", c.msg_id);
  w.Object("counts", 6, [&](TextFields& counts) { WriteCounts(c, counts); });
  w.Close();
  return out;
}

void MessageView::Load(const std::vector<int64_t>& msg_ids) {
  ShardSet& shards = ctx_.shards();
  // The lists below, kept by the thread from page to page: they were four allocations a
  // call, and the rows' growth a few more (perf, r10k trace, session 48). Load is never
  // entered again before it returns.
  struct Lists {
    std::vector<std::pair<int, int64_t>> wanted;
    std::vector<int64_t> ids, cold, missing;
  };
  thread_local Lists lists;
  // The ids not prefetched yet, by shard (the shard's index, then the id's order).
  std::vector<std::pair<int, int64_t>>& wanted = lists.wanted;
  wanted.clear();
  if (rows_.capacity() < rows_.size() + msg_ids.size())  // at once, and still doubling
    rows_.reserve(std::max(rows_.size() + msg_ids.size(), 2 * rows_.capacity()));
  for (int64_t id : msg_ids) {
    if (at_.Find(id) != nullptr) continue;
    at_.Emplace(id, static_cast<int64_t>(rows_.size()));
    rows_.emplace_back();  // gone unless the shard returns it
    wanted.emplace_back(shards.ForMsg(id).index(), id);
  }
  std::stable_sort(wanted.begin(), wanted.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  MessageCache* cache = ctx_.message_cache();
  std::vector<int64_t>& ids = lists.ids;  // all wanted here, then one shard's
  std::vector<int64_t>& cold = lists.cold;
  std::vector<int64_t>& missing = lists.missing;
  ids.clear();
  if (cache != nullptr && wanted.size() > 1) {
    for (const auto& w : wanted) ids.push_back(w.second);
    cache->Prefetch(ids);  // memory for the lookups below, asked for all at once
  }
  auto keep = [&](Row row) {
    if (row->author_name && names_.size() <= 64)
      names_.emplace_back(row->msg.user_id, *row->author_name);
    rows_[static_cast<size_t>(*at_.Find(row->msg.id))] = std::move(row);
  };
  for (size_t begin = 0, end; begin < wanted.size(); begin = end) {
    const int i = wanted[begin].first;
    ids.clear();
    for (end = begin; end < wanted.size() && wanted[end].first == i; ++end)
      ids.push_back(wanted[end].second);
    Shard& shard = shards.At(i);
    // A server's cached rows first (tables/message_cache.h); the shard's statement reads
    // only the others, and they are cached for the next page.
    cold.clear();
    const bool cached = cache != nullptr && cache->Usable(shard);
    if (cached) {
      for (int64_t id : ids) {
        if (MessageCache::Row hot = cache->Find(i, id))
          keep(std::move(hot));
        else
          cold.push_back(id);
      }
    }
    const std::vector<int64_t>& read = cached ? cold : ids;
    if (!read.empty()) {
      for (PageRow& row : GetPageRows(shard, read)) {
        if (cached) {  // its head is written once, for every page it is on
          row.head =
              HeadText(row.msg, row.author_name ? *row.author_name : UserName(row.msg.user_id));
        }
        auto shared = std::make_shared<const PageRow>(std::move(row));
        if (cached) cache->Put(shard, shared);
        keep(std::move(shared));
      }
    }
    // Not live: archived, or gone. The archive's boundary (a stat() a call) is read only
    // when a row is missing, and after the shard's read: an archive run raises it before
    // it moves anything (flows/archive.cc), so a row moved before that read is below it.
    missing.clear();
    int64_t archived_below = -1;
    for (int64_t id : ids) {
      if (*Prefetched(id)) continue;
      if (archived_below < 0) archived_below = shards.ArchivedBelow();
      if (id < archived_below) missing.push_back(id);
    }
    Shard* archive = missing.empty() ? nullptr : shards.ArchiveAt(i);
    if (archive == nullptr) continue;
    for (PageRow& row : GetPageRows(*archive, missing))
      rows_[static_cast<size_t>(*at_.Find(row.msg.id))] =
          std::make_shared<const PageRow>(std::move(row));
  }
  // The heads' text, which the page copies next (RenderText), asked for in the same way.
  if (cache == nullptr || wanted.size() <= 1) return;
  for (const auto& w : wanted) {
    const Row& row = *Prefetched(w.second);
    if (!row) continue;
    for (size_t at = 0; at < row->head.size(); at += 64) __builtin_prefetch(row->head.data() + at);
  }
}

void MessageView::Prefetch(const std::vector<int64_t>& msg_ids) {
  Load(msg_ids);
  std::vector<int64_t> roots;
  for (int64_t id : msg_ids) {
    const Row& row = *Prefetched(id);
    if (row && row->msg.root_msg_id != 0) {
      ctx_.shards().KnowAuthor(row->msg.root_msg_id, row->msg.root_user_id);  // no lookup
      roots.push_back(row->msg.root_msg_id);
    }
  }
  Load(roots);
}

void MessageView::Know(PageRow row) {
  const int64_t id = row.msg.id;
  Row known = std::make_shared<const PageRow>(std::move(row));
  if (const int64_t* at = at_.Find(id)) {
    rows_[static_cast<size_t>(*at)] = std::move(known);
    return;
  }
  at_.Emplace(id, static_cast<int64_t>(rows_.size()));
  rows_.push_back(std::move(known));
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
      kept->head = HeadText(row.msg, *kept->author_name);
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
  JsonFields w(13);
  return WriteFields(msg_id, w) ? w.Take() : Json();
}

Json MessageView::Render(const MsgRow& m) {
  JsonFields w(13);
  const Row* row = Prefetched(m.id);
  WriteFields(m, row != nullptr ? row->get() : nullptr, w);
  return w.Take();
}

bool MessageView::RenderText(int64_t msg_id, std::string* out) {
  const size_t start = out->size();
  TextFields w(out);
  if (!WriteFields(msg_id, w)) {
    out->resize(start);  // gone: the '{' is taken back
    return false;
  }
  w.Close();
  return true;
}

template <class Fields>
bool MessageView::WriteFields(int64_t msg_id, Fields& w) {
  if (const Row* row = Prefetched(msg_id)) {
    if (!*row) return false;
    WriteFields((*row)->msg, row->get(), w);
    return true;
  }
  auto row = GetMsg(ctx_.shards().ForMsg(msg_id), msg_id);
  if (!row) row = ArchivedMsg(ctx_, msg_id);  // after the shard: never neither (archive.h)
  if (!row) return false;
  WriteFields(*row, nullptr, w);
  return true;
}

template <class Fields>
void MessageView::WriteFields(const MsgRow& m, const PageRow* prefetched, Fields& w) {
  static const CounterRow kNone{};  // no counter row: every count 0
  CounterRow read;
  const CounterRow* c = &kNone;
  if (prefetched != nullptr) {
    if (prefetched->counter) c = &*prefetched->counter;
  } else {
    Shard& shard = ctx_.shards().ForMsg(m.id);
    auto live = GetLiveCounter(shard, m.id);
    read = live ? *live : ArchivedCounter(ctx_, m.id).value_or(CounterRow{});
    c = &read;
  }
  bool kept = false;  // a server's cached row has its head as text, written when it was read
  if constexpr (std::is_same_v<Fields, TextFields>) {
    kept = prefetched != nullptr && !prefetched->head.empty();
    if (kept) w.Raw(prefetched->head);
  }
  if (!kept) WriteHead(m, UserName(m.user_id), w);
  if (m.ref_msg_id != 0) {
    w.Object("ref", 2, [&](Fields& ref) {
      ref.Id("id", m.ref_msg_id);
      ref.Id("user_id", m.ref_user_id);
    });
    auto rel = GetMsgRelation(ctx_.shards().ForMsg(m.ref_msg_id), m.user_id, m.id);
    Shard* archive = rel ? nullptr : ArchiveOfMsg(ctx_, m.ref_msg_id);
    if (archive != nullptr) rel = GetMsgRelation(*archive, m.user_id, m.id);  // ref archived
    if (rel)
      w.Int("page_index", rel->page_index);
    else
      w.Null("page_index");
  } else {
    w.Null("ref");
    w.Null("page_index");
  }
  w.Object("counts", 6, [&](Fields& counts) { WriteCounts(*c, counts); });
  if (m.root_msg_id == 0) {
    w.Null("root");
  } else {
    w.Object("root", 13, [&](Fields& root) {
      if (WriteFields(m.root_msg_id, root)) return;
      root.Id("id", m.root_msg_id);
      root.Bool("deleted", true);
    });
  }
  // --attr's, only on a message that has them; most often read with the page's rows.
  if (prefetched != nullptr && prefetched->attrs_known) {
    if (!prefetched->attrs.is_null()) w.Value("attrs", prefetched->attrs);
  } else {
    const Json attrs = MessageAttrs(ctx_, m.id);
    if (!attrs.is_null()) w.Value("attrs", attrs);
  }
}

}  // namespace weibo
