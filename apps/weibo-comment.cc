// weibo-comment: comment on a message; the comment gets a fixed page_index.
#include "weibo/cli.h"

int main(int argc, char** argv) {
  weibo::cli::Command cmd("weibo-comment", "Comment on a message (fixed page_index).");
  std::string user, msg, text;
  cmd.AddUser(&user);
  cmd.app().add_option("MSG", msg, "the message to comment on")->required();
  cmd.app()
      .add_option("TEXT", text, "the comment, or - to read it from standard input")
      ->required();
  return cmd.Run(argc, argv, [&] {
    return weibo::Request{"comment",
                          {{"user", user}, {"msg", msg}, {"content", cmd.Content(text)}}};
  });
}
