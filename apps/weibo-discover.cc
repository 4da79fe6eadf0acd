// weibo-discover: random recent posts from the precomputed groups
#include "weibo/cli.h"

int main(int argc, char** argv) { return weibo::cli::Main("discover", argc, argv); }
