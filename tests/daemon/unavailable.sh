#!/usr/bin/env bash
# Unreachable daemon (SPEC §10, exit 5): --connect to a port nobody listens on gives up
# within --timeout with "error: unavailable:", by option, by WEIBO_CONNECT and with --json;
# an endpoint ZeroMQ cannot parse is a usage error.
# usage: unavailable.sh BIN_DIR
set -u
WEIBO_BIN=$1
. "$(dirname "$0")/lib.sh"
work=$(mktemp -d "${TMPDIR:-/tmp}/weibod-unavailable.XXXXXX")
trap 'rm -rf "$work"' EXIT
port=$(free_port) || fail "no free port"
endpoint=tcp://127.0.0.1:$port

# expect RC STDERR_PATTERN COMMAND...: runs COMMAND, checks its exit status, that stdout is
# empty and that stderr matches the extended regex; prints the elapsed milliseconds.
expect() {
  local want_rc=$1 pattern=$2 start end rc
  shift 2
  start=$(date +%s%N)
  "$@" >"$work/out" 2>"$work/err" </dev/null
  rc=$?
  end=$(date +%s%N)
  elapsed=$(((end - start) / 1000000))
  [ "$rc" -eq "$want_rc" ] || fail "$* exited $rc, not $want_rc: $(cat "$work/err")"
  [ ! -s "$work/out" ] || fail "$* printed on stdout: $(cat "$work/out")"
  grep -Eq "$pattern" "$work/err" || fail "$*: stderr '$(cat "$work/err")' does not match '$pattern'"
  echo "ok   exit $rc in ${elapsed} ms: $*"
}

expect 5 '^weibo-post: error: unavailable: no reply from '"$endpoint"' in 1000 ms \(4 attempts\)$' \
  "$WEIBO_BIN/weibo-post" --connect "$endpoint" --timeout 1000 -u 1 hello
[ "$elapsed" -ge 900 ] && [ "$elapsed" -lt 3000 ] || fail "gave up after $elapsed ms, not about 1000"
WEIBO_CONNECT=$endpoint WEIBO_TIMEOUT=400 expect 5 '^weibo-timeline: error: unavailable: ' \
  "$WEIBO_BIN/weibo-timeline" -u @alice
[ "$elapsed" -lt 2500 ] || fail "gave up after $elapsed ms, not about 400"
expect 5 '^\{"error":\{"code":"unavailable","message":"no reply from ' \
  "$WEIBO_BIN/weibo-user" --connect "$endpoint" --timeout 300 --json list
expect 5 '^weibo-show: error: unavailable: ' \
  "$WEIBO_BIN/weibo" show --connect "$endpoint" --timeout 300 123
expect 2 "^weibo-post: error: invalid_argument: cannot connect to 'nonsense': " \
  "$WEIBO_BIN/weibo-post" --connect nonsense -u 1 hello
expect 2 '^weibo-post: error: invalid_argument: --timeout: ' \
  "$WEIBO_BIN/weibo-post" --connect "$endpoint" --timeout 0 -u 1 hello
echo "unavailable: ok"
