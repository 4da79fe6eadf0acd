#!/usr/bin/env bash
# gen is reproducible (same options, same bytes), and replaying one trace twice, into two
# fresh clusters per feed mode, gives every user the same home timeline, byte for byte:
# the trace pins the clock, so ids and times are the same too.
# usage: roundtrip.sh BIN_DIR PYTHON
set -euo pipefail
bin=${1:?usage: roundtrip.sh BIN_DIR PYTHON} python=${2:?}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

gen() { "$bin/weibo-bench" gen --workload retwis --users 20 --follows 3 --posts 8 --ops 40 "$@"; }
gen --seed 7 -o "$work/trace.jsonl"
gen --seed 7 > "$work/again.jsonl"
cmp "$work/trace.jsonl" "$work/again.jsonl"
if gen --seed 8 | cmp -s - "$work/trace.jsonl"; then
  echo "seeds 7 and 8 gave the same trace" >&2
  exit 1
fi

"$python" - "$work/trace.jsonl" <<'PY'
import json, sys
ops = [json.loads(line) for line in open(sys.argv[1])]
known = {"user_add", "follow", "unfollow", "post", "timeline"}
for op in ops:
    assert set(op) == {"op", "args"} and op["op"] in known, op
    assert "now" in op["args"], op
    if op["op"] == "timeline":
        assert op["args"]["count"] == 20, op
assert [o["op"] for o in ops[:20]] == ["user_add"] * 20
PY

for run in 1 2; do
  "$bin/weibo-bench" replay "$work/trace.jsonl" --feed all --no-baselines --data "$work/run$run" \
    > "$work/run$run.txt"
done
users=$(grep -c '"op":"user_add"' "$work/trace.jsonl")
for feed in push pull hybrid; do
  for user in $(seq 1 "$users"); do
    for run in 1 2; do
      "$bin/weibo-timeline" --data "$work/run$run/$feed" -u "$user" --count 200 --json \
        > "$work/$feed-$user-$run.json"
    done
    cmp -s "$work/$feed-$user-1.json" "$work/$feed-$user-2.json" || {
      echo "$feed: user $user's timeline differs between two replays of one trace" >&2
      diff "$work/$feed-$user-1.json" "$work/$feed-$user-2.json" >&2 || true
      exit 1
    }
  done
done
# Not all empty: the comparison compared something.
[ "$(cat "$work"/push-*-1.json | tr -d '[]\n' | wc -c)" -gt 0 ]
echo "gen + replay round trip: $users users x 3 feed modes identical"
