#!/usr/bin/env bash
# The durable dedup window (weibod(1), Retries): a write whose reply was lost to a killed
# daemon is retried, with the same id, against the daemon restarted on the same data (its
# in-memory window empty). Each write — user_add, post, comment, follow, delete — is sent,
# the daemon is killed with SIGKILL and restarted, and the same body is sent again: the
# reply is byte-identical and the data show the write once. A new id applies again.
# usage: restart.sh BIN_DIR PROBE
set -u
WEIBO_BIN=$1 probe=$2
. "$(dirname "$0")/lib.sh"
daemon_workdir restart
data=$work/shards
"$WEIBO_BIN/weibo-init" --data "$data" --shards 4 >/dev/null || fail "weibo-init"
DAEMON_LOG=$work/weibod.log

ask() { "$probe" ask "$ENDPOINT" "$1" || fail "no reply to $1"; }
# Sends body, kills the daemon with SIGKILL, restarts it, sends body again: both replies
# must be the same bytes and ok. Sets REPLY.
once() {
  local first second
  first=$(ask "$1")
  case $first in *'"ok":true'*) ;; *) fail "not ok: $first" ;; esac
  kill -KILL "$DAEMON_PID"
  wait "$DAEMON_PID" 2>/dev/null
  DAEMON_PID=
  start_daemon "$data" --allow-clock
  second=$(ask "$1")
  [ "$first" = "$second" ] || fail "the retry after a restart got
  $second
instead of
  $first"
  echo "ok   $(printf '%s' "$1" | sed -n 's/.*"op":"\([a-z_]*\)".*/\1/p'): the same reply after kill -9 and restart"
  REPLY=$first
}
field() { printf '%s' "$1" | sed -n "s/.*\"result\":{\"id\":\"\\([0-9]*\\)\".*/\\1/p"; }
msg_count() {
  "$WEIBO_BIN/weibo-user" --data "$data" show "$1" --json |
    sed -n 's/.*"msg_count":\([0-9]*\).*/\1/p'
}

start_daemon "$data" --allow-clock
now='"now":"2026-01-01T00:00:00Z"'
once '{"id":"r-add-a","op":"user_add","args":{"name":"alice"},'"$now"'}'
once '{"id":"r-add-b","op":"user_add","args":{"name":"bob"},'"$now"'}'
once '{"id":"r-follow","op":"follow","args":{"user":"@bob","target":"@alice"},'"$now"'}'
once '{"id":"r-post","op":"post","args":{"user":"@alice","content":"once"},'"$now"'}'
post=$(field "$REPLY")
[ -n "$post" ] || fail "no message id in $REPLY"
once '{"id":"r-comment","op":"comment","args":{"user":"@bob","msg":"'"$post"'","content":"c"},'"$now"'}'
comment=$(field "$REPLY")

[ "$(msg_count @alice)" = 1 ] || fail "@alice has $(msg_count @alice) messages, not 1"
[ "$(msg_count @bob)" = 1 ] || fail "@bob has $(msg_count @bob) messages, not 1"
# How many items of a JSON array (on stdin) have the id $1.
items() { python3 -c 'import json, sys; print(sum(m["id"] == sys.argv[1] for m in json.load(sys.stdin)))' "$1"; }
timeline=$("$WEIBO_BIN/weibo-timeline" --data "$data" -u @bob --json)
[ "$(printf '%s' "$timeline" | items "$post")" = 1 ] || fail "@bob's timeline: $timeline"
comments=$("$WEIBO_BIN/weibo-comments" --data "$data" "$post" --json)
[ "$(printf '%s' "$comments" | items "$comment")" = 1 ] &&
  [ "$(printf '%s' "$comments" | python3 -c 'import json, sys; print(len(json.load(sys.stdin)))')" = 1 ] ||
  fail "the post's comments: $comments"
echo "ok   each write applied once"

once '{"id":"r-delete","op":"delete","args":{"user":"@bob","msg":"'"$comment"'"},'"$now"'}'
[ "$(msg_count @bob)" = 0 ] || fail "@bob has $(msg_count @bob) messages after delete"

# A new id is a new request.
other=$(ask '{"id":"r-post-2","op":"post","args":{"user":"@alice","content":"once"},'"$now"'}')
[ "$(field "$other")" != "$post" ] || fail "a new id got the old message: $other"
[ "$(msg_count @alice)" = 2 ] || fail "@alice has $(msg_count @alice) messages, not 2"
echo "ok   a new id posts again"

"$WEIBO_BIN/weibo-fsck" --data "$data" >/dev/null || fail "weibo-fsck: $("$WEIBO_BIN/weibo-fsck" --data "$data")"
echo "ok   weibo-fsck clean"
stop_daemon || fail "weibod exited $? after SIGTERM"
echo "restart: ok"
