// weibo-import: loads a follow graph from an edge list, in batched transactions per shard.
#include "weibo/cli.h"

int main(int argc, char** argv) { return weibo::cli::Main("import", argc, argv); }
