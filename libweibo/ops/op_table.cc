// The operation table (weibo/ops.h): every operation with its arguments, home key,
// command, handler and renderer. Arguments are listed in the order the command's --help
// shows its options.
#include "flows/flows.h"
#include "ops/local.h"
#include "render/text.h"
#include "storage/shard_set.h"
#include "weibo/ops.h"

namespace weibo {
namespace {

using A = ArgType;

// The acting user of a command: -u, or WEIBO_USER.
const ArgSpec kActingUser{"user",      A::kUser, true,        "the acting user: an id or @name",
                          "-u,--user", nullptr,  "WEIBO_USER"};

ArgSpec Message(const char* help) { return {"msg", A::kMsg, true, help, "MSG"}; }

ArgSpec Content(const char* help, bool required = true) {
  return {"content", A::kText, required, help, "TEXT"};
}

ArgSpec PageIndex() { return {"page", A::kPage, false, "the page_index to show", nullptr, 0}; }

// init's options, each defaulting to what a cluster gets when the request leaves it out.
std::vector<ArgSpec> InitArgs() {
  const ClusterConfig d;
  return {
      {"shards", A::kPage, false, "shard count, a power of two from 1 to 256", nullptr, d.shards},
      {"feed", A::kString, false, "feed mode: push, pull or hybrid", nullptr, d.feed},
      {"page_size", A::kPage, false, "comments and reposts per fixed page", nullptr, d.page_size},
      // uid-mapping and tid (SPEC §2) are named, and refused, until they are built.
      {"strategy", A::kString, false, "message sharding: only gene in this build", nullptr,
       d.strategy},
      {"inbox_cap", A::kPage, false, "push inbox rows kept per user", nullptr, d.inbox_cap},
      {"celebrity_threshold", A::kPage, false, "hybrid: fans from which an author is pulled",
       nullptr, d.celebrity_threshold},
      {"active_list", A::kPage, false, "hybrid: length of each author's active-follower list",
       nullptr, d.active_list},
      {"tier_fans", A::kPage, false, "push: fans from which delivery is tiered by activity",
       nullptr, d.tier_fans},
      {"force", A::kFlag, false, "replace an existing cluster (its data is lost)"}};
}

std::vector<OpSpec> Table() {
  const HomeKey kUser = HomeKey::kUser, kMsg = HomeKey::kMessage;
  std::vector<OpSpec> ops = {
      {"init", true, "Create a cluster: cluster.json and N SQLite shards.", InitArgs(),
       HomeKey::kNone, "init", nullptr, Init, render::Init},
      {"user_add",
       true,
       "create a user (1-20 characters, no spaces, no '@')",
       {{"name", A::kName, true, "the new user's unique name", "NAME"},
        {"exist_ok", A::kFlag, false, "if the name is taken, print that user and succeed"}},
       HomeKey::kName,
       "user add",
       UserAdd,
       nullptr,
       render::User},
      {"user_show",
       false,
       "show one user",
       {{"user", A::kUser, true, "an id or @name", "USER"}},
       kUser,
       "user show",
       UserShow,
       nullptr,
       render::User},
      {"user_list",
       false,
       "list every user by id",
       {},
       HomeKey::kNone,
       "user list",
       UserList,
       nullptr,
       render::Users},
      {"follow",
       true,
       "The acting user (-u) now follows TARGET.",
       {kActingUser,
        {"target", A::kUser, true, "an id or @name", "TARGET"},
        {"exist_ok", A::kFlag, false, "succeed, changing nothing, if already following"}},
       kUser,
       "follow",
       Follow,
       nullptr,
       render::Follow},
      {"unfollow",
       true,
       "The acting user (-u) stops following TARGET.",
       {kActingUser, {"target", A::kUser, true, "an id or @name", "TARGET"}},
       kUser,
       "unfollow",
       Unfollow,
       nullptr,
       render::Follow},
      {"post",
       true,
       "Post an original message (up to 140 characters).",
       {kActingUser, Content("the message, or - to read it from standard input")},
       kUser,
       "post",
       Post},
      {"repost",
       true,
       "Repost a message, optionally with text.",
       {kActingUser, Message("the message to repost"),
        Content("optional text, or - for standard input", false)},
       kUser,
       "repost",
       Repost},
      {"comment",
       true,
       "Comment on a message (fixed page_index).",
       {kActingUser, Message("the message to comment on"),
        Content("the comment, or - to read it from standard input")},
       kUser,
       "comment",
       Comment},
      {"delete",
       true,
       "Delete a message: its author may, and so may the author of the message a comment is "
       "on.",
       {kActingUser, Message("the message to delete")},
       kMsg,
       "delete",
       Delete,
       nullptr,
       render::Deleted},
      {"timeline",
       false,
       "Home timeline, newest first (--posts: own posts).",
       {kActingUser,
        {"posts", A::kFlag, false, "the user's own posts instead of the home timeline"},
        {"count", A::kCount, false, "items per page, 1 to 200", nullptr, 20},
        {"max_id", A::kMsg, false, "only items older than this id (exclusive)"},
        {"since_id", A::kMsg, false, "only items newer than this id (exclusive)"},
        {"page", A::kPage, false, "0-based page of --count items", nullptr, 0}},
       kUser,
       "timeline",
       Timeline},
      // show counts a view: a write, served by the message's owner.
      {"show",
       true,
       "Show one message with its counters and root; counts a view.",
       {Message("the message id")},
       kMsg,
       "show",
       Show},
      {"comments",
       false,
       "One fixed page (page_index) of a message's comments, oldest first.",
       {Message("the message id"), PageIndex()},
       kMsg,
       "comments",
       Comments},
      {"reposts",
       false,
       "One fixed page (page_index) of a message's reposts, oldest first.",
       {Message("the message id"), PageIndex()},
       kMsg,
       "reposts",
       Reposts},
      {"count",
       false,
       "All counters of many messages in one call.",
       {{"msgs", A::kMsgList, true, "message ids (1 to 200)", "MSG"}},
       HomeKey::kNone,
       "count",
       Count,
       nullptr,
       render::Counts},
      // weibo-worker runs it, once or over and over: it has no command of its own.
      {"drain",
       true,
       "apply every pending outbox job of every shard, idempotently",
       {},
       HomeKey::kNone,
       nullptr,
       Drain,
       nullptr,
       render::Drain},
      {"fsck",
       true,
       "Check every invariant across all shards; exit 1 on a violation.",
       {{"repair", A::kFlag, false, "apply pending jobs and fix every violation found"}},
       HomeKey::kNone,
       "fsck",
       Fsck,
       nullptr,
       render::Fsck},
  };
  return ops;
}

}  // namespace

const std::vector<OpSpec>& Operations() {
  static const std::vector<OpSpec> kOps = Table();
  return kOps;
}

const OpSpec* FindOperation(const std::string& name) {
  for (const auto& op : Operations())
    if (name == op.name) return &op;
  return nullptr;
}

}  // namespace weibo
