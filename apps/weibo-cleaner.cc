// weibo-cleaner: add missing and remove stale index rows of the entity store (seed 001)
#include "weibo/cli.h"

int main(int argc, char** argv) { return weibo::cli::Main("cleaner", argc, argv); }
