// weibo-avatar: set, show the address of, and remove a user's picture.
#include "weibo/cli.h"

int main(int argc, char** argv) {
  return weibo::cli::Main("avatar", argc, argv, "Set, locate and remove users' pictures.");
}
