// weibo-count: every counter of many messages in one call.
#include "weibo/cli.h"

int main(int argc, char** argv) {
  weibo::cli::Command cmd("weibo-count", "All counters of many messages in one call.");
  std::vector<std::string> msgs;
  cmd.app().add_option("MSG", msgs, "message ids (1 to 200)")->required();
  return cmd.Run(argc, argv, [&] { return weibo::Request{"count", {{"msgs", msgs}}}; });
}
