// The operation table: name, read/write, summary and arguments of every operation.
// Dispatch (ops/embedded.cc), argument validation (ops/args.cc), the commands' --help and
// the daemon all read this one table.
#include <cstring>

#include "weibo/ops.h"

namespace weibo {

const std::vector<OpSpec>& Operations() {
  using A = ArgType;
  static const std::vector<OpSpec> kOps = {
      {"init",
       true,
       "create a cluster: cluster.json and N shard files",
       {{"shards", A::kPage, false, "shard count, a power of two from 1 to 256 (16)"},
        {"feed", A::kString, false, "push, pull or hybrid (hybrid)"},
        {"page_size", A::kPage, false, "comments and reposts per fixed page (20)"},
        {"strategy", A::kString, false, "gene, uid-mapping or tid (gene)"},
        {"inbox_cap", A::kPage, false, "push inbox rows kept per user (800)"},
        {"celebrity_threshold", A::kPage, false,
         "hybrid: fans from which an author is pulled (10000)"},
        {"active_list", A::kPage, false,
         "hybrid: length of each author's active-follower list (1000)"},
        {"tier_fans", A::kPage, false,
         "push: fans from which delivery is tiered by activity (1000)"},
        {"force", A::kFlag, false, "replace an existing cluster"}}},
      {"user_add",
       true,
       "create a user with a unique name",
       {{"name", A::kName, true, "user name"}}},
      {"user_show", false, "show one user", {{"user", A::kUser, true, "user id or @name"}}},
      {"user_list", false, "list every user by id", {}},
      {"follow",
       true,
       "user starts following target",
       {{"user", A::kUser, true, "the follower"}, {"target", A::kUser, true, "who to follow"}}},
      {"unfollow",
       true,
       "user stops following target",
       {{"user", A::kUser, true, "the follower"}, {"target", A::kUser, true, "who to unfollow"}}},
      {"post",
       true,
       "post an original message",
       {{"user", A::kUser, true, "the author"},
        {"content", A::kText, true, "up to 140 characters"}}},
      {"repost",
       true,
       "repost a message, optionally with text",
       {{"user", A::kUser, true, "who reposts"},
        {"msg", A::kMsg, true, "the message reposted"},
        {"content", A::kText, false, "optional text, up to 140 characters"}}},
      {"comment",
       true,
       "comment on a message (fixed page_index)",
       {{"user", A::kUser, true, "who comments"},
        {"msg", A::kMsg, true, "the message commented on"},
        {"content", A::kText, true, "up to 140 characters"}}},
      {"delete",
       true,
       "delete a message (its author, or for a comment the commented author)",
       {{"user", A::kUser, true, "who deletes"}, {"msg", A::kMsg, true, "the message"}}},
      {"timeline",
       false,
       "home timeline, or with posts a user's own posts, newest first",
       {{"user", A::kUser, true, "whose timeline"},
        {"count", A::kCount, false, "items per page, 1 to 200 (20)"},
        {"max_id", A::kMsg, false, "only items older than this id"},
        {"since_id", A::kMsg, false, "only items newer than this id"},
        {"page", A::kPage, false, "0-based page of count items"},
        {"posts", A::kFlag, false, "the user's own posts instead of the home timeline"}}},
      {"show", true, "show one message (counts a view)", {{"msg", A::kMsg, true, "the message"}}},
      {"comments",
       false,
       "one fixed page of a message's comments",
       {{"msg", A::kMsg, true, "the message"}, {"page", A::kPage, false, "page_index (0)"}}},
      {"reposts",
       false,
       "one fixed page of a message's reposts",
       {{"msg", A::kMsg, true, "the message"}, {"page", A::kPage, false, "page_index (0)"}}},
      {"count",
       false,
       "all counters of many messages in one call",
       {{"msgs", A::kMsgList, true, "message ids"}}},
      {"drain", true, "apply every pending outbox job of every shard, idempotently", {}},
      {"fsck",
       true,
       "check every invariant across all shards; repair fixes them",
       {{"repair", A::kFlag, false, "fix what is found"}}},
  };
  return kOps;
}

const OpSpec* FindOperation(const std::string& name) {
  for (const auto& op : Operations())
    if (name == op.name) return &op;
  return nullptr;
}

}  // namespace weibo
