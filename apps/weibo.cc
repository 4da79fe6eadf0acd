// weibo: git-style dispatcher — `weibo post ...` runs `weibo-post ...`.
#include "weibo/cli.h"

int main(int argc, char** argv) { return weibo::cli::Dispatch(argc, argv); }
