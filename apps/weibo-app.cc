// weibo-app: register apps, list them and read their revocation events (SPEC §8)
#include "weibo/cli.h"

int main(int argc, char** argv) {
  return weibo::cli::Main("app", argc, argv,
                          "Register apps, list them and read their revocation events.");
}
