#include "cluster/routing.h"

#include <exception>

#include "flows/tokens.h"
#include "ops/args.h"
#include "storage/shard_set.h"
#include "weibo/ops.h"

namespace weibo::cluster {
namespace {

int ShardOfUser(const Json& user, int count, const NameResolver& resolve) {
  if (user.is_number_integer()) return static_cast<int>(user.get<int64_t>() % count);
  const std::string text = user.get<std::string>();
  if (!text.empty() && text[0] == '@') {
    const std::string name = text.substr(1);
    if (resolve) {
      if (auto id = resolve(name)) return static_cast<int>(*id % count);
    }
    return ShardOfName(name, count);
  }
  return static_cast<int>(std::stoll(text) % count);
}

int ShardOfMsg(const Json& msg, int count, const MsgPlacer& place) {
  int64_t id = msg.is_number_integer() ? msg.get<int64_t>() : std::stoll(msg.get<std::string>());
  return place ? place(id) : static_cast<int>(id % count);
}

}  // namespace

int HomeShard(const Request& request, int count, const NameResolver& resolve,
              const MsgPlacer& place) {
  if (count <= 0) return -1;
  const OpSpec* op = FindOperation(request.op);
  if (op == nullptr) return -1;
  try {
    Json args = ValidateArgs(*op, request.args);
    switch (op->home) {
      case HomeKey::kName:
        return ShardOfName(args.at("name").get<std::string>(), count);
      case HomeKey::kMessage:
        return ShardOfMsg(args.at("msg"), count, place);
      case HomeKey::kUser:
        return ShardOfUser(args.at("user"), count, resolve);
      case HomeKey::kToken:  // a malformed token has none: any node says token_invalid
        if (auto user = TokenUser(args.at("token").get<std::string>()))
          return static_cast<int>(*user % count);
        return -1;
      case HomeKey::kNone:
      case HomeKey::kEveryNode:  // the broker sends it to every node (broker.cc)
        break;
    }
    return -1;
  } catch (const std::exception&) {  // invalid arguments: any node gives the error
    return -1;
  }
}

}  // namespace weibo::cluster
