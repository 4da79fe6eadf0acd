// weibo-timeline: a user's home timeline (or, with --posts, the user's own posts).
#include "weibo/cli.h"

int main(int argc, char** argv) {
  weibo::cli::Command cmd("weibo-timeline", "Home timeline, newest first (--posts: own posts).");
  std::string user, max_id, since_id;
  int count = 20, page = 0;
  bool posts = false;
  auto& app = cmd.app();
  cmd.AddUser(&user);
  app.add_flag("--posts", posts, "the user's own posts instead of the home timeline");
  app.add_option("--count", count, "items per page, 1 to 200")->capture_default_str();
  auto* max = app.add_option("--max-id", max_id, "only items older than this id (exclusive)");
  auto* since = app.add_option("--since-id", since_id, "only items newer than this id (exclusive)");
  app.add_option("--page", page, "0-based page of --count items")->capture_default_str();
  return cmd.Run(argc, argv, [&] {
    weibo::Json args{{"user", user}, {"count", count}, {"page", page}, {"posts", posts}};
    if (max->count()) args["max_id"] = max_id;
    if (since->count()) args["since_id"] = since_id;
    return weibo::Request{"timeline", args};
  });
}
