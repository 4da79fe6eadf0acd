// init: creates cluster.json and the shard files (storage/shard_set.cc checks the values).
// An argument left out takes ClusterConfig's default, which is also the command's.
#include "ops/local.h"
#include "storage/shard_set.h"

namespace weibo {

Json Init(const std::string& data_dir, const Json& args) {
  ClusterConfig config;
  config.shards = static_cast<int>(args.value("shards", int64_t{config.shards}));
  config.feed = args.value("feed", config.feed);
  config.page_size = static_cast<int>(args.value("page_size", int64_t{config.page_size}));
  config.strategy = args.value("strategy", config.strategy);
  config.inbox_cap = static_cast<int>(args.value("inbox_cap", int64_t{config.inbox_cap}));
  config.celebrity_threshold = args.value("celebrity_threshold", config.celebrity_threshold);
  config.active_list = args.value("active_list", config.active_list);
  config.tier_fans = args.value("tier_fans", config.tier_fans);
  config.durability = args.value("durability", config.durability);
  ShardSet::Create(data_dir, config, args.value("force", false));
  return Json{{"data", data_dir},
              {"shards", config.shards},
              {"feed", config.feed},
              {"page_size", config.page_size},
              {"strategy", config.strategy}};
}

}  // namespace weibo
