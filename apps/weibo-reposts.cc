// weibo-reposts: one fixed page of a message's reposts.
#include "weibo/cli.h"

int main(int argc, char** argv) {
  weibo::cli::Command cmd("weibo-reposts",
                          "One fixed page (page_index) of a message's reposts, oldest first.");
  std::string msg;
  int page = 0;
  cmd.app().add_option("MSG", msg, "the message id")->required();
  cmd.app().add_option("--page", page, "the page_index to show")->capture_default_str();
  return cmd.Run(argc, argv, [&] {
    return weibo::Request{"reposts", {{"msg", msg}, {"page", page}}};
  });
}
