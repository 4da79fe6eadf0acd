// weibo-find: messages by an indexed attribute (SPEC §9, seed 001)
#include "weibo/cli.h"

int main(int argc, char** argv) { return weibo::cli::Main("find", argc, argv); }
