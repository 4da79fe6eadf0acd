// weibo-count: every counter of many messages in one call.
#include "weibo/cli.h"

int main(int argc, char** argv) { return weibo::cli::Main("count", argc, argv); }
