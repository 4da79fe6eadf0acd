// The operation table (weibo/ops.h): every operation with its arguments, home key,
// command, handler and renderer. Arguments are listed in the order the command's --help
// shows its options.
#include <set>
#include <string>

#include "flows/flows.h"
#include "ops/local.h"
#include "render/text.h"
#include "storage/shard_set.h"
#include "weibo/ops.h"

namespace weibo {

// Each op's handler, defined in its flow file (the file named). An op is this declaration,
// its row below and that file: options, help, routing, rendering and the daemon follow from
// the row (ARCHITECTURE.md, "Adding an operation").
// flows/user.cc
Json UserAdd(Context& ctx, const Json& args);
Json UserShow(Context& ctx, const Json& args);
Json UserList(Context& ctx, const Json& args);
// flows/follow.cc
Json Follow(Context& ctx, const Json& args);
Json Unfollow(Context& ctx, const Json& args);
// flows/import.cc
Json Import(Context& ctx, const Json& args);
// flows/post.cc, repost.cc, comment.cc
Json Post(Context& ctx, const Json& args);
Json Repost(Context& ctx, const Json& args);
Json Comment(Context& ctx, const Json& args);
// flows/delete.cc
Json Delete(Context& ctx, const Json& args);
// flows/edit.cc
Json Edit(Context& ctx, const Json& args);
// flows/search.cc
Json Search(Context& ctx, const Json& args);
// flows/timeline.cc
Json Timeline(Context& ctx, const Json& args);
std::string TimelineText(Context& ctx, const Json& args);
// flows/show.cc
Json Show(Context& ctx, const Json& args);
Json Comments(Context& ctx, const Json& args);
Json Reposts(Context& ctx, const Json& args);
Json Count(Context& ctx, const Json& args);
std::string CountText(Context& ctx, const Json& args);
// flows/like.cc
Json Like(Context& ctx, const Json& args);
Json Unlike(Context& ctx, const Json& args);
Json Likes(Context& ctx, const Json& args);
// flows/notify.cc
Json NotifySend(Context& ctx, const Json& args);
Json NotifyList(Context& ctx, const Json& args);
Json NotifyRead(Context& ctx, const Json& args);
Json NotifyUnread(Context& ctx, const Json& args);
// flows/tokens.cc
Json AppRegister(Context& ctx, const Json& args);
Json AppList(Context& ctx, const Json& args);
Json AppEvents(Context& ctx, const Json& args);
Json TokenIssue(Context& ctx, const Json& args);
Json TokenRevoke(Context& ctx, const Json& args);
Json TokenList(Context& ctx, const Json& args);
Json TokenCheck(Context& ctx, const Json& args);
// flows/avatar.cc
Json AvatarSet(Context& ctx, const Json& args);
Json AvatarUrl(Context& ctx, const Json& args);
Json AvatarRm(Context& ctx, const Json& args);
// flows/discover.cc
Json Discover(Context& ctx, const Json& args);
// flows/drain.cc
Json Drain(Context& ctx, const Json& args);
// flows/fsck.cc
Json Fsck(Context& ctx, const Json& args);
// flows/entities.cc, find.cc, cleaner.cc
Json IndexAdd(Context& ctx, const Json& args);
Json IndexList(Context& ctx, const Json& args);
Json IndexDrop(Context& ctx, const Json& args);
Json Find(Context& ctx, const Json& args);
Json Cleaner(Context& ctx, const Json& args);
// flows/archive.cc
Json Archive(Context& ctx, const Json& args);

namespace {

using A = ArgType;

// The acting user of a command: -u, or WEIBO_USER.
const ArgSpec kActingUser{"user",      A::kUser, true,        "the acting user: an id or @name",
                          "-u,--user", nullptr,  "WEIBO_USER"};

ArgSpec Message(const char* help) { return {"msg", A::kMsg, true, help, "MSG"}; }

ArgSpec Content(const char* help, bool required = true) {
  return {"content", A::kText, required, help, "TEXT"};
}

// A message's attributes (flows/entities.h): the option once per pair.
const ArgSpec kAttrs{"attrs", A::kAttrList, false,
                     "an attribute KEY=VALUE of the message (again for each; weibo-find)",
                     "--attr"};

ArgSpec PageIndex() { return {"page", A::kPage, false, "the page_index to show", nullptr, 0}; }

// init's options, each defaulting to what a cluster gets when the request leaves it out.
std::vector<ArgSpec> InitArgs() {
  const ClusterConfig d;
  return {
      {"shards", A::kPage, false, "shard count, a power of two from 1 to 256", nullptr, d.shards},
      {"feed", A::kString, false, "feed mode: push, pull or hybrid", nullptr, d.feed},
      {"page_size", A::kPage, false, "comments and reposts per fixed page", nullptr, d.page_size},
      // tid (SPEC §2) is named, and refused, until it is built.
      {"strategy", A::kString, false, "message sharding: gene, uid-mapping or tid", nullptr,
       d.strategy},
      {"inbox_cap", A::kPage, false, "push inbox rows kept per user", nullptr, d.inbox_cap},
      {"celebrity_threshold", A::kPage, false, "hybrid: fans from which an author is pulled",
       nullptr, d.celebrity_threshold},
      {"active_list", A::kPage, false, "hybrid: length of each author's active-follower list",
       nullptr, d.active_list},
      {"tier_fans", A::kPage, false, "push: fans from which delivery is tiered by activity",
       nullptr, d.tier_fans},
      {"durability", A::kString, false,
       "full (a commit is on disk when it returns) or normal (WAL, synchronous=NORMAL)", nullptr,
       d.durability},
      {"force", A::kFlag, false, "replace an existing cluster (its data is lost)"}};
}

// weibo-app(1) and weibo-token(1) (SPEC §8, flows/tokens.cc). Registering apps, issuing
// tokens and reading apps' events are the operator's (admin scope under weibod --auth);
// a token's holder may check or revoke it; a user lists their own tokens.
std::vector<OpSpec> TokenOps() {
  const HomeKey kUser = HomeKey::kUser;
  const ArgSpec token{"token", A::kString, true, "the access token", "TOKEN"};
  return {
      {"app_register",
       true,
       "register an app: prints its key and its secret, the secret only this once",
       {{"name", A::kName, true, "the app's unique name", "NAME"}},
       HomeKey::kName,
       "app register",
       AppRegister,
       nullptr,
       render::App,
       /*admin=*/true},
      {"app_list",
       false,
       "list every app by name",
       {},
       HomeKey::kNone,
       "app list",
       AppList,
       nullptr,
       render::Apps,
       /*admin=*/true},
      {"app_events",
       false,
       "an app's revocation events, newest first",
       {{"key", A::kString, true, "the app key", "KEY"},
        {"count", A::kCount, false, "events per page, 1 to 200", nullptr, 20},
        {"max_id", A::kMsg, false, "only events older than this id (exclusive)"}},
       HomeKey::kNone,
       "app events",
       AppEvents,
       nullptr,
       render::AppEvents,
       /*admin=*/true},
      {"token_issue",
       true,
       "issue an access token for a user of an app: prints it, only this once",
       {{"app", A::kString, true, "the app key the token is for", "--app"},
        kActingUser,
        {"scope", A::kString, false, "what it may do: read, write or admin", nullptr, "write"},
        {"long_lived", A::kFlag, false, "never expires (default: 24 hours)"},
        {"ttl", A::kString, false, "expires after this long: 90s, 30m, 12h, 7d (up to 366d)",
         "--ttl"}},
       kUser,
       "token issue",
       TokenIssue,
       nullptr,
       render::Token,
       /*admin=*/true},
      {"token_revoke",
       true,
       "revoke a token (again: no change); its app is told",
       {token},
       HomeKey::kToken,
       "token revoke",
       TokenRevoke,
       nullptr,
       render::Token},
      {"token_list",
       false,
       "list a user's tokens, newest first (never the tokens themselves)",
       {kActingUser},
       kUser,
       "token list",
       TokenList,
       nullptr,
       render::Tokens},
      {"token_check",
       false,
       "what a token grants, or exit 3 with why it grants nothing",
       {token},
       HomeKey::kNone,
       "token check",
       TokenCheck,
       nullptr,
       render::Token},
  };
}

// weibo-avatar(1) and weibo-discover(1): seed 001's avatars and random-posts cache.
std::vector<OpSpec> SeedOps() {
  const HomeKey kUser = HomeKey::kUser;
  return {
      {"avatar_set",
       true,
       "store a user's picture: the original, 180x180 and 48x48 JPEGs",
       {kActingUser,
        {"image", A::kFile, true,
         "a JPEG, PNG, WebP or GIF file of up to 4 MiB; its bytes are sent, not its path", "FILE"}},
       kUser,
       "avatar set",
       AvatarSet,
       nullptr,
       render::Avatar},
      {"avatar_url",
       false,
       "the path of a user's picture, with ?t=<mtime> so that no cache serves an old one",
       {kActingUser, {"size", A::kPage, false, "the side in pixels: 48 or 180", nullptr, 48}},
       kUser,
       "avatar url",
       AvatarUrl,
       nullptr,
       render::Avatar},
      {"avatar_rm",
       true,
       "remove a user's picture",
       {kActingUser},
       kUser,
       "avatar rm",
       AvatarRm,
       nullptr,
       render::Avatar},
      {"discover",
       false,
       "Random recent posts: one of N groups drawn every t seconds (cluster.json).",
       {{"count", A::kCount, false, "posts to show, at most the groups' size (default: all)"},
        {"group", A::kPage, false, "the group to read, 1 to N (default: drawn from the clock)"}},
       HomeKey::kNone,
       "discover",
       Discover},
      // seed 000's archive (flows/archive.cc): each node moves the shards it owns.
      {"archive",
       true,
       "Move messages older than TIME, with their rows, into the archive files; resumable.",
       {{"before", A::kString, true, "the time (epoch seconds or ISO 8601; not in the future)",
         "--before"},
        {"batch", A::kPage, false, "messages (then readers' inboxes) moved per transaction",
         "--batch", 500}},
       HomeKey::kEveryNode,
       "archive",
       Archive,
       nullptr,
       render::Archive,
       /*admin=*/true},
  };
}

// The entity store (SPEC §9, seed 001's FriendFeed): weibo-index(1) declares the indexes
// (cluster.json), weibo-find(1) reads messages through them, weibo-cleaner(1) mends them.
std::vector<OpSpec> EntityOps() {
  const ArgSpec name{"name", A::kString, true, "the index's name (its table is index_NAME)",
                     "NAME"};
  return {
      {"index_add",
       true,
       "declare an index of an entity property and create its table on every shard",
       {name,
        {"property", A::kString, true, "the property it indexes", "--property"},
        {"shard_on", A::kString, false,
         "the property whose value picks the row's shard "
         "(default: --property)",
         "--shard-on"}},
       HomeKey::kNone,
       "index add",
       IndexAdd,
       nullptr,
       render::Index,
       /*admin=*/true},
      {"index_list",
       false,
       "list the declared indexes",
       {},
       HomeKey::kNone,
       "index list",
       IndexList,
       nullptr,
       render::Indexes},
      {"index_drop",
       true,
       "undeclare an index and drop its table on every shard",
       {name},
       HomeKey::kNone,
       "index drop",
       IndexDrop,
       nullptr,
       render::IndexDropped,
       /*admin=*/true},
      {"find",
       false,
       "Messages whose attribute PROPERTY is VALUE, through its index, newest first.",
       {{"query", A::kString, true, "PROPERTY=VALUE, PROPERTY an indexed attribute", "QUERY"},
        {"count", A::kCount, false, "messages at most, 1 to 200", nullptr, 20}},
       HomeKey::kNone,
       "find",
       Find},
      {"cleaner",
       true,
       "Add missing and remove stale index rows, newest entities first; resumable.",
       {{"index", A::kString, false, "only this index (the backfill of a new one)", "--index"},
        {"batch", A::kPage, false, "stop after this many entities and rows; run again to go on",
         "--batch"}},
       HomeKey::kNone,
       "cleaner",
       Cleaner,
       nullptr,
       render::Cleaner,
       /*admin=*/true},
  };
}

std::vector<OpSpec> Table() {
  const HomeKey kUser = HomeKey::kUser, kMsg = HomeKey::kMessage;
  std::vector<OpSpec> ops = {
      {"init", true, "Create a cluster: cluster.json and N SQLite shards.", InitArgs(),
       HomeKey::kNone, "init", nullptr, Init, render::Init, /*admin=*/true},
      {"user_add",
       true,
       "create a user (1-20 characters, no spaces, no '@')",
       {{"name", A::kName, true, "the new user's unique name", "NAME"},
        {"exist_ok", A::kFlag, false, "if the name is taken, print that user and succeed"}},
       HomeKey::kName,
       "user add",
       UserAdd,
       nullptr,
       render::User,
       /*admin=*/true},  // a write acting for no user: accounts are the operator's
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
       "The acting user (-u) now follows TARGET, or every user of --from-file.",
       {kActingUser,
        {"target", A::kUser, false, "an id or @name (or --from-file)", "TARGET"},
        {"from_file", A::kUserList, false,
         "follow every user of FILE (an id or @name a line; - for standard input), batched"},
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
      // Writes every follower's shard from one process: refused on a cluster node.
      {"import",
       true,
       "Load follows from an edge list (FOLLOWER TARGET a line), batched per shard.",
       {{"edges", A::kEdgeList, true, "the edge list file, or - for standard input", "FILE"}},
       HomeKey::kNone,
       "import",
       Import,
       nullptr,
       render::Import},
      {"post",
       true,
       "Post an original message (up to 140 characters).",
       {kActingUser, Content("the message, or - to read it from standard input"), kAttrs},
       kUser,
       "post",
       Post},
      {"repost",
       true,
       "Repost a message, optionally with text.",
       {kActingUser, Message("the message to repost"),
        Content("optional text, or - for standard input", false), kAttrs},
       kUser,
       "repost",
       Repost},
      {"comment",
       true,
       "Comment on a message (fixed page_index).",
       {kActingUser, Message("the message to comment on"),
        Content("the comment, or - to read it from standard input"), kAttrs},
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
      // A read: the page takes read transactions only. What a home read owes (the red dot's
      // mark when it moved, activity at most hourly) is one write without an fsync after
      // them, when due (flows/timeline.cc): harmless to repeat, so no reply is kept.
      {"edit",
       true,
       "Edit the text of an original or a repost (its author only; the old text is kept).",
       {kActingUser, Message("the message to edit"),
        Content("the new text, or - to read it from standard input")},
       kMsg,
       "edit",
       Edit},
      {"timeline",
       false,
       "Home timeline, newest first (--posts: own posts).",
       {kActingUser,
        {"posts", A::kFlag, false, "the user's own posts instead of the home timeline"},
        {"count", A::kCount, false, "items per page, 1 to 200", nullptr, 20},
        {"max_id", A::kMsg, false, "only items older than this id (exclusive)"},
        {"since_id", A::kMsg, false, "only items newer than this id (exclusive)"},
        {"page", A::kPage, false, "0-based page of --count items", nullptr, 0},
        {"unread", A::kFlag, false, "print the red dot: items newer than the last seen (99+)"}},
       kUser,
       "timeline",
       Timeline,
       nullptr,
       render::Timeline,
       false,
       TimelineText},
      // show counts a view: a write, served by the message's owner.
      {"show",
       true,
       "Show one message with its counters and root; counts a view.",
       {Message("the message id"),
        {"history", A::kFlag, false, "also the texts the message had before its edits"}},
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
       render::Counts,
       false,
       CountText},
      // search reads every shard's search file (with --author only the author's, but every
      // one under strategy tid); --rebuild rewrites them from msg_info, derived data only,
      // as the worker's drains do.
      {"search",
       false,
       "Search messages by text (3 or more characters), author and time, newest first.",
       {{"query", A::kText, false, "text to find: any substring of 3 or more characters", "QUERY"},
        {"author", A::kUser, false, "only this author's messages: an id or @name"},
        {"since", A::kString, false, "only messages from this time on (epoch seconds or ISO 8601)"},
        {"until", A::kString, false, "only messages before this time"},
        {"count", A::kCount, false, "messages per page, 1 to 200", nullptr, 20},
        {"max_id", A::kMsg, false, "only messages older than this id (exclusive)"},
        {"rebuild", A::kFlag, false, "reindex every message from msg_info (while others write)"}},
       HomeKey::kNone,
       "search",
       Search,
       nullptr,
       render::Search},
      {"like",
       true,
       "The acting user (-u) likes MSG (at most once).",
       {kActingUser, Message("the message to like")},
       kMsg,
       "like",
       Like},
      {"unlike",
       true,
       "The acting user (-u) no longer likes MSG.",
       {kActingUser, Message("the message to unlike")},
       kMsg,
       "unlike",
       Unlike},
      {"likes",
       false,
       "Who likes a message, newest first, one page of page_size users.",
       {Message("the message id"), {"page", A::kPage, false, "0-based page", nullptr, 0}},
       kMsg,
       "likes",
       Likes,
       nullptr,
       render::Likes},
      // Notifications (seed 004): one list for everyone on shard 0; send has no home shard
      // of its own (weibo-notify(1), in a cluster).
      {"notify_send",
       true,
       "send a system notification to every user (one row)",
       {Content("the notification, or - to read it from standard input")},
       HomeKey::kNone,
       "notify send",
       NotifySend,
       nullptr,
       render::Notification},
      {"notify_list",
       false,
       "the system notifications, newest first",
       {kActingUser,
        {"count", A::kCount, false, "notifications per page, 1 to 200", nullptr, 20},
        {"max_id", A::kMsg, false, "only notifications older than this id (exclusive)"}},
       kUser,
       "notify list",
       NotifyList,
       nullptr,
       render::Notifications},
      {"notify_read",
       true,
       "mark every notification read: store the newest id as the user's last read",
       {kActingUser},
       kUser,
       "notify read",
       NotifyRead,
       nullptr,
       render::Unread},
      {"notify_unread",
       false,
       "how many notifications are newer than the user's last read (0 for a new user)",
       {kActingUser},
       kUser,
       "notify unread",
       NotifyUnread,
       nullptr,
       render::Unread},
      // weibo-worker runs it, once or over and over: it has no command of its own.
      {"drain",
       true,
       "apply every pending outbox job of every shard, idempotently",
       // keep_seen: no expiry of last-seen ids (flows/notify.cc) in this pass — a daemon
       // whose requests bring their own clock (--allow-clock) runs its own passes so.
       // keep_held: weibod's own periodic pass, which leaves the counter deltas it holds
       // back to merge (jobs/jobs.h, kDeferredHoldMs) until they are due.
       {{"keep_seen", A::kFlag, false, "do not expire the last-seen ids of inactive users"},
        {"keep_held", A::kFlag, false,
         "leave the counter deltas this daemon holds back to merge until they are due"}},
       HomeKey::kEveryNode,
       nullptr,
       Drain,
       nullptr,
       render::Drain,
       /*admin=*/true},
      {"fsck",
       true,
       "Check every invariant across all shards; exit 1 on a violation.",
       {{"repair", A::kFlag, false, "apply pending jobs and fix every violation found"}},
       HomeKey::kNone,
       "fsck",
       Fsck,
       nullptr,
       render::Fsck,
       /*admin=*/true},
  };
  for (auto& op : TokenOps()) ops.push_back(std::move(op));
  for (auto& op : SeedOps()) ops.push_back(std::move(op));
  for (auto& op : EntityOps()) ops.push_back(std::move(op));
  // The commonest ops, which commute with held deliveries (OpSpec::keeps_deliveries_held):
  // writes that make deliveries or counter jobs, follows (a delivery re-checks the follow
  // when applied, and an inbox merge inserts what a delivery would), reads of messages and
  // counters, and the home timeline, which applies its reader shard's.
  static const std::set<std::string> kKeepHeld = {
      "post", "repost", "comment",  "like",     "unlike",  "follow", "unfollow",
      "show", "count",  "timeline", "comments", "reposts", "likes",  "user_add"};
  for (auto& op : ops) op.keeps_deliveries_held = kKeepHeld.count(op.name) > 0;
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
