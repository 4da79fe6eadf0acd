// weibo-sql: a read-only SQL query over one shard or every shard (weibo-sql(1)).
#include "weibo/cli.h"

int main(int argc, char** argv) { return weibo::cli::SqlMain(argc, argv); }
