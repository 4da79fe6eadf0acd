// weibo-post: post an original message.
#include "weibo/cli.h"

int main(int argc, char** argv) { return weibo::cli::Main("post", argc, argv); }
