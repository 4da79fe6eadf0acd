// weibo-reposts: one fixed page of a message's reposts.
#include "weibo/cli.h"

int main(int argc, char** argv) { return weibo::cli::Main("reposts", argc, argv); }
