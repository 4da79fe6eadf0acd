// weibo-follow: the acting user now follows TARGET.
#include "weibo/cli.h"

int main(int argc, char** argv) {
  weibo::cli::Command cmd("weibo-follow", "The acting user (-u) now follows TARGET.");
  std::string user, target;
  cmd.AddUser(&user);
  cmd.app().add_option("TARGET", target, "an id or @name")->required();
  return cmd.Run(argc, argv, [&] {
    return weibo::Request{"follow", {{"user", user}, {"target", target}}};
  });
}
