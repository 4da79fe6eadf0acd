// Routing in a cluster (weibo-cluster(1), ROUTING): the home shard of a request — the one
// shard whose owner must serve it because the request writes there first. Each op's
// home key in the operation table (weibo/ops.h, HomeKey) says which argument names it:
//
//   kName     the name's shard, BLAKE2b-64(name) mod N                    (user_add)
//   kUser     the acting user's shard, user mod N; a "@name" user is first routed to the
//             name's shard and resolved there (the node answers with a redirect)
//   kMessage  the message's shard: msg mod N under gene; under uid-mapping msg mod N is
//             the shard of its tid_map row, whose node looks the author up there and
//             redirects to the author's shard (as with "@name"), the seed's two hops
//   kToken    the shard of the user a token names (flows/tokens.h)          (token_revoke)
//   kNone     no home shard (-1): any live node; so is anything invalid or unknown
//   kEveryNode  no home shard (-1) either: the broker sends it to every live node (drain)
#ifndef WEIBO_CLUSTER_ROUTING_H_
#define WEIBO_CLUSTER_ROUTING_H_

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "weibo/request.h"

namespace weibo::cluster {

// Resolves a user name (without the '@') to an id; nullopt when there is no such user.
using NameResolver = std::function<std::optional<int64_t>(const std::string& name)>;
// The shard of a message from its id (ShardSet::MsgShardIndex: a lookup under uid-mapping).
using MsgPlacer = std::function<int(int64_t msg_id)>;

// The home shard of request among count shards, or -1 when it has none. Arguments are
// validated here (ValidateArgs); a request that fails validation has no home shard, so any
// node answers it with the very error the embedded command gives. Without a resolver a
// "@name" user routes to the name's shard, and without a placer a message to msg mod N.
int HomeShard(const Request& request, int count, const NameResolver& resolve,
              const MsgPlacer& place = nullptr);

}  // namespace weibo::cluster

#endif  // WEIBO_CLUSTER_ROUTING_H_
