// timeline: a user's home timeline, or with posts=true the user's own posts (SPEC §4.7-8).
//
// A home timeline is, by definition, the reader's own messages plus the originals and
// reposts of everyone the reader follows, newest first, minus deleted messages. The feed
// mode only changes where the ids come from:
//   push    the reader's inbox (msg_index), one index range on the reader's shard, and
//           below the inbox's floor (where the cap trimmed it) a merge as in pull;
//   pull    a k-way merge of the reader's own messages and each followee's posts, each
//           from its author's time-partitioned outbox (tables/author_feed.h);
//   hybrid  the inbox plus a merge over the followees that are pulled: celebrities, and
//           every author whose active list does not hold the reader (tables/active_fan.h).
// Every source is read with the same cursor window (since_id < id < max_id, both
// exclusive), merged by id (ids sort by time), de-duplicated and resolved; rows whose
// message is gone are skipped and the window moves on, so a page is always full when
// there is enough to fill it, and max_id = the last id shown gives the next page with no
// duplicates and no gaps, whatever is posted meanwhile. --page P (0-based) skips P pages
// of count items.
//
// Partitions: when any source is an author outbox, the merge runs window by window. A
// window is one partition (a week of ids): the one holding the newest id any source may
// still hold below the cursor (author_part says which weeks an author has, the inbox its
// newest row); every source is read only inside the window, and the merge moves to an older
// window only when the page is not full yet. So a read starts in the newest partition and
// touches an older one only when the page reaches back that far, and an author's older
// weeks are never read for a page they cannot reach.
//
// Reading one's own home timeline is activity (flows/active.cc): it may refresh
// user_info.last_active (push tiers) and, in hybrid, put the reader back on the active
// lists of their followees, after the page was built — by pull where needed.
#include <algorithm>
#include <functional>
#include <limits>
#include <memory>
#include <set>

#include "flows/flows.h"
#include "flows/message.h"
#include "tables/active_fan.h"
#include "tables/author_feed.h"
#include "tables/msg_index.h"
#include "tables/user_relation.h"

namespace weibo {
namespace {

constexpr int64_t kNoUpper = std::numeric_limits<int64_t>::max();

// One source of a home timeline. Bounds are exclusive; upper 0 is unbounded.
struct Source {
  // Ids with lower < id < upper, newest first, at most n.
  std::function<std::vector<int64_t>(int64_t upper, int64_t lower, int64_t n)> read;
  // An upper bound of the newest id the source holds below upper; 0 when it holds none.
  std::function<int64_t(int64_t upper)> newest;
  bool partitioned = false;
};

int64_t Clamp(int64_t upper, int64_t ceiling) {
  if (ceiling > 0) upper = upper > 0 ? std::min(upper, ceiling) : ceiling;
  return upper;
}

// An author's partitions (author_part), newest first, fetched a few at a time and kept for
// the whole request: the merge asks for them once per window and source.
class PartList {
 public:
  PartList(ShardSet& shards, int64_t author) : shards_(shards), author_(author) {}
  // The i-th partition at or below the first top asked for; -1 when there is none.
  int64_t At(size_t i, int64_t top) {
    if (parts_.empty() && !complete_) top_ = top;
    while (i >= parts_.size() && !complete_) {
      int64_t below = parts_.empty() ? top_ : parts_.back() - 1;
      auto more = AuthorParts(shards_.ForUser(author_), author_, below, kFetch);
      complete_ = static_cast<int64_t>(more.size()) < kFetch;
      parts_.insert(parts_.end(), more.begin(), more.end());
    }
    return i < parts_.size() ? parts_[i] : -1;
  }

 private:
  static constexpr int64_t kFetch = 8;
  ShardSet& shards_;
  int64_t author_;
  int64_t top_ = 0;
  std::vector<int64_t> parts_;
  bool complete_ = false;
};

// An author's outbox (all types for the reader's own, originals and reposts for a
// followee), only below ceiling when ceiling is not 0; read partition by partition.
Source AuthorSource(ShardSet& shards, int64_t author, bool own, int64_t ceiling) {
  Source s;
  s.partitioned = true;
  auto parts = std::make_shared<PartList>(shards, author);
  s.read = [&shards, author, own, ceiling, parts](int64_t upper, int64_t lower, int64_t n) {
    upper = Clamp(upper, ceiling);
    Shard& shard = shards.ForUser(author);
    std::vector<int64_t> ids;
    int64_t top = PartOf((upper > 0 ? upper : kNoUpper) - 1);
    for (size_t i = 0;; ++i) {
      int64_t part = parts->At(i, top);
      if (part < 0) break;
      if (part > top) continue;                     // above the cursor
      if (PartStart(part + 1) - 1 <= lower) break;  // the whole week is below the window
      for (int64_t id : ReadAuthorPart(shard, author, part, !own, upper, lower,
                                       n - static_cast<int64_t>(ids.size())))
        ids.push_back(id);
      if (static_cast<int64_t>(ids.size()) >= n) break;
    }
    return ids;
  };
  s.newest = [ceiling, parts](int64_t upper) -> int64_t {
    upper = Clamp(upper, ceiling);
    int64_t below = (upper > 0 ? upper : kNoUpper) - 1;
    for (size_t i = 0;; ++i) {
      int64_t part = parts->At(i, PartOf(below));
      if (part < 0) return 0;
      if (part <= PartOf(below)) return std::min(below, PartStart(part + 1) - 1);
    }
  };
  return s;
}

Source InboxSource(ShardSet& shards, int64_t reader, int64_t floor) {
  Source s;
  s.read = [&shards, reader, floor](int64_t upper, int64_t lower, int64_t n) {
    std::vector<int64_t> ids;
    for (const auto& r :
         ReadInbox(shards.ForUser(reader), reader, upper, std::max(lower, floor - 1), n))
      ids.push_back(r.msg_id);
    return ids;
  };
  s.newest = [&shards, reader, floor](int64_t upper) -> int64_t {
    auto rows =
        ReadInbox(shards.ForUser(reader), reader, upper, std::max<int64_t>(0, floor - 1), 1);
    return rows.empty() ? 0 : rows[0].msg_id;
  };
  return s;
}

// A home timeline's sources, in two groups. `above` are complete over the whole id range
// they cover: the inbox (from its floor up) and the authors the reader pulls (all of them
// in pull; celebrities and authors whose active list lacks the reader in hybrid). `below`
// are needed only under the inbox's floor, where the cap trimmed it: the reader's own and
// every pushed followee's outbox, read below the floor. Only a page that reaches below
// the floor needs them, so in push they are not even listed (want_below false) until then:
// a capped reader following thousands pays for them only on deep pages.
struct Home {
  std::vector<Source> above, below;
  int64_t floor = 0;
};

Home HomeSources(Context& ctx, int64_t reader, bool want_below) {
  ShardSet& shards = ctx.shards();
  const std::string& feed = ctx.config().feed;
  Home home;
  // The inbox is complete from its floor up (tables/msg_index.h); below it, pull.
  if (feed != "pull") {
    home.floor = InboxFloor(shards.ForUser(reader), reader);
    home.above.push_back(InboxSource(shards, reader, home.floor));
  }
  bool pull_all = feed == "pull";
  want_below = want_below && home.floor > 0;
  if (pull_all)
    home.above.push_back(AuthorSource(shards, reader, true, 0));
  else if (want_below)
    home.below.push_back(AuthorSource(shards, reader, true, home.floor));
  if (feed == "push" && !want_below) return home;  // followees matter only below the floor
  // hybrid: only the authors whose active list holds the reader push to the reader.
  std::set<int64_t> active;
  if (feed == "hybrid") active = ActiveAuthors(shards.ForUser(reader), reader);
  for (int64_t author : Related(shards.ForUser(reader), reader, kFollowing)) {
    bool pulled = pull_all;
    if (feed == "hybrid") {
      auto user = GetUser(shards.ForUser(author), author);
      pulled = user && (!PushesAuthor(ctx, *user) || !active.count(author));
    }
    if (pulled)
      home.above.push_back(AuthorSource(shards, author, false, 0));
    else if (want_below)
      home.below.push_back(AuthorSource(shards, author, false, home.floor));
  }
  return home;
}

}  // namespace

Json Timeline(Context& ctx, const Json& args) {
  int64_t reader = ctx.ResolveUser(args.at("user"));
  int64_t count = args.value("count", 20);
  int64_t max_id = args.value("max_id", int64_t{0});
  int64_t since_id = args.value("since_id", int64_t{0});
  int64_t skip = args.value("page", int64_t{0}) * count;
  bool home = !args.value("posts", false);
  MessageView view(ctx);
  Json out = Json::array();
  int64_t cursor = max_id;
  // Merges sources over the ids between the cursor and bottom (exclusive) into out, until
  // the page is full or every source is exhausted down to bottom.
  auto run = [&](std::vector<Source>& sources, int64_t bottom) {
    bool windowed = false;
    for (const auto& s : sources) windowed = windowed || s.partitioned;
    while (static_cast<int64_t>(out.size()) < count) {
      int64_t want = skip + count - static_cast<int64_t>(out.size());
      int64_t lower = bottom;
      if (windowed) {
        int64_t top = 0;
        for (auto& source : sources) top = std::max(top, source.newest(cursor));
        if (top <= bottom) break;  // every source is exhausted
        lower = std::max(bottom, PartStart(PartOf(top)) - 1);
      }
      std::set<int64_t, std::greater<int64_t>> merged;
      for (auto& source : sources)
        for (int64_t id : source.read(cursor, lower, want)) merged.insert(id);
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
      if (static_cast<int64_t>(batch.size()) < want) {
        if (lower <= bottom) break;  // every source is exhausted
        cursor = lower + 1;          // the window is exhausted: the next one is older
        continue;
      }
      cursor = batch.back();
    }
  };
  if (home) {
    // Above the floor the inbox is complete: merge it with the pulled authors down to the
    // floor; only if the page is not full yet, go on below it with every source.
    Home h = HomeSources(ctx, reader, false);
    bool below = h.floor > 0 && since_id < h.floor - 1;
    run(h.above, below ? h.floor - 1 : since_id);
    if (below && static_cast<int64_t>(out.size()) < count) {
      Home all = HomeSources(ctx, reader, true);
      std::vector<Source> sources = std::move(all.above);
      for (auto& s : all.below) sources.push_back(std::move(s));
      if (cursor == 0 || cursor > h.floor) cursor = h.floor;
      run(sources, since_id);
    }
    NoteActivity(ctx, reader);
  } else {
    std::vector<Source> sources;
    sources.push_back(AuthorSource(ctx.shards(), reader, false, 0));
    run(sources, since_id);
  }
  return out;
}

}  // namespace weibo
