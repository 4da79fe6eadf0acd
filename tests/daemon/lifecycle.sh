#!/usr/bin/env bash
# weibod's lifecycle and the CLI's --connect edge (weibod(1)): refusing a bad data
# directory (4), a malformed endpoint (2) and a taken one (5); init refused over the wire;
# replies, errors, --json, --jsonl and --explain byte-identical to the embedded command;
# SIGTERM and SIGINT stop it with status 0.
# usage: lifecycle.sh BIN_DIR
set -u
WEIBO_BIN=$1
. "$(dirname "$0")/lib.sh"
daemon_workdir lifecycle
data=$work/shards

expect 4 '^weibod: error: storage_error: .*run weibo-init' \
  "$WEIBO_BIN/weibod" --data "$data" --bind 'tcp://127.0.0.1:*'
"$WEIBO_BIN/weibo-init" --data "$data" --shards 4 >/dev/null || fail "weibo-init"
expect 2 "^weibod: error: invalid_argument: cannot bind 'nonsense': " \
  "$WEIBO_BIN/weibod" --data "$data" --bind nonsense
expect 2 '^weibod: error: invalid_argument: --rate' \
  "$WEIBO_BIN/weibod" --data "$data" --rate -1

DAEMON_LOG=$work/weibod.log
# --drain-interval 0: the --async post's jobs below stay pending while both sides read.
start_daemon "$data" --drain-interval 0 --allow-clock
expect 5 "^weibod: error: unavailable: cannot bind '$ENDPOINT': " \
  "$WEIBO_BIN/weibod" --data "$data" --bind "$ENDPOINT"
expect 2 '^weibo-init: error: invalid_request: init is not served by the daemon' \
  "$WEIBO_BIN/weibo-init" --connect "$ENDPOINT" --force

# The same command embedded and through the daemon: the same stdout, stderr and status.
# Only commands that change nothing (reads and refused writes) are compared, each pair on
# the same data.
parity() {
  local rc_e rc_d
  "$@" >"$work/e.out" 2>"$work/e.err" </dev/null
  rc_e=$?
  WEIBO_CONNECT=$ENDPOINT "$@" >"$work/d.out" 2>"$work/d.err" </dev/null
  rc_d=$?
  cmp -s "$work/e.out" "$work/d.out" && cmp -s "$work/e.err" "$work/d.err" && [ $rc_e = $rc_d ] ||
    fail "$*: embedded (exit $rc_e) and daemon (exit $rc_d) differ:
$(diff "$work/e.out" "$work/d.out")
$(diff "$work/e.err" "$work/d.err")"
  echo "ok   same output, exit $rc_e: $*"
}
export WEIBO_DATA=$data WEIBO_NOW=2026-01-01T00:00:00Z
WEIBO_CONNECT=$ENDPOINT "$WEIBO_BIN/weibo-user" add alice >/dev/null || fail "user add over the daemon"
WEIBO_CONNECT=$ENDPOINT "$WEIBO_BIN/weibo-user" add bob >/dev/null || fail "user add over the daemon"
WEIBO_CONNECT=$ENDPOINT "$WEIBO_BIN/weibo-follow" -u @bob @alice >/dev/null || fail "follow"
WEIBO_CONNECT=$ENDPOINT "$WEIBO_BIN/weibo-post" -u @alice hello >/dev/null || fail "post"
WEIBO_CONNECT=$ENDPOINT "$WEIBO_BIN/weibo-post" --async -u @alice "async hello" >/dev/null ||
  fail "post --async"
parity "$WEIBO_BIN/weibo-user" list
parity "$WEIBO_BIN/weibo-user" list --jsonl
parity "$WEIBO_BIN/weibo-user" show @alice --json
parity "$WEIBO_BIN/weibo-timeline" -u @bob
parity "$WEIBO_BIN/weibo-timeline" -u @alice --posts --json
parity "$WEIBO_BIN/weibo-fsck"
parity "$WEIBO_BIN/weibo-post" -u @nobody hi
parity "$WEIBO_BIN/weibo-post" -u @alice "$(printf '%0141d' 0)"
parity "$WEIBO_BIN/weibo-post" -u @alice "$(printf '%070000d' 0)"  # over 64 KiB: not sent
parity "$WEIBO_BIN/weibo-post" -u @alice "   "
parity "$WEIBO_BIN/weibo-post" -u @alice --json $'bad\xff'
parity "$WEIBO_BIN/weibo-follow" -u @alice @alice
parity "$WEIBO_BIN/weibo-follow" -u @bob @alice --json
parity "$WEIBO_BIN/weibo-timeline" -u @alice --count 500
parity "$WEIBO_BIN/weibo-show" 999
parity "$WEIBO_BIN/weibo-count" 1 2 --jsonl
parity "$WEIBO_BIN/weibo-user" show @alice --explain
parity "$WEIBO_BIN/weibo-timeline" -u @bob --json --explain
parity "$WEIBO_BIN/weibo-post" --now 2019-12-31 -u @alice too-early

# Lazy Pirate end to end: the daemon is stopped (SIGSTOP) through the command's first
# attempt, so the command resends on a fresh socket with the same id; once the daemon runs
# again the command gets its reply, and the post is made exactly once. (pirate.sh checks
# the resent bytes; dedup in probe.sh checks that a copy arriving twice is applied once.)
msg_count() {
  WEIBO_CONNECT=$ENDPOINT "$WEIBO_BIN/weibo-user" show @alice --json |
    sed -n 's/.*"msg_count":\([0-9]*\).*/\1/p'
}
before=$(msg_count)
kill -STOP "$DAEMON_PID"
WEIBO_CONNECT=$ENDPOINT "$WEIBO_BIN/weibo-post" --timeout 8000 -u @alice "sent twice, made once" \
  >"$work/retry.out" 2>"$work/retry.err" &
poster=$!
sleep 3  # past the first attempt's 2000 ms
kill -CONT "$DAEMON_PID"
wait "$poster" || fail "weibo-post through a paused daemon exited $?: $(cat "$work/retry.err")"
grep -q '^  sent twice, made once$' "$work/retry.out" || fail "no post printed: $(cat "$work/retry.out")"
after=$(msg_count)
[ "$after" -eq $((before + 1)) ] || fail "msg_count went from $before to $after, not +1"
echo "ok   a post retried through a paused daemon is made once ($before -> $after)"

stop_daemon || fail "weibod exited $? after SIGTERM"
grep -Eq '^weibod: stopped after [0-9]+ requests$' "$DAEMON_LOG" || fail "no stop line: $(cat "$DAEMON_LOG")"
echo "ok   SIGTERM: exit 0, $(tail -n 1 "$DAEMON_LOG")"
start_daemon "$data"
kill -INT "$DAEMON_PID"
wait "$DAEMON_PID" || fail "weibod exited $? after SIGINT"
DAEMON_PID=
echo "ok   SIGINT: exit 0"
echo "lifecycle: ok"
