// weibo-init: create a cluster (cluster.json and N shard files) in the data directory.
#include "weibo/cli.h"

int main(int argc, char** argv) {
  weibo::cli::Command cmd("weibo-init", "Create a cluster: cluster.json and N SQLite shards.");
  int shards = 16, page_size = 20, inbox_cap = 800, celebrity_threshold = 10000, active_list = 1000,
      tier_fans = 1000;
  std::string feed = "hybrid", strategy = "gene";
  bool force = false;
  auto& app = cmd.app();
  app.add_option("--shards", shards, "shard count, a power of two from 1 to 256")
      ->capture_default_str();
  app.add_option("--feed", feed, "feed mode: push, pull or hybrid")->capture_default_str();
  app.add_option("--page-size", page_size, "comments and reposts per fixed page")
      ->capture_default_str();
  app.add_option("--strategy", strategy, "message sharding: gene, uid-mapping or tid")
      ->capture_default_str();
  app.add_option("--inbox-cap", inbox_cap, "push inbox rows kept per user")->capture_default_str();
  app.add_option("--celebrity-threshold", celebrity_threshold,
                 "hybrid: fans from which an author is pulled")
      ->capture_default_str();
  app.add_option("--active-list", active_list,
                 "hybrid: length of each author's active-follower list")
      ->capture_default_str();
  app.add_option("--tier-fans", tier_fans, "push: fans from which delivery is tiered by activity")
      ->capture_default_str();
  app.add_flag("--force", force, "replace an existing cluster (its data is lost)");
  return cmd.Run(argc, argv, [&] {
    return weibo::Request{"init",
                          {{"shards", shards},
                           {"feed", feed},
                           {"page_size", page_size},
                           {"strategy", strategy},
                           {"inbox_cap", inbox_cap},
                           {"celebrity_threshold", celebrity_threshold},
                           {"active_list", active_list},
                           {"tier_fans", tier_fans},
                           {"force", force}}};
  });
}
