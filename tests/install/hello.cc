// A program of a library user: builds against an installed weibo (find_package or
// pkg-config), creates a one-shard cluster in the directory it is given, adds a user and
// prints the result as JSON.
#include <iostream>

#include "weibo/request.h"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: hello DATA_DIR\n";
    return 2;
  }
  weibo::EmbeddedOptions options;
  options.data_dir = argv[1];
  options.now_ms = 1767225600000;  // 2026-01-01T00:00:00Z: the same output every run
  auto executor = weibo::OpenEmbedded(options);
  for (const weibo::Request& request :
       {weibo::Request{"init", {{"shards", 1}}}, weibo::Request{"user_add", {{"name", "alice"}}}}) {
    weibo::Result<weibo::Json> result = executor->Execute(request);
    if (!result.ok()) {
      std::cerr << request.op << ": " << result.status().message() << "\n";
      return 1;
    }
    if (request.op == "user_add") std::cout << result.value().dump() << "\n";
  }
  return 0;
}
