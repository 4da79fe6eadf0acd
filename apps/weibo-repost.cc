// weibo-repost: repost a message, optionally with text.
#include "weibo/cli.h"

int main(int argc, char** argv) {
  weibo::cli::Command cmd("weibo-repost", "Repost a message, optionally with text.");
  std::string user, msg, text;
  cmd.AddUser(&user);
  cmd.app().add_option("MSG", msg, "the message to repost")->required();
  auto* text_opt = cmd.app().add_option("TEXT", text, "optional text, or - for standard input");
  return cmd.Run(argc, argv, [&] {
    weibo::Json args{{"user", user}, {"msg", msg}};
    if (text_opt->count() > 0) args["content"] = cmd.Content(text);
    return weibo::Request{"repost", args};
  });
}
