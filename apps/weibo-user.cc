// weibo-user: add, show and list users.
#include "weibo/cli.h"

int main(int argc, char** argv) {
  return weibo::cli::Main("user", argc, argv, "Add, show and list users.");
}
