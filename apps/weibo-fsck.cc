// weibo-fsck: check (and with --repair fix) every invariant across all shards.
#include "weibo/cli.h"

int main(int argc, char** argv) { return weibo::cli::Main("fsck", argc, argv); }
