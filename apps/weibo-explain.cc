// weibo-explain: a dry run of a weibo command (weibo-explain(1)).
#include "weibo/cli.h"

int main(int argc, char** argv) { return weibo::cli::ExplainMain(argc, argv); }
