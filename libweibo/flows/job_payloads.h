// The payload of every kind of outbox job: one struct each, with its kind's name and its
// own Encode and Decode, so that the flow that enqueues a job and the handler that applies
// it (often in two files) share a type, not a set of string keys. The encoding is the JSON
// stored in the outbox's payload column (tables/outbox.h): jobs written by an older build
// decode the same, so the keys and their order do not change.
#ifndef WEIBO_FLOWS_JOB_PAYLOADS_H_
#define WEIBO_FLOWS_JOB_PAYLOADS_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "jobs/context.h"

namespace weibo {

// flows/user.cc: the user's row on its own shard, after the name was taken.
struct UserCreateJob {
  static constexpr const char* kKind = "user_create";
  int64_t id = 0;
  std::string name;
  int64_t time = 0;
  Json Encode() const;
  static UserCreateJob Decode(const Json& j);
};

// flows/follow.cc: the fan row on the followee's shard; merge: then send the followee's
// recent posts to the fan's inbox (the feed has inboxes).
struct FanAddJob {
  static constexpr const char* kKind = "fan_add";
  int64_t user = 0;  // the followee
  int64_t fan = 0;
  int64_t time = 0;
  bool merge = false;
  bool join = true;  // hybrid: put the fan on the followee's active list (flows/follow.cc)
  Json Encode() const;
  static FanAddJob Decode(const Json& j);
};

struct FanRemoveJob {
  static constexpr const char* kKind = "fan_remove";
  int64_t user = 0;  // the followee
  int64_t fan = 0;
  Json Encode() const;
  static FanRemoveJob Decode(const Json& j);
};

// A post carried by a merge: its id and time.
struct MergeItem {
  int64_t msg_id = 0;
  int64_t time = 0;
};

// flows/follow.cc: a new followee's recent posts, into the fan's inbox.
struct InboxMergeJob {
  static constexpr const char* kKind = "inbox_merge";
  int64_t user = 0;  // the fan
  int64_t author = 0;
  std::vector<MergeItem> items;  // newest first
  // Set when the merge is full: the inbox is complete only from this post up.
  std::optional<int64_t> floor;
  Json Encode() const;
  static InboxMergeJob Decode(const Json& j);
};

// flows/fanout.cc: a post's fan-out on its author's shard.
struct FanOutJob {
  static constexpr const char* kKind = "fanout";
  int64_t author = 0;
  int64_t msg_id = 0;
  int64_t time = 0;
  Json Encode() const;
  static FanOutJob Decode(const Json& j);
};

// flows/fanout.cc: a post into the inboxes of some fans on one shard.
struct DeliverJob {
  static constexpr const char* kKind = "deliver";
  int64_t author = 0;
  int64_t msg_id = 0;
  int64_t time = 0;
  std::vector<int64_t> users;
  std::optional<int> tier;     // a later tier's job (1 or 2)
  bool tiered = false;         // sort users into activity tiers first
  std::vector<int64_t> later;  // tier 2, to enqueue once this tier 1 is applied
  int64_t of = 0;  // a later tier's: how many fans of this shard the fan-out listed (0: unknown)
  Json Encode() const;
  static DeliverJob Decode(const Json& j);
  // A plain delivery (no tiers to enqueue), judged on the encoded payload without decoding
  // its user list: it needs no job_applied mark (flows/fanout.cc).
  static bool Plain(const Json& j);
  // Calls f(msg_id, author, user) for each reader of the payload (users, then later),
  // without copying the lists as Decode does: the index of held deliveries
  // (flows/fanout.cc, IndexHeld).
  // One pass over the payload's fields finds the four it reads: looking each up by name
  // compared the name with every field before it, and was most of the index's time
  // (perf, r10k trace, session 48). A missing msg_id or author throws as at() does.
  template <class F>
  static void ForEachDelivery(const Json& j, F&& f) {
    const Json *msg_id = nullptr, *author = nullptr, *lists[2] = {nullptr, nullptr};
    if (j.is_object()) {
      for (const auto& [key, value] : j.get_ref<const Json::object_t&>()) {
        if (key == "msg_id")
          msg_id = &value;
        else if (key == "author")
          author = &value;
        else if (key == "users")
          lists[0] = &value;
        else if (key == "later")
          lists[1] = &value;
      }
    }
    const int64_t id = (msg_id != nullptr ? *msg_id : j.at("msg_id")).get<int64_t>();
    const int64_t by = (author != nullptr ? *author : j.at("author")).get<int64_t>();
    for (const Json* list : lists) {
      if (list == nullptr) continue;
      for (const Json& user : *list) f(id, by, user.get<int64_t>());
    }
  }
};

// flows/fanout.cc: a deleted post's undelivery, planned on its author's shard.
struct PurgeJob {
  static constexpr const char* kKind = "purge";
  int64_t author = 0;
  int64_t msg_id = 0;
  Json Encode() const;
  static PurgeJob Decode(const Json& j);
};

struct UndeliverJob {
  static constexpr const char* kKind = "undeliver";
  int64_t msg_id = 0;
  std::vector<int64_t> users;
  Json Encode() const;
  static UndeliverJob Decode(const Json& j);
};

// flows/refs.cc: a comment's or repost's row and counters on the referenced message's
// shard (the reference is the new message, the referenced the one it comments on).
struct RefAddJob {
  static constexpr const char* kKind = "ref_add";
  int type = 0;
  int64_t reference_id = 0;
  int64_t reference_msg_id = 0;
  int64_t referenced_id = 0;
  int64_t referenced_msg_id = 0;
  int64_t time = 0;
  Json Encode() const;
  static RefAddJob Decode(const Json& j);
};

struct RefRemoveJob {
  static constexpr const char* kKind = "ref_remove";
  int type = 0;
  int64_t reference_id = 0;
  int64_t reference_msg_id = 0;
  int64_t referenced_msg_id = 0;
  Json Encode() const;
  static RefRemoveJob Decode(const Json& j);
};

// flows/like.cc: a change of a message's like_count or view_count, on the message's own
// shard (a like, an unlike, a view counted by show). Deltas of one message pending together
// are merged into one UPDATE (ApplyCounterDeltas); readers add the pending ones
// (tables/msg_counter.h, GetLiveCounter, which reads these keys in SQL).
struct CounterDeltaJob {
  static constexpr const char* kKind = kCounterDeltaKind;  // tables/outbox.h
  int64_t msg_id = 0;
  int64_t likes = 0;
  int64_t views = 0;
  Json Encode() const;
  static CounterDeltaJob Decode(const Json& j);
};

// flows/active.cc: a reader rejoining the active lists of the followees on one shard.
struct ActiveJoinJob {
  static constexpr const char* kKind = "active_join";
  int64_t fan = 0;
  std::vector<int64_t> authors;
  int64_t floor = 0;  // the fan's inbox floor: posts below it are not merged
  Json Encode() const;
  static ActiveJoinJob Decode(const Json& j);
};

// One author's part of an active_merge: its list position and recent posts.
struct ActiveMergeEntry {
  int64_t author = 0;
  int64_t seq = 0;
  std::vector<MergeItem> items;
  std::optional<int64_t> floor;  // as InboxMergeJob::floor
  Json Encode() const;
  static ActiveMergeEntry Decode(const Json& j);
};

struct ActiveMergeJob {
  static constexpr const char* kKind = "active_merge";
  int64_t user = 0;  // the fan
  std::vector<ActiveMergeEntry> entries;
  Json Encode() const;
  static ActiveMergeJob Decode(const Json& j);
};

// flows/active.cc: a fan evicted from an author's active list.
struct ActiveDropJob {
  static constexpr const char* kKind = "active_drop";
  int64_t user = 0;  // the fan
  int64_t author = 0;
  int64_t upto = 0;
  Json Encode() const;
  static ActiveDropJob Decode(const Json& j);
};

// flows/tokens.cc: a token's revocation, into its app's events (weibo-app events).
struct AppEventJob {
  static constexpr const char* kKind = "app_event";
  std::string app;
  std::string event;  // "token_revoked"
  std::string token_id;
  int64_t user = 0;
  int64_t time = 0;
  Json Encode() const;
  static AppEventJob Decode(const Json& j);
};

// flows/search.cc: bring a message's row of the search index (search-NN.db) to what
// msg_info holds now — its text, or no row once it is deleted. Enqueued by post, repost,
// comment, edit and delete, for the message's own shard.
struct SearchIndexJob {
  static constexpr const char* kKind = "search_index";
  int64_t msg_id = 0;
  Json Encode() const;
  static SearchIndexJob Decode(const Json& j);
};

// flows/entities.cc: one row of index_<index> on the shard of the entity's shard_on value,
// when that is not the entity's own shard: added, or removed when the entity changed.
// entity is the 16-byte id in hex (tables/entity.h).
struct IndexRowJob {
  static constexpr const char* kKind = "index_row";
  std::string index;
  std::string value;
  std::string entity;
  bool remove = false;
  Json Encode() const;
  static IndexRowJob Decode(const Json& j);
};

// flows/placement.cc (strategy uid-mapping): the tid_map row of a new message, or its
// deleted mark, on shard tid mod N when that is not its author's.
struct TidMapJob {
  static constexpr const char* kKind = "tid_map";
  int64_t msg_id = 0;
  int64_t user_id = 0;
  bool deleted = false;  // the message was deleted
  Json Encode() const;
  static TidMapJob Decode(const Json& j);
};

// flows/message_write.cc (strategy tid): a new message's own rows — msg_info, its counter
// row, its entity (attrs), and the ref_add and search_index jobs they start — on shard
// msg mod N when that is not its author's.
struct MsgWriteJob {
  static constexpr const char* kKind = "msg_write";
  MsgRow row;
  Json attrs;  // null: none
  Json Encode() const;
  static MsgWriteJob Decode(const Json& j);
};

// flows/delete.cc (strategy tid): a deleted message's author side — its author_feed row,
// its author's own inbox row, msg_count - 1 and the purge of its pushed rows — on the
// author's shard when that is not the message's.
struct AuthorDropJob {
  static constexpr const char* kKind = "author_drop";
  int64_t user_id = 0;
  int64_t msg_id = 0;
  int type = 0;
  Json Encode() const;
  static AuthorDropJob Decode(const Json& j);
};

// Writes a job into source's open transaction (Context::Enqueue) under its payload's kind.
template <typename Job>
void Enqueue(Context& ctx, Shard& source, int target, const Job& job) {
  ctx.Enqueue(source, target, Job::kKind, job.Encode());
}

}  // namespace weibo

#endif  // WEIBO_FLOWS_JOB_PAYLOADS_H_
