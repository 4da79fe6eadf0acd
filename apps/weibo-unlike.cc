// weibo-unlike: take back a like
#include "weibo/cli.h"

int main(int argc, char** argv) { return weibo::cli::Main("unlike", argc, argv); }
