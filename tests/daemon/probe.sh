#!/usr/bin/env bash
# Runs one daemon_probe mode against a fresh weibod (see daemon_probe.cc for each mode):
# a new 4-shard cluster, the daemon started with the given options, the probe, and a
# clean SIGTERM stop (status 0) to finish.
#
#   probe.sh BIN_DIR PROBE MODE [WEIBOD OPTIONS...]
#
#   hostile  with --max-msg-size 262144, so that JSON nested 100000 deep (200000 bytes)
#            reaches the depth check instead of the size limit; a 10 MiB message still
#            meets the size limit
#   dedup    retry dedup of a post
#   rate     with --rate 5
#   drain    with --rate 0; the probe itself sends the SIGTERM, then the posts it had in
#            flight must all have been made
set -u
WEIBO_BIN=$1 probe=$2 mode=$3
shift 3
. "$(dirname "$0")/lib.sh"
daemon_workdir $mode
"$WEIBO_BIN/weibo-init" --data "$work/shards" --shards 4 >/dev/null || fail "weibo-init"
DAEMON_LOG=$work/weibod.log
start_daemon "$work/shards" "$@"
"$probe" "$mode" "$ENDPOINT" "$DAEMON_PID" | tee "$work/probe.out"
[ "${PIPESTATUS[0]}" -eq 0 ] || fail "$mode checks (above)"
if [ "$mode" = drain ]; then
  pid=$DAEMON_PID DAEMON_PID=
  wait "$pid" || fail "weibod exited $? after SIGTERM"
  # The writes in flight at the signal were answered and made, each exactly once.
  answered=$(sed -n 's/^posts answered ok: //p' "$work/probe.out")
  made=$("$WEIBO_BIN/weibo-user" --data "$work/shards" show @drainer --json |
    sed -n 's/.*"msg_count":\([0-9]*\).*/\1/p')
  [ -n "$answered" ] && [ "$made" = "$answered" ] ||
    fail "posts answered ok: '$answered', msg_count of @drainer: '$made'"
  echo "ok   $made posts in flight at SIGTERM: answered and made once"
else
  kill -0 "$DAEMON_PID" || fail "weibod died"
  stop_daemon || fail "weibod exited $? after SIGTERM"
fi
grep -E '^weibod: stopped after [0-9]+ requests$' "$DAEMON_LOG" || fail "no stop line"
echo "$mode: ok"
