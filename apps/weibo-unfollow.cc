// weibo-unfollow: the acting user stops following TARGET.
#include "weibo/cli.h"

int main(int argc, char** argv) {
  weibo::cli::Command cmd("weibo-unfollow", "The acting user (-u) stops following TARGET.");
  std::string user, target;
  cmd.AddUser(&user);
  cmd.app().add_option("TARGET", target, "an id or @name")->required();
  return cmd.Run(argc, argv, [&] {
    return weibo::Request{"unfollow", {{"user", user}, {"target", target}}};
  });
}
