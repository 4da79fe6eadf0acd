// weibo-like: like a message (seed 004)
#include "weibo/cli.h"

int main(int argc, char** argv) { return weibo::cli::Main("like", argc, argv); }
