// weibo-init: create a cluster (cluster.json and N shard files) in the data directory.
#include "weibo/cli.h"

int main(int argc, char** argv) {
  weibo::cli::Command cmd("weibo-init", "Create a cluster: cluster.json and N SQLite shards.");
  int shards = 16, page_size = 20;
  std::string feed = "hybrid", strategy = "gene";
  bool force = false;
  auto& app = cmd.app();
  app.add_option("--shards", shards, "shard count, a power of two from 1 to 256")->capture_default_str();
  app.add_option("--feed", feed, "feed mode: push, pull or hybrid")->capture_default_str();
  app.add_option("--page-size", page_size, "comments and reposts per fixed page")->capture_default_str();
  app.add_option("--strategy", strategy, "message sharding: gene, uid-mapping or tid")->capture_default_str();
  app.add_flag("--force", force, "replace an existing cluster (its data is lost)");
  return cmd.Run(argc, argv, [&] {
    return weibo::Request{"init", {{"shards", shards}, {"feed", feed}, {"page_size", page_size},
                                   {"strategy", strategy}, {"force", force}}};
  });
}
