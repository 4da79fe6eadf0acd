// weibo-comment: comment on a message; the comment gets a fixed page_index.
#include "weibo/cli.h"

int main(int argc, char** argv) { return weibo::cli::Main("comment", argc, argv); }
