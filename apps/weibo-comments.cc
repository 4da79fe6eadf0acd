// weibo-comments: one fixed page of a message's comments.
#include "weibo/cli.h"

int main(int argc, char** argv) { return weibo::cli::Main("comments", argc, argv); }
