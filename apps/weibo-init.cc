// weibo-init: create a cluster (cluster.json and N shard files) in the data directory.
#include "weibo/cli.h"

int main(int argc, char** argv) { return weibo::cli::Main("init", argc, argv); }
