// weibo-comments: one fixed page of a message's comments.
#include "weibo/cli.h"

int main(int argc, char** argv) {
  weibo::cli::Command cmd("weibo-comments",
                          "One fixed page (page_index) of a message's comments, oldest first.");
  std::string msg;
  int page = 0;
  cmd.app().add_option("MSG", msg, "the message id")->required();
  cmd.app().add_option("--page", page, "the page_index to show")->capture_default_str();
  return cmd.Run(argc, argv, [&] {
    return weibo::Request{"comments", {{"msg", msg}, {"page", page}}};
  });
}
