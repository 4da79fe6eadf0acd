// search (seed 003, SPEC §7): messages by text, author and time, from an index kept apart
// from the metadata and fed only through the outbox — seed 003's tiezi-search fed by MQ.
//
// Writes: post, repost, comment, edit and delete enqueue a search_index job for the
// message's own shard in their own transaction (EnqueueSearchIndex); the drain applies it
// on that shard's search file (search-NN.db), reading what msg_info holds then — so a job
// applied twice, late or after a later one changes nothing more (self-correcting, no
// order to keep). With --async the index lags until weibo-worker drains. A server (weibod,
// the bench) holds its requests' index jobs back until it is idle (GroupCommit::held_to_idle:
// a daemon after 2 ms without a request; under load once the oldest is a second old,
// jobs.h kHeldMaxAgeMs) and applies them
// together — one transaction on the shard and one on its search file for all of them, where
// each post paid two, each with its fsync — and before any search it serves; another process
// searching meanwhile may miss them until then.
//
// Archived messages (flows/archive.h) stay searchable: weibo-archive moves a message's
// msg_info row into archive-NN.db and leaves its index row where it is, and everything
// below that reads "what msg_info holds" reads the shard first and then its archive — the
// order a move cannot slip between (it copies into the archive before it deletes from the
// shard), so a message is never missed and never indexed twice.
//
// Reads: with a QUERY, every shard's search file (only one with --author: the strategy's
// ShardSet::AuthorMsgShardIndex, under gene the author's shard; every shard under tid), each newest
// first from the cursor down, merged newest first (a k-way merge that reads one row ahead per
// shard). The re-check reads each hit's msg_info row: a message deleted or edited since it was
// indexed (a lagging index) is passed over, so no result ever shows a text the message no longer
// has. Without a QUERY, --author lists the author's messages from msg_info. Time bounds are id
// bounds (ids sort by time, SPEC §2):
// --since T is the first id of T's millisecond, --until T likewise, exclusive.
//
// rebuild: per shard, one transaction on the search file that clears it and indexes msg_info
// (the shard's, then its archive's) read after the search file's write lock was taken, so a
// job applied
// during the rebuild either came first (and the snapshot already holds its change) or waits
// and applies after it; writers of the shard itself go on meanwhile.
#include <algorithm>
#include <functional>
#include <limits>
#include <memory>
#include <set>

#include "flows/flows.h"
#include "flows/message.h"
#include "jobs/jobs.h"
#include "storage/failure.h"
#include "storage/gene_id.h"
#include "tables/search_index.h"

namespace weibo {

namespace {

// Queries shorter than a trigram have no entry in the index (weibo-search(1)).
constexpr int64_t kMinQuery = 3;

int64_t TimeBound(const Json& args, const char* name) {
  if (!args.contains(name)) return 0;
  auto ms = ParseTime(args.at(name).get<std::string>());
  if (!ms)
    Fail(Code::kInvalidArgument, std::string("--") + name +
                                     " must be a time: epoch seconds or ISO 8601, not '" +
                                     args.at(name).get<std::string>() + "'");
  return std::clamp(*ms, kGeneEpochMs, kGeneLatestMs);
}

void IndexRows(Context& ctx, Shard& target, const std::vector<int64_t>& ids) {
  Shard& search = ctx.shards().SearchAt(target.index());
  Shard* archive = ctx.shards().ArchiveAt(target.index());
  WriteTxn txn(search);
  for (int64_t id : ids) {
    auto row = GetMsg(target, id);
    if (!row && archive != nullptr) row = GetMsg(*archive, id);  // archived meanwhile
    std::string text = row ? IndexedText(*row) : std::string();
    if (text.empty())
      UnindexMsg(search, id);
    else
      IndexMsg(search, {id, row->user_id, text});
  }
  txn.Commit();
}

// The messages of one shard's search file matching query, newest first, each re-checked:
// the hit holds the query as one substring (the index matched its trigrams) and its
// msg_info row still has the indexed text (else the index lags an edit or a delete).
class ShardHits {
 public:
  ShardHits(Context& ctx, int shard, const std::string& query, int64_t author, int64_t lo,
            int64_t hi)
      : shard_(ctx.shards().At(shard)),
        archive_(ctx.shards().ArchiveAt(shard)),
        query_(query),
        cursor_(ctx.shards().SearchAt(shard), query, author, lo, hi) {
    Advance();
  }
  bool done() const { return done_; }
  int64_t head() const { return head_; }
  void Advance() {
    IndexedMsg hit;
    while (cursor_.Next(&hit)) {
      if (!Contains(hit.content, query_)) continue;
      auto row = GetMsg(shard_, hit.msg_id);
      if (!row && archive_ != nullptr) row = GetMsg(*archive_, hit.msg_id);  // archived
      if (!row || IndexedText(*row) != hit.content) continue;
      head_ = hit.msg_id;
      return;
    }
    done_ = true;
  }

 private:
  Shard& shard_;
  Shard* archive_;  // the shard's archive (flows/archive.h), nullptr when it has none
  const std::string& query_;
  IndexCursor cursor_;
  int64_t head_ = 0;
  bool done_ = false;
};

// With a query: a k-way merge of every shard's hits (only the author's shard with one),
// newest first, reading about count + shards rows in all. Without: the author's messages.
std::vector<int64_t> Find(Context& ctx, const std::string& query, int64_t author, int64_t lo,
                          int64_t hi, int64_t count) {
  std::vector<int64_t> ids;
  const int n = ctx.shards().count();
  const int author_index = ctx.shards().AuthorMsgShardIndex(author);  // -1: every shard (tid)
  if (query.empty()) {  // the author's shard (or every one), then its archive; newest first
    std::set<int64_t, std::greater<>> found;
    for (int i = 0; i < n; ++i) {
      if (author_index >= 0 && i != author_index) continue;
      for (Shard* file : {&ctx.shards().At(i), ctx.shards().ArchiveAt(i)})
        if (file != nullptr)
          for (const MsgRow& m : AuthorMessages(*file, author, hi, lo - 1, count))
            found.insert(m.id);
    }
    for (int64_t id : found) {
      if (static_cast<int64_t>(ids.size()) == count) break;
      ids.push_back(id);
    }
    return ids;
  }
  std::vector<std::unique_ptr<ShardHits>> shards;
  for (int i = 0; i < n; ++i)
    if (author == 0 || author_index < 0 || author_index == i)
      shards.push_back(std::make_unique<ShardHits>(ctx, i, query, author, lo, hi));
  while (static_cast<int64_t>(ids.size()) < count) {
    ShardHits* newest = nullptr;
    for (auto& s : shards)
      if (!s->done() && (newest == nullptr || s->head() > newest->head())) newest = s.get();
    if (newest == nullptr) break;
    ids.push_back(newest->head());
    newest->Advance();
  }
  return ids;
}

}  // namespace

std::string IndexedText(const MsgRow& msg) { return msg.content; }

void EnqueueSearchIndex(Context& ctx, Shard& shard, int64_t msg_id) {
  Enqueue(ctx, shard, shard.index(), SearchIndexJob{msg_id});
}

void ApplySearchIndex(Context& ctx, Shard& target, const SearchIndexJob& job) {
  IndexRows(ctx, target, {job.msg_id});
}

void ApplySearchIndexes(Context& ctx, Shard& target, const std::vector<SearchIndexJob>& jobs) {
  std::vector<int64_t> ids;
  ids.reserve(jobs.size());
  for (const auto& job : jobs) ids.push_back(job.msg_id);
  IndexRows(ctx, target, ids);
}

int64_t RebuildSearchIndex(Context& ctx, int shard_index) {
  Shard& shard = ctx.shards().At(shard_index);
  Shard& search = ctx.shards().SearchAt(shard_index);
  int64_t indexed = 0;
  Shard* archive = ctx.shards().ArchiveAt(shard_index);
  WriteTxn txn(search);
  ClearIndex(search);
  std::set<int64_t> live;
  for (Shard* file : {&shard, archive}) {
    if (file == nullptr) continue;
    ReadTxn snapshot(*file);
    for (const MsgRow& m : AllMsgs(*file)) {
      if (file == archive && live.count(m.id)) continue;  // mid-move: the shard's row wins
      if (file == &shard) live.insert(m.id);
      std::string text = IndexedText(m);
      if (text.empty()) continue;
      IndexMsg(search, {m.id, m.user_id, text});
      ++indexed;
    }
  }
  OptimizeIndex(search);
  txn.Commit();
  return indexed;
}

Json Search(Context& ctx, const Json& args) {
  if (args.value("rebuild", false)) {
    int64_t indexed = 0;
    for (int i = 0; i < ctx.shards().count(); ++i) {
      indexed += RebuildSearchIndex(ctx, i);
      ctx.Progress("search: rebuilding", i + 1, ctx.shards().count());
    }
    return Json{{"rebuilt", true}, {"shards", ctx.shards().count()}, {"indexed", indexed}};
  }
  const std::string query = args.value("query", std::string());
  if (!query.empty() && CodePoints(query) < kMinQuery)
    Fail(Code::kInvalidArgument,
         "a search needs at least 3 characters (the index is of "
         "trigrams), not '" +
             query + "'");
  if (query.empty() && !args.contains("author"))
    Fail(Code::kInvalidArgument, "give a QUERY of 3 or more characters, or --author");
  const int64_t author = args.contains("author") ? ctx.ResolveUser(args.at("author")) : 0;
  const int64_t since = TimeBound(args, "since"), until = TimeBound(args, "until");
  const int64_t lo = since != 0 ? GeneIdFloor(since, 0) : 0;
  int64_t hi = until != 0 ? GeneIdFloor(until, 0) : std::numeric_limits<int64_t>::max();
  if (args.contains("max_id")) hi = std::min(hi, args.at("max_id").get<int64_t>());
  const int64_t count = args.value("count", int64_t{20});
  // A server holds the index jobs of its writes back to index them together (job_kinds.cc):
  // they are applied before it searches, so its clients find what they have just written.
  // Should that fail (the disk full), they stay pending for the next drain and the search
  // answers from the index as it is, as it does for any job still pending.
  if (!ctx.group_commit().held_to_idle.empty()) {
    try {
      ApplyHeldToIdle(ctx);
    } catch (const std::exception&) {
    }
  }
  std::vector<int64_t> ids;
  if (lo < hi) ids = Find(ctx, query, author, lo, hi, count);
  MessageView view(ctx);
  Json out = Json::array();
  for (int64_t id : ids) {
    Json m = view.Render(id);
    if (!m.is_null()) out.push_back(std::move(m));
  }
  return out;
}

}  // namespace weibo
