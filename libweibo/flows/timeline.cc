// timeline: a user's home timeline, or with posts=true the user's own posts (SPEC §4.7-8).
//
// A home timeline is, by definition, the reader's own messages plus the originals and
// reposts of everyone the reader follows, newest first, minus deleted messages. The feed
// mode only changes where the ids come from:
//   push    the reader's inbox (msg_index), one index range on the reader's shard, and
//           below the inbox's floor (where the cap trimmed it) a merge as in pull;
//   pull    a k-way merge of the reader's own messages and each followee's posts
//           (msg_info by (user_id, msg_id), each on its author's shard);
//   hybrid  the inbox plus a merge over the followees that are pulled (celebrities).
// Every source is read with the same cursor window (since_id < id < max_id, both
// exclusive), merged by id (ids sort by time), de-duplicated and resolved; rows whose
// message is gone are skipped and the window moves on, so a page is always full when
// there is enough to fill it, and max_id = the last id shown gives the next page with no
// duplicates and no gaps, whatever is posted meanwhile. --page P (0-based) skips P pages
// of count items.
#include <algorithm>
#include <functional>
#include <set>

#include "flows/flows.h"
#include "flows/message.h"
#include "tables/msg_index.h"
#include "tables/user_relation.h"

namespace weibo {
namespace {

using Source = std::function<std::vector<int64_t>(int64_t max_id, int64_t since_id, int64_t n)>;

std::vector<int64_t> Ids(const std::vector<MsgRow>& rows) {
  std::vector<int64_t> ids;
  for (const auto& r : rows) ids.push_back(r.id);
  return ids;
}

// Reads of an author's messages (all types for the reader's own, originals and reposts for
// a followee), only below ceiling when ceiling is not 0.
Source AuthorSource(ShardSet& shards, int64_t author, bool own, int64_t ceiling) {
  return [&shards, author, own, ceiling](int64_t max_id, int64_t since_id, int64_t n) {
    if (ceiling > 0) max_id = max_id > 0 ? std::min(max_id, ceiling) : ceiling;
    Shard& shard = shards.ForUser(author);
    return Ids(own ? AuthorMessages(shard, author, max_id, since_id, n)
                   : AuthorPosts(shard, author, max_id, since_id, n));
  };
}

std::vector<Source> HomeSources(Context& ctx, int64_t reader) {
  ShardSet& shards = ctx.shards();
  const std::string& feed = ctx.config().feed;
  std::vector<Source> sources;
  // The inbox is complete from its floor up (tables/msg_index.h); below it, pull.
  int64_t floor = 0;
  if (feed != "pull") {
    floor = InboxFloor(shards.ForUser(reader), reader);
    sources.push_back([&shards, reader, floor](int64_t max_id, int64_t since_id, int64_t n) {
      std::vector<int64_t> ids;
      for (const auto& r :
           ReadInbox(shards.ForUser(reader), reader, max_id, std::max(since_id, floor - 1), n))
        ids.push_back(r.msg_id);
      return ids;
    });
  }
  bool pull_all = feed == "pull";
  if (pull_all || floor > 0) sources.push_back(AuthorSource(shards, reader, true, floor));
  for (int64_t author : Related(shards.ForUser(reader), reader, kFollowing)) {
    bool pulled = pull_all;
    if (feed == "hybrid") {
      auto user = GetUser(shards.ForUser(author), author);
      pulled = user && !PushesAuthor(ctx, *user);
    }
    if (pulled)
      sources.push_back(AuthorSource(shards, author, false, 0));
    else if (floor > 0)
      sources.push_back(AuthorSource(shards, author, false, floor));
  }
  return sources;
}

}  // namespace

Json Timeline(Context& ctx, const Json& args) {
  int64_t reader = ctx.ResolveUser(args.at("user"));
  int64_t count = args.value("count", 20);
  int64_t max_id = args.value("max_id", int64_t{0});
  int64_t since_id = args.value("since_id", int64_t{0});
  int64_t skip = args.value("page", int64_t{0}) * count;
  std::vector<Source> sources;
  if (args.value("posts", false)) {
    sources.push_back(AuthorSource(ctx.shards(), reader, false, 0));
  } else {
    sources = HomeSources(ctx, reader);
  }
  MessageView view(ctx);
  Json out = Json::array();
  int64_t cursor = max_id;
  while (static_cast<int64_t>(out.size()) < count) {
    int64_t want = skip + count - static_cast<int64_t>(out.size());
    std::set<int64_t, std::greater<int64_t>> merged;
    for (auto& source : sources)
      for (int64_t id : source(cursor, since_id, want)) merged.insert(id);
    std::vector<int64_t> batch(merged.begin(), merged.end());
    if (static_cast<int64_t>(batch.size()) > want) batch.resize(want);
    for (int64_t id : batch) {
      Json m = view.Render(id);
      if (m.is_null()) continue;  // deleted; its inbox rows are being purged
      if (skip > 0) {
        --skip;
        continue;
      }
      out.push_back(std::move(m));
      if (static_cast<int64_t>(out.size()) == count) break;
    }
    if (static_cast<int64_t>(batch.size()) < want) break;  // every source is exhausted
    cursor = batch.back();
  }
  return out;
}

}  // namespace weibo
