// weibo-show: show one message (and count a view).
#include "weibo/cli.h"

int main(int argc, char** argv) { return weibo::cli::Main("show", argc, argv); }
