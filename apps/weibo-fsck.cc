// weibo-fsck: check (and with --repair fix) every invariant across all shards.
#include "weibo/cli.h"

int main(int argc, char** argv) {
  weibo::cli::Command cmd("weibo-fsck",
                          "Check every invariant across all shards; exit 1 on a violation.");
  bool repair = false;
  cmd.app().add_flag("--repair", repair, "apply pending jobs and fix every violation found");
  return cmd.Run(argc, argv, [&] { return weibo::Request{"fsck", {{"repair", repair}}}; });
}
