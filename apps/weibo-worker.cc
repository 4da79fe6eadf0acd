// weibo-worker: drain outbox jobs continuously (or --once), idempotently.
#include "weibo/cli.h"

int main(int argc, char** argv) {
  weibo::cli::Command cmd("weibo-worker",
                          "Apply pending outbox jobs of every shard, continuously or --once.");
  bool once = false;
  int interval_ms = 200;
  cmd.app().add_flag("--once", once, "one pass over every shard, print what it did, exit");
  cmd.app()
      .add_option("--interval", interval_ms, "milliseconds between idle passes")
      ->check(CLI::Range(1, 60000))
      ->capture_default_str();
  return cmd.Run(argc, argv, [&] {
    if (!once) cmd.set_repeat(interval_ms);
    return weibo::Request{"drain", weibo::Json::object()};
  });
}
