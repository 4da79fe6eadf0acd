// weibo-delete: delete a message.
#include "weibo/cli.h"

int main(int argc, char** argv) {
  weibo::cli::Command cmd("weibo-delete",
                          "Delete a message: its author may, and so may the author of the "
                          "message a comment is on.");
  std::string user, msg;
  cmd.AddUser(&user);
  cmd.app().add_option("MSG", msg, "the message to delete")->required();
  return cmd.Run(argc, argv, [&] {
    return weibo::Request{"delete", {{"user", user}, {"msg", msg}}};
  });
}
