// weibo-search: messages by text, author and time, from the search index.
#include "weibo/cli.h"

int main(int argc, char** argv) { return weibo::cli::Main("search", argc, argv); }
