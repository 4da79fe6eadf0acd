// The operation table: one row per operation, and the only list of them.
// The embedded executor dispatches by it, argument validation, cluster routing, the
// daemon and rendering read it, and every weibo-* command builds its options and --help
// from it (weibo/cli.h). A new operation is one row here and one handler file.
#ifndef WEIBO_OPS_H_
#define WEIBO_OPS_H_

#include <string>
#include <vector>

#include "weibo/request.h"

namespace weibo {

class Context;  // a flow's view of one request (libweibo/jobs/context.h): handlers only

// kEdgeList: a list of [follower, target] user pairs; a command reads it from a file of
// "FOLLOWER TARGET" lines ("-": standard input).
// kUserList: a list of one or more users; a command reads it from a file of one id or
// @name a line ("-": standard input), as weibo-follow --from-file.
// kFile: a file named on the command line, whose bytes the command sends, base64-encoded
// (RFC 4648 with padding), so that a daemon never opens a client's path (weibo-avatar(1)).
// kAttrList: KEY=VALUE strings, the option given once per pair (--attr link=URL), each
// key an identifier and given once (flows/entities.h, AttrsOf).
enum class ArgType {
  kUser,
  kMsg,
  kMsgList,
  kText,
  kName,
  kCount,
  kPage,
  kFlag,
  kString,
  kEdgeList,
  kUserList,
  kFile,
  kAttrList
};

// One argument of an operation: its key in Request::args and how a command spells it.
struct ArgSpec {
  const char* name;  // the key in Request::args: "user", "max_id"
  ArgType type;      // what ValidateArgs accepts (an id, 1 to 200, UTF-8 text, ...)
  bool required;     // a request without it is invalid_request; a command requires it
  const char* help;  // its line in the command's --help
  // How the command line spells it: an option ("--max-id", "-u,--user") or a positional
  // in capitals ("MSG"). Default nullptr: "--" and the name with '-' for '_'.
  const char* flag = nullptr;
  // The command's value when the option is not given, sent with every request and shown
  // by --help. Default null: the argument is sent only when given. A kFlag is always
  // sent, false when not given.
  Json default_value = nullptr;
  // The environment variable the option falls back to (WEIBO_USER). Default nullptr.
  const char* env = nullptr;
};

// Which argument names a request's home shard in a cluster (weibo-cluster(1), ROUTING):
// the one shard whose owner serves the request because it writes there first.
enum class HomeKey {
  kNone,     // no home shard: any node serves it (reads across shards, maintenance)
  kUser,     // args "user": user id mod N; a "@name" is first resolved on the name's shard
  kMessage,  // args "msg": message id mod N (the gene method)
  kName,     // args "name": the name's shard, BLAKE2b-64(name) mod N
  kToken,    // args "token": the shard of the user the token names (weibo-token(1))
  // No home shard, and not any one node: every live node serves it for the shards it owns,
  // and the broker sums the integers of their results (drain: each node's outboxes).
  kEveryNode,
};

// Runs an operation on an open cluster with validated arguments; returns the result JSON
// of weibo(7) and refuses by throwing Failure (libweibo/storage/failure.h).
using OpHandler = Json (*)(Context& ctx, const Json& args);
// Runs an operation as OpHandler does, returning its result as JSON text: byte for byte
// what the handler's result dumps to (a server's reply takes it as it is, daemon/service.cc).
using OpTextHandler = std::string (*)(Context& ctx, const Json& args);
// Runs an operation on a data directory with no cluster open (init creates one).
using LocalHandler = Json (*)(const std::string& data_dir, const Json& args);
// The text output of a result, ending with a newline (empty lists print nothing).
using OpRenderer = std::string (*)(const Json& result);

struct OpSpec {
  const char* name;     // "post", "user_add": Request::op
  bool writes;          // takes write transactions; a daemon keeps its reply for retries
  const char* summary;  // one line: the command's description in --help
  std::vector<ArgSpec> args;
  HomeKey home = HomeKey::kNone;
  // The command that runs it: "post" is weibo-post, "user add" is weibo-user's add
  // subcommand. Default nullptr: no command of its own (drain is run by weibo-worker).
  const char* command = nullptr;
  // Exactly one of handler and local is set. An op with a local handler is run only by
  // the process that owns the data directory: a daemon refuses it.
  OpHandler handler = nullptr;
  LocalHandler local = nullptr;
  // Default nullptr: one message or a list of messages as blocks, else indented JSON.
  OpRenderer render = nullptr;
  // Needs a token with admin scope under weibod --auth (weibod(1), AUTHENTICATION): an
  // operator's op, acting for no one user. Without it, an op with an acting user (-u)
  // needs a token of that user — with write scope when the op writes — and any other op
  // a token with read scope.
  bool admin = false;
  // Optional, beside handler: the same op writing its result as JSON text itself, for a
  // server's reply (Executor::ExecuteForReply), byte for byte the dump of the handler's
  // Json. count has one: its hot items are kept as text (tables/counter_cache.h), and
  // joining them is most of what a hot count costs. timeline has one: a page's twenty
  // messages are written as text instead of built as objects to serialize.
  OpTextHandler text = nullptr;
  // Runs while a server holds deliveries back (jobs/context.h, GroupCommit::held_deliveries)
  // without applying them first: it reads no inbox row and writes nothing a held delivery
  // must precede (a home timeline applies those of its reader's shard itself). Every other
  // op a server runs applies them all first. Set in the table's last pass (op_table.cc).
  bool keeps_deliveries_held = false;
};

const std::vector<OpSpec>& Operations();
// The row for an op name, or nullptr.
const OpSpec* FindOperation(const std::string& name);

}  // namespace weibo

#endif  // WEIBO_OPS_H_
