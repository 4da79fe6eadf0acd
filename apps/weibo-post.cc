// weibo-post: post an original message.
#include "weibo/cli.h"

int main(int argc, char** argv) {
  weibo::cli::Command cmd("weibo-post", "Post an original message (up to 140 characters).");
  std::string user, text;
  cmd.AddUser(&user);
  cmd.app()
      .add_option("TEXT", text, "the message, or - to read it from standard input")
      ->required();
  return cmd.Run(argc, argv, [&] {
    return weibo::Request{"post", {{"user", user}, {"content", cmd.Content(text)}}};
  });
}
