// weibo-show: show one message (and count a view).
#include "weibo/cli.h"

int main(int argc, char** argv) {
  weibo::cli::Command cmd("weibo-show",
                          "Show one message with its counters and root; counts a view.");
  std::string msg;
  cmd.app().add_option("MSG", msg, "the message id")->required();
  return cmd.Run(argc, argv, [&] { return weibo::Request{"show", {{"msg", msg}}}; });
}
