#!/usr/bin/env bash
# The Lazy Pirate client (weibod(1), Retries): against a fake daemon that drops the first
# two requests, a command resends the same request (same id) on a fresh socket each time,
# renders the third attempt's reply as if embedded, and exits 0.
# usage: pirate.sh BIN_DIR PROBE
set -u
WEIBO_BIN=$1 probe=$2
. "$(dirname "$0")/lib.sh"
work=$(mktemp -d "${TMPDIR:-/tmp}/weibod-pirate.XXXXXX")
trap 'rm -rf "$work"' EXIT
"$probe" pirate >"$work/probe.out" 2>&1 &
fake=$!
for _ in $(seq 200); do [ -s "$work/probe.out" ] && break; sleep 0.05; done
endpoint=$(head -n 1 "$work/probe.out")
[ -n "$endpoint" ] || fail "the fake daemon did not start"
out=$("$WEIBO_BIN/weibo-user" show 7 --connect "$endpoint" --timeout 2000 2>&1)
rc=$?
wait "$fake"
fake_rc=$?
cat "$work/probe.out"
[ $rc -eq 0 ] || fail "weibo-user exited $rc: $out"
[ "$out" = "7 @pirate messages 0 fans 0 following 0" ] || fail "weibo-user printed '$out'"
[ $fake_rc -eq 0 ] || fail "the fake daemon's checks (above)"
echo "pirate: ok"
