// weibo-token: issue, revoke, list and check access tokens (SPEC §8)
#include "weibo/cli.h"

int main(int argc, char** argv) {
  return weibo::cli::Main("token", argc, argv, "Issue, revoke, list and check access tokens.");
}
