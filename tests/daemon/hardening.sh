#!/usr/bin/env bash
# Issue 11 against a running weibod: weibo-init --force refuses to replace the cluster it
# serves (storage_error naming its pid); a request's clock is refused unless weibod was
# started with --allow-clock; --bind with a port out of range and --dedup -1 are refused;
# under umask 000 the daemon's and a weibo-cluster's files are 0600 in a 0700 directory.
# usage: hardening.sh BIN_DIR
set -u
WEIBO_BIN=$1
. "$(dirname "$0")/../cluster/lib.sh"  # cluster_up, cluster_teardown (removes $WORK)
. "$(dirname "$0")/lib.sh"             # start_daemon, stop_daemon
work=$(mktemp -d "${TMPDIR:-/tmp}/weibod-hardening.XXXXXX")
WORK=$work
trap 'stop_daemon; cluster_teardown' EXIT
umask 000
data=$work/shards

# modes DIR: every file of DIR is 0600 and DIR is 0700.
modes() {
  local bad
  [ "$(stat -c %a "$1")" = 700 ] || fail "$1 is $(stat -c %a "$1"), not 700"
  bad=$(find "$1" -mindepth 1 ! -perm 0600 -printf '%m %p\n')
  [ -z "$bad" ] || fail "files not 0600 under umask 000: $bad"
  echo "ok   $(find "$1" -mindepth 1 | wc -l) files of $(basename "$1") are 0600, the directory 0700"
}

"$WEIBO_BIN/weibo-init" --data "$data" --shards 4 >/dev/null || fail "weibo-init"
expect 2 "^weibod: error: invalid_argument: cannot bind 'tcp://127.0.0.1:99999': a TCP port is \\* or from 1 to 65535$" \
  "$WEIBO_BIN/weibod" --data "$data" --bind tcp://127.0.0.1:99999
expect 2 "^weibod: error: invalid_argument: cannot bind 'tcp://127.0.0.1:0'" \
  "$WEIBO_BIN/weibod" --data "$data" --bind tcp://127.0.0.1:0
expect 2 '^weibod: error: invalid_argument: --dedup' \
  "$WEIBO_BIN/weibod" --data "$data" --dedup -1
expect 2 '^weibod: error: invalid_argument: --dedup' \
  "$WEIBO_BIN/weibod" --data "$data" --dedup 10000001

DAEMON_LOG=$work/weibod.log  # made by this shell, not by weibod: kept out of the data
start_daemon "$data"
export WEIBO_DATA=$data WEIBO_CONNECT=$ENDPOINT
"$WEIBO_BIN/weibo-user" add alice >/dev/null || fail "user add over the daemon"
"$WEIBO_BIN/weibo-post" -u @alice "no clock of its own" >/dev/null || fail "post"
# A request's clock: refused by a daemon started without --allow-clock.
expect 2 '^weibo-post: error: invalid_argument: a request.s now is refused: this weibod was not started with --allow-clock' \
  "$WEIBO_BIN/weibo-post" -u @alice --now 2089-08-30T23:59:59Z poison
expect 2 '^weibo-user: error: invalid_argument: a request.s now is refused' \
  env WEIBO_NOW=2026-01-01 "$WEIBO_BIN/weibo-user" list
[ "$("$WEIBO_BIN/weibo-user" show @alice --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["msg_count"])')" = 1 ] ||
  fail "a refused post was made"
# Past the last whole week of the id range: refused at the CLI's own edge.
expect 2 '^weibo-post: error: invalid_argument: --now must be epoch seconds or ISO 8601 from 2020-01-01T00:00:00Z to 2089-08-30T23:59:59Z' \
  "$WEIBO_BIN/weibo-post" -u @alice --now 2089-08-31 poison
unset WEIBO_CONNECT

# init --force while the daemon holds the cluster: refused, nothing removed.
expect 4 "^weibo-init: error: storage_error: the cluster in $data is in use by process $DAEMON_PID " \
  "$WEIBO_BIN/weibo-init" --data "$data" --shards 2 --force
[ -f "$data/shard-03.db" ] || fail "init --force removed a shard of the served cluster"
WEIBO_CONNECT=$ENDPOINT "$WEIBO_BIN/weibo-user" show @alice >/dev/null || fail "the daemon lost alice"
echo "ok   the daemon still serves alice"
modes "$data"
stop_daemon || fail "weibod exited $?"
"$WEIBO_BIN/weibo-init" --data "$data" --shards 2 --force >/dev/null || fail "init --force once stopped"
[ ! -f "$data/shard-03.db" ] || fail "the old shards are still there"
echo "ok   init --force replaces the cluster once the daemon is gone"

# The same under --allow-clock: a request's clock is taken.
start_daemon "$data" --allow-clock
WEIBO_CONNECT=$ENDPOINT "$WEIBO_BIN/weibo-user" add --now 2026-01-01 bob >/dev/null ||
  fail "a clock refused by a daemon started with --allow-clock"
echo "ok   --allow-clock: a request's clock is taken"
stop_daemon || fail "weibod exited $?"
modes "$data"

# A weibo-cluster's state, logs and lock files, made under umask 000.
cluster_data=$work/cluster
"$WEIBO_BIN/weibo-init" --data "$cluster_data" --shards 2 >/dev/null || fail "weibo-init"
cluster_up "$cluster_data" 1
expect 4 "^weibo-init: error: storage_error: the cluster in $cluster_data is in use by process [0-9]+" \
  "$WEIBO_BIN/weibo-init" --data "$cluster_data" --force
"$WEIBO_BIN/weibo-cluster" --data "$cluster_data" down >/dev/null || fail "weibo-cluster down"
modes "$cluster_data"
echo "hardening: ok"
