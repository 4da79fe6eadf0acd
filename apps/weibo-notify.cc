// weibo-notify: system notifications and their unread count (seed 004).
#include "weibo/cli.h"

int main(int argc, char** argv) {
  return weibo::cli::Main("notify", argc, argv,
                          "System notifications: one list for everyone, unread counts from one "
                          "last-read id per user.");
}
