// weibo-delete: delete a message.
#include "weibo/cli.h"

int main(int argc, char** argv) { return weibo::cli::Main("delete", argc, argv); }
