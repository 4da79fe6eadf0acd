// weibo-unfollow: the acting user stops following TARGET.
#include "weibo/cli.h"

int main(int argc, char** argv) { return weibo::cli::Main("unfollow", argc, argv); }
