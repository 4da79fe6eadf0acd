// weibo-archive: move old messages into the per-shard archive files (seed 000)
#include "weibo/cli.h"

int main(int argc, char** argv) { return weibo::cli::Main("archive", argc, argv); }
