// weibo-index: declare, list and drop the entity store's indexes (SPEC §9, seed 001)
#include "weibo/cli.h"

int main(int argc, char** argv) {
  return weibo::cli::Main("index", argc, argv,
                          "Declare, list and drop the indexes of the entity store.");
}
