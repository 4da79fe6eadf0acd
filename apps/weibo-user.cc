// weibo-user: add, show and list users.
#include "weibo/cli.h"

int main(int argc, char** argv) {
  weibo::cli::Command cmd("weibo-user", "Add, show and list users.");
  std::string name, user;
  auto& app = cmd.app();
  app.require_subcommand(1);
  auto* add = app.add_subcommand("add", "create a user (1-20 characters, no spaces, no '@')");
  add->add_option("NAME", name, "the new user's unique name")->required();
  auto* show = app.add_subcommand("show", "show one user");
  show->add_option("USER", user, "an id or @name")->required();
  auto* list = app.add_subcommand("list", "list every user by id");
  return cmd.Run(argc, argv, [&] {
    if (add->parsed()) return weibo::Request{"user_add", {{"name", name}}};
    if (show->parsed()) return weibo::Request{"user_show", {{"user", user}}};
    (void)list;
    return weibo::Request{"user_list", weibo::Json::object()};
  });
}
