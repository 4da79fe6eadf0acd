// weibo-follow: the acting user now follows TARGET.
#include "weibo/cli.h"

int main(int argc, char** argv) { return weibo::cli::Main("follow", argc, argv); }
