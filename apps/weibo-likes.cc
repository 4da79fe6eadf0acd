// weibo-likes: who likes a message
#include "weibo/cli.h"

int main(int argc, char** argv) { return weibo::cli::Main("likes", argc, argv); }
