// weibo-edit: the author edits the text of an original or a repost.
#include "weibo/cli.h"

int main(int argc, char** argv) { return weibo::cli::Main("edit", argc, argv); }
