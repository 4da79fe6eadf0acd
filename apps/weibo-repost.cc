// weibo-repost: repost a message, optionally with text.
#include "weibo/cli.h"

int main(int argc, char** argv) { return weibo::cli::Main("repost", argc, argv); }
