#include "workload.h"

#include <algorithm>
#include <set>

#include "graph.h"
#include "rng.h"
#include "weibo/time.h"

namespace weibo::bench {
namespace {

const char* const kWords[] = {"weibo",   "feed",     "push",  "pull",  "hybrid", "shard", "inbox",
                              "outbox",  "fans",     "post",  "today", "coffee", "rain",  "train",
                              "beijing", "shanghai", "music", "photo", "lunch",  "news",  "match",
                              "goal",    "movie",    "book",  "cat",   "dog",    "sunny", "late",
                              "again",   "why",      "great", "ok"};

// Follow-graph retries before falling back to a scan: enough that a scan is rare.
constexpr int kAttachTries = 32;

class Generator {
 public:
  explicit Generator(const WorkloadSpec& spec)
      : spec_(spec),
        graph_rng_(Rng(spec.seed).Fork(1)),
        post_rng_(Rng(spec.seed).Fork(2)),
        read_rng_(Rng(spec.seed).Fork(3)),
        mix_rng_(Rng(spec.seed).Fork(4)),
        // Ranks for users who join during the mix too: they get the least popular ranks.
        zipf_(static_cast<uint64_t>(spec.users + (spec.kind == "retwis" ? spec.ops : 0)),
              spec.zipf),
        // social: a message by its recency rank (0 the newest), over every message made.
        recent_(static_cast<uint64_t>(
                    spec.kind == "social" ? spec.users * spec.history + spec.posts + spec.ops : 1),
                spec.zipf) {
    Rng perm_rng = Rng(spec.seed).Fork(5);
    author_rank_ = Permutation(static_cast<uint64_t>(spec.users), perm_rng);
    reader_rank_ = Permutation(static_cast<uint64_t>(spec.users), perm_rng);
  }

  Trace Run() {
    for (int64_t i = 0; i < spec_.users; ++i) AddUser();
    for (int64_t round = 0; round < spec_.history; ++round)
      for (int64_t user = 1; user <= spec_.users; ++user) PostBy(user);
    Rng order_rng = graph_rng_.Fork(6);
    for (uint64_t f : Permutation(static_cast<uint64_t>(spec_.users), order_rng)) {
      int64_t follower = static_cast<int64_t>(f) + 1;
      uint64_t degree = std::min<uint64_t>(ParetoCount(graph_rng_, spec_.follows, 2.0),
                                           static_cast<uint64_t>(spec_.users - 1));
      for (uint64_t d = 0; d < degree; ++d) Follow(follower);
    }
    if (spec_.author_rank == "fans") RankAuthorsByFans();
    for (int64_t i = 0; i < spec_.posts; ++i) Post();
    if (spec_.kind == "timeline")
      for (int64_t i = 0; i < spec_.reads; ++i) Read();
    if (spec_.kind == "retwis")
      for (int64_t i = 0; i < spec_.ops; ++i) MixOp();
    if (spec_.kind == "social")
      for (int64_t i = 0; i < spec_.ops; ++i) SocialOp();
    return std::move(trace_);
  }

 private:
  void Emit(const char* op, Json args) {
    if (spec_.start_ms != 0)
      args["now"] =
          FormatTime(spec_.start_ms + static_cast<int64_t>(trace_.size()) * spec_.step_ms);
    trace_.push_back(Request{op, std::move(args)});
  }

  static std::string Id(int64_t user) { return std::to_string(user); }

  void AddUser() {
    int64_t id = graph_.users() + 1;
    std::string name = "u" + std::to_string(id);
    graph_.AddUser(name);
    attach_pool_.push_back(id);  // the "1 +" of preferential attachment
    if (id > spec_.users) {
      author_rank_.push_back(static_cast<uint64_t>(id - 1));
      reader_rank_.push_back(static_cast<uint64_t>(id - 1));
    }
    Emit("user_add", Json{{"name", name}});
  }

  // A target in proportion to 1 + its fans that the follower does not follow yet; 0 when
  // the follower already follows everyone.
  int64_t AttachTarget(int64_t follower) {
    int64_t n = graph_.users();
    if (static_cast<int64_t>(graph_.Followees(follower).size()) >= n - 1) return 0;
    for (int t = 0; t < kAttachTries; ++t) {
      int64_t target = attach_pool_[graph_rng_.Below(attach_pool_.size())];
      if (target != follower && !graph_.Follows(follower, target)) return target;
    }
    int64_t start = static_cast<int64_t>(graph_rng_.Below(static_cast<uint64_t>(n)));
    for (int64_t i = 0; i < n; ++i) {
      int64_t target = (start + i) % n + 1;
      if (target != follower && !graph_.Follows(follower, target)) return target;
    }
    return 0;
  }

  void Follow(int64_t follower) {
    int64_t target = AttachTarget(follower);
    if (target == 0) return;
    graph_.Follow(follower, target);
    attach_pool_.push_back(target);
    Emit("follow", Json{{"user", Id(follower)}, {"target", Id(target)}});
  }

  void Unfollow(int64_t follower) {
    const auto& followees = graph_.Followees(follower);
    int64_t target = followees[mix_rng_.Below(followees.size())];
    graph_.Unfollow(follower, target);
    // attach_pool_ keeps the entry: popularity has memory, and a stale entry only costs a
    // retry.
    Emit("unfollow", Json{{"user", Id(follower)}, {"target", Id(target)}});
  }

  // Rank 0 is the user with the most fans; ties by id, so the order is reproducible.
  void RankAuthorsByFans() {
    std::sort(author_rank_.begin(), author_rank_.end());
    std::stable_sort(author_rank_.begin(), author_rank_.end(), [&](uint64_t a, uint64_t b) {
      return graph_.Fans(static_cast<int64_t>(a) + 1).size() >
             graph_.Fans(static_cast<int64_t>(b) + 1).size();
    });
  }

  // A user by Zipf rank over a permutation; ranks of users not created yet are redrawn.
  int64_t Popular(const std::vector<uint64_t>& ranks, Rng& rng) {
    for (;;) {
      uint64_t rank = zipf_.Sample(rng);
      if (rank < ranks.size()) return static_cast<int64_t>(ranks[rank]) + 1;
    }
  }

  std::string Content(int64_t k, int64_t author) {
    std::string text = "post " + std::to_string(k) + " by u" + std::to_string(author) + ":";
    size_t length = 16 + post_rng_.Below(105);
    while (text.size() < length)
      text += std::string(" ") + kWords[post_rng_.Below(std::size(kWords))];
    return text;
  }

  void Post() { PostBy(Popular(author_rank_, post_rng_)); }

  void PostBy(int64_t author) {
    ++messages_;
    Emit("post", Json{{"user", Id(author)}, {"content", Content(messages_, author)}});
    authors_.push_back(author);
  }

  // social: the k-th message made (1-based, the trace's "#k"), or 0 when none is live. Most
  // picks are recent ones (Zipf over recency), as feeds show them: a few hot messages get
  // most of the likes, comments and reposts.
  int64_t HotMessage() {
    const int64_t n = static_cast<int64_t>(authors_.size());
    for (int tries = 0; tries < kAttachTries; ++tries) {
      int64_t rank = static_cast<int64_t>(recent_.Sample(mix_rng_));
      if (rank < n && !deleted_.count(n - rank)) return n - rank;
    }
    for (int64_t k = n; k >= 1; --k)
      if (!deleted_.count(k)) return k;
    return 0;
  }

  // A message made by a user (comment: on msg; repost: of msg).
  void Respond(const char* op, int64_t user, int64_t msg) {
    ++messages_;
    Emit(op, Json{{"user", Id(user)},
                  {"msg", "#" + std::to_string(msg)},
                  {"content", Content(messages_, user)}});
    authors_.push_back(user);
  }

  // social (weibo-bench(1)): 20% post, 30% like (an unlike when the user likes it already),
  // 8% comment, 5% repost, 2% delete by the author, 30% home timeline read, and 5%
  // notifications: 0.5% send, 3.5% unread, 1% read.
  void SocialOp() {
    const double r = mix_rng_.Unit();
    const int64_t user = Popular(reader_rank_, read_rng_);
    if (r < 0.20) return Post();
    if (r >= 0.65 && r < 0.95) return Read();
    if (r >= 0.95) {
      const char* op = r < 0.955 ? "notify_send" : r < 0.99 ? "notify_unread" : "notify_read";
      if (r < 0.955) return Emit(op, Json{{"content", "notice " + std::to_string(trace_.size())}});
      return Emit(op, Json{{"user", Id(user)}});
    }
    int64_t msg = HotMessage();
    if (msg == 0) return Post();
    if (r < 0.50) {
      const bool liked = !likes_.insert({user, msg}).second;
      if (liked) likes_.erase({user, msg});
      return Emit(liked ? "unlike" : "like",
                  Json{{"user", Id(user)}, {"msg", "#" + std::to_string(msg)}});
    }
    if (r < 0.58) return Respond("comment", user, msg);
    if (r < 0.63) return Respond("repost", user, msg);
    deleted_.insert(msg);
    Emit("delete", Json{{"user", Id(authors_[msg - 1])}, {"msg", "#" + std::to_string(msg)}});
  }

  void Read() {
    Emit("timeline", Json{{"user", Id(Popular(reader_rank_, read_rng_))}, {"count", spec_.count}});
  }

  void MixOp() {
    double r = mix_rng_.Unit();
    if (r < 0.05) return AddUser();
    if (r < 0.20) {
      int64_t user =
          static_cast<int64_t>(mix_rng_.Below(static_cast<uint64_t>(graph_.users()))) + 1;
      if (r >= 0.15 && !graph_.Followees(user).empty()) return Unfollow(user);
      return Follow(user);
    }
    if (r < 0.50) return Post();
    Read();
  }

  const WorkloadSpec& spec_;
  Rng graph_rng_, post_rng_, read_rng_, mix_rng_;
  Zipf zipf_;
  Zipf recent_;
  std::vector<uint64_t> author_rank_, reader_rank_;
  std::vector<int64_t> authors_;                 // of the k-th message made, at k - 1
  std::set<int64_t> deleted_;                    // social: messages deleted ("#k" numbers)
  std::set<std::pair<int64_t, int64_t>> likes_;  // social: (user, message) liked now
  std::vector<int64_t> attach_pool_;
  FollowGraph graph_;
  int64_t messages_ = 0;
  Trace trace_;
};

}  // namespace

Json WorkloadSpec::ToJson() const {
  Json j{{"workload", kind},
         {"seed", seed},
         {"users", users},
         {"follows", follows},
         {"history", history},
         {"posts", posts},
         {"reads", reads},
         {"ops", ops},
         {"count", count},
         {"zipf", zipf},
         {"author_rank", author_rank}};
  j["start"] = start_ms != 0 ? Json(FormatTime(start_ms)) : Json(nullptr);
  j["step_ms"] = step_ms;
  return j;
}

Status CheckSpec(const WorkloadSpec& spec) {
  auto bad = [](const std::string& what) { return Status(Code::kInvalidArgument, what); };
  if (spec.kind != "fanout" && spec.kind != "timeline" && spec.kind != "retwis" &&
      spec.kind != "social")
    return bad("--workload must be fanout, timeline, retwis or social, not '" + spec.kind + "'");
  if (spec.users < 2 || spec.users > 10000000) return bad("--users must be from 2 to 10000000");
  if (spec.follows < 1 || spec.follows > 1000) return bad("--follows must be from 1 to 1000");
  if (spec.posts < 0 || spec.reads < 0 || spec.ops < 0 || spec.history < 0)
    return bad("--history, --posts, --reads and --ops must not be negative");
  if (spec.count < 1 || spec.count > 200) return bad("--count must be from 1 to 200");
  if (spec.zipf < 0 || spec.zipf > 5) return bad("--zipf must be from 0 to 5");
  if (spec.author_rank != "fans" && spec.author_rank != "random")
    return bad("--author-rank must be fans or random, not '" + spec.author_rank + "'");
  if (spec.start_ms != 0 && spec.start_ms < kEarliestTimeMs)
    return bad("--now must be 2020-01-01 or later (message ids count from then)");
  return Status::Ok();
}

Trace Generate(const WorkloadSpec& spec) { return Generator(spec).Run(); }

}  // namespace weibo::bench
