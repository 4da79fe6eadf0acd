#!/usr/bin/env bash
# weibod drains continuously (SPEC §5; weibod(1), --drain-interval): jobs left pending in
# the outboxes — by an --async write of another process, or by one that crashed — are
# applied by a running daemon without weibo-worker, once at start and then every interval
# between requests; with --drain-interval 0 they stay pending.
# usage: background_drain.sh BIN_DIR
set -u
WEIBO_BIN=$1
. "$(dirname "$0")/lib.sh"
daemon_workdir drain
export WEIBO_DATA=$work/shards
DAEMON_LOG=$work/weibod.log

"$WEIBO_BIN/weibo-init" --shards 4 >/dev/null || fail "weibo-init"
for name in alice bob; do "$WEIBO_BIN/weibo-user" add $name >/dev/null || fail "user add"; done
"$WEIBO_BIN/weibo-follow" -u @bob @alice >/dev/null || fail "follow"

# pending_after SECONDS: waits up to that long for fsck to find no pending job; prints the
# outbox violations left.
pending_after() {
  for _ in $(seq $(($1 * 10))); do
    "$WEIBO_BIN/weibo-fsck" >"$work/fsck" 2>&1 && break
    sleep 0.1
  done
  grep 'pending job' "$work/fsck"
}

# Off: an embedded --async post, written while the daemon runs, stays pending.
start_daemon "$WEIBO_DATA" --drain-interval 0
"$WEIBO_BIN/weibo-post" --async -u @alice "first, left pending" >/dev/null || fail "post --async"
[ -n "$(pending_after 1)" ] || fail "--drain-interval 0 applied the pending jobs"
stop_daemon || fail "weibod exited $?"
echo "ok   --drain-interval 0: the --async post's jobs are still pending after 1 s"

# At start: the daemon applies what it finds pending before it serves.
start_daemon "$WEIBO_DATA" --drain-interval 200
left=$(pending_after 5)
[ -z "$left" ] || fail "still pending 5 s after the daemon started: $left"
grep -q '^weibod: drain: applied [1-9][0-9]* pending job(s)$' "$DAEMON_LOG" ||
  fail "no drain line in the log: $(cat "$DAEMON_LOG")"
echo "ok   at start: $(grep 'drain:' "$DAEMON_LOG" | head -n 1)"

# While it runs: another --async post (the state a writer killed before its drain leaves).
"$WEIBO_BIN/weibo-post" --async -u @alice "second, left pending" >/dev/null || fail "post --async"
left=$(pending_after 5)
[ -z "$left" ] || fail "still pending 5 s later: $left"
"$WEIBO_BIN/weibo-timeline" -u @bob >"$work/timeline" || fail "timeline"
for text in "first, left pending" "second, left pending"; do
  grep -q "$text" "$work/timeline" || fail "bob's timeline lacks '$text': $(cat "$work/timeline")"
done
"$WEIBO_BIN/weibo-fsck" >"$work/fsck" || fail "fsck after the drains: $(cat "$work/fsck")"
echo "ok   while serving: both posts reached bob's inbox; fsck: $(tail -n 1 "$work/fsck")"
stop_daemon || fail "weibod exited $? after SIGTERM"
