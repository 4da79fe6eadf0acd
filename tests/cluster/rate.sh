#!/usr/bin/env bash
# weibo-cluster up --rate (issue 12, weibod(1) LIMITS): the broker counts every client
# request, per client address without --auth, so a burst spread over three connections
# is refused as one client's (daemon_probe rate), and served again a second later.
# usage: rate.sh BIN_DIR DAEMON_PROBE
set -u
WEIBO_BIN=$1
PROBE=$2
. "$(dirname "$0")/lib.sh"
WORK=$(mktemp -d "${TMPDIR:-/tmp}/weibo-cluster-rate.XXXXXX")
data=$WORK/shards
unset WEIBO_CONNECT WEIBO_TOKEN WEIBO_USER WEIBO_NOW WEIBO_DATA

"$WEIBO_BIN/weibo-init" --data "$data" --shards 4 >/dev/null || fail "weibo-init"
cluster_up "$data" 2 --rate 5
"$PROBE" rate "$BROKER" || fail "the broker's rate limit"
