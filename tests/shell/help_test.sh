#!/usr/bin/env bash
# Discovery: `weibo help` lists every command of the table (and every subcommand) with its
# summary, and the other programs; each --help shows the command's own options before the
# common ones and ends with two examples that parse; errors read forwards.
set -uo pipefail
bin=$(cd "${1:?usage: help_test.sh BIN_DIR}" && pwd)
export PATH="$bin:$PATH"
unset WEIBO_DATA WEIBO_CONNECT WEIBO_USER WEIBO_NOW
fail() { echo "FAIL: $*" >&2; exit 1; }

list=$(weibo help) || fail "weibo help exited $?"
for line in "post  " "user add  " "user show  " "timeline  " "fsck  " "sql  " "cluster  " \
            "golden  " "worker  " "completion  "; do
  grep -q "^  $line" <<<"$list" || fail "weibo help lists no '$line': $list"
done
[ "$list" = "$(weibo --help)" ] || fail "weibo help and weibo --help differ"

for cmd in post timeline follow init fsck count; do
  out=$(weibo $cmd --help) || fail "weibo $cmd --help"
  own=$(echo "$out" | grep -n '^Options:' | cut -d: -f1)
  common=$(echo "$out" | grep -n '^Common options:' | cut -d: -f1)
  [ -n "$own" ] && [ -n "$common" ] && [ "$own" -lt "$common" ] ||
    fail "weibo $cmd --help: own options ($own) before common ones ($common)"
  [ "$(echo "$out" | tail -n 3 | head -n 1)" = "Examples:" ] || fail "weibo $cmd --help ends: $(echo "$out" | tail -n 3)"
  # Each example parses: run with --help appended, it must exit 0.
  echo "$out" | tail -n 2 | while read -r example; do
    eval "$example --help" >/dev/null 2>&1 || fail "example '$example' does not parse"
  done || exit 1
done

err=$(weibo-timeline -u 1 -n 2 2>&1)
grep -q "unexpected argument(s): -n 2" <<<"$err" || fail "extras: $err"
echo "ok: weibo help lists $(echo "$list" | grep -c '^  ') commands; --help of 6 commands checked"
