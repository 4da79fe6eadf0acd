// weibo-timeline: a user's home timeline (or, with --posts, the user's own posts).
#include "weibo/cli.h"

int main(int argc, char** argv) { return weibo::cli::Main("timeline", argc, argv); }
