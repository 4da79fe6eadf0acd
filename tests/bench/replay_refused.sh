#!/usr/bin/env bash
# replay counts the ops the library refuses, goes on, reports them and exits 1; a trace
# that is not a trace is a usage error (exit 2) naming its line.
# usage: replay_refused.sh BIN_DIR PYTHON
set -euo pipefail
bin=${1:?usage: replay_refused.sh BIN_DIR PYTHON}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

cat > "$work/refused.jsonl" <<'TRACE'
{"op":"user_add","args":{"name":"alice","now":"2024-01-01T00:00:00Z"}}
{"op":"user_add","args":{"name":"bob"}}
{"op":"follow","args":{"user":"@bob","target":"@alice"}}
{"op":"post","args":{"user":"1","content":"hello"}}
{"op":"follow","args":{"user":"2","target":"2"}}
{"op":"repost","args":{"user":"2","msg":"#1"}}
{"op":"repost","args":{"user":"2","msg":"#9"}}
{"op":"timeline","args":{"user":"2","count":5}}
TRACE
status=0
"$bin/weibo-bench" replay "$work/refused.jsonl" --feed push --no-baselines \
  > "$work/out.txt" 2> "$work/err.txt" || status=$?
[ "$status" -eq 1 ] || { echo "expected exit 1, got $status" >&2; cat "$work/err.txt" >&2; exit 1; }
grep -q 'line 5: follow: cannot_follow_self' "$work/err.txt"
grep -q 'line 7: repost: invalid_request: #9 names no message made earlier in the trace' "$work/err.txt"
grep -q '^weibo-bench: error: cannot_follow_self: 2 op(s) of the trace were refused$' "$work/err.txt"
grep -q '^errors ' "$work/out.txt"  # the table is printed all the same

printf '%s\n' '{"op":"user_add","args":{"name":"a"}}' 'not json' > "$work/bad.jsonl"
status=0
"$bin/weibo-bench" replay "$work/bad.jsonl" 2> "$work/err.txt" || status=$?
[ "$status" -eq 2 ] || { echo "expected exit 2, got $status" >&2; exit 1; }
grep -q "bad.jsonl:2: not valid JSON" "$work/err.txt"
echo "replay of refused ops and of a malformed trace: ok"
