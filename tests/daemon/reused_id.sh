#!/usr/bin/env bash
# Issue 11, defect 2: weibod keys its dedup window on (id, op, args). The same id with
# another op or other args is refused with invalid_request "request id reused" and applies
# nothing; the same id with the same request is a retry, answered with the first reply and
# applied once. Both from memory and, after kill -9 and a restart, from the shards.
# usage: reused_id.sh BIN_DIR PROBE
set -u
WEIBO_BIN=$1 probe=$2
. "$(dirname "$0")/lib.sh"
daemon_workdir reused
data=$work/shards
"$WEIBO_BIN/weibo-init" --data "$data" --shards 4 >/dev/null || fail "weibo-init"
"$WEIBO_BIN/weibo-user" --data "$data" add alice >/dev/null || fail "user add alice"
"$WEIBO_BIN/weibo-user" --data "$data" add bob >/dev/null || fail "user add bob"
DAEMON_LOG=$work/weibod.log

ask() { "$probe" ask "$ENDPOINT" "$1" || fail "no reply to $1"; }
refused() {  # body, what
  local reply
  reply=$(ask "$1")
  case $reply in
    *'"ok":false,"error":{"code":"invalid_request","message":"request id reused"}'*) ;;
    *) fail "$2: $reply" ;;
  esac
  echo "ok   $2: refused"
}
msg_count() {
  "$WEIBO_BIN/weibo-user" --data "$data" show "$1" --json | sed -n 's/.*"msg_count":\([0-9]*\).*/\1/p'
}
counts_unchanged() {
  [ "$(msg_count @alice)" = 1 ] && [ "$(msg_count @bob)" = 0 ] ||
    fail "$1: alice has $(msg_count @alice) messages, bob $(msg_count @bob)"
  "$WEIBO_BIN/weibo-user" --data "$data" show @carol >/dev/null 2>&1 && fail "$1: @carol exists"
  "$WEIBO_BIN/weibo-user" --data "$data" show @alice --json | grep -q '"follow_count":0' ||
    fail "$1: @alice follows someone"
}

start_daemon "$data"
post='{"id":"R","op":"post","args":{"user":"@alice","content":"first"}}'
first=$(ask "$post")
case $first in *'"ok":true'*) ;; *) fail "the first post: $first" ;; esac
msg=$(printf '%s' "$first" | sed -n 's/.*"result":{"id":"\([0-9]*\)".*/\1/p')
refused '{"id":"R","op":"post","args":{"user":"@alice","content":"second"}}' "same id, other content"
refused '{"id":"R","op":"post","args":{"user":"@bob","content":"first"}}' "same id, other user"
refused '{"id":"R","op":"user_add","args":{"name":"carol"}}' "same id, user_add"
refused '{"id":"R","op":"follow","args":{"user":"@alice","target":"@bob"}}' "same id, follow"
refused '{"id":"R","op":"delete","args":{"user":"@alice","msg":"'"$msg"'"}}' "same id, delete"
[ "$(ask "$post")" = "$first" ] || fail "the retry did not get the first reply"
echo "ok   same id, same request: the first reply"
counts_unchanged "in memory"

kill -KILL "$DAEMON_PID"
wait "$DAEMON_PID" 2>/dev/null
DAEMON_PID=
start_daemon "$data"
# The shards remember the id on its home shard (@alice's): what would run there is refused.
refused '{"id":"R","op":"post","args":{"user":"@alice","content":"second"}}' "after a restart, other content"
refused '{"id":"R","op":"follow","args":{"user":"@alice","target":"@bob"}}' "after a restart, follow"
refused '{"id":"R","op":"delete","args":{"user":"@alice","msg":"'"$msg"'"}}' "after a restart, delete"
again=$(ask "$post")
[ "$again" = "$first" ] || fail "the retry after a restart got $again, not $first"
echo "ok   after a restart, same request: the first reply"
counts_unchanged "after a restart"
"$WEIBO_BIN/weibo-fsck" --data "$data" >/dev/null || fail "weibo-fsck: $("$WEIBO_BIN/weibo-fsck" --data "$data")"
stop_daemon || fail "weibod exited $? after SIGTERM"
echo "reused_id: ok"
