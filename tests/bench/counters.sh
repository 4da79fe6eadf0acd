#!/usr/bin/env bash
# weibo-bench counters at a small size and weibo-bench run --workload social: the programs
# run and print what they count. Checked: the statement counts, which do not depend on the
# machine's speed — likes of one message through weibod cost at most 10 UPDATE msg_counter
# (one a second at most: the likes here take well under that) and leave like_count equal
# to the likes; a notify send writes the same statements whatever the number of users; the
# social mix runs without a refused op and reports its counter writes per like. No timing.
# usage: counters.sh BIN_DIR PYTHON
set -euo pipefail
bin=${1:?usage: counters.sh BIN_DIR PYTHON} python=${2:?}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

"$bin/weibo-bench" counters --shards 4 --ids 20 --rounds 3 --likes 200 --small-users 100 \
  --large-users 20000 --sends 3 --unreads 30 --json > "$work/counters.json"
"$bin/weibo-bench" counters --shards 4 --ids 20 --rounds 2 --likes 50 --small-users 10 \
  --large-users 100 --sends 2 --unreads 10 > "$work/counters.txt"
grep -q 'UPDATE msg_counter statements:' "$work/counters.txt"
grep -q 'unread p99 ms' "$work/counters.txt"

"$bin/weibo-bench" run --workload social --users 40 --follows 4 --posts 20 --ops 300 \
  --feed hybrid --no-baselines --json > "$work/social.json"
"$bin/weibo-bench" run --workload social --users 40 --follows 4 --posts 20 --ops 300 \
  --feed push --no-baselines > "$work/social.txt"
grep -q '^counter writes/like' "$work/social.txt"

"$python" - "$work" <<'PY'
import json, sys
work = sys.argv[1]
c = json.load(open(f"{work}/counters.json"))
likes = c["likes"]
assert likes["likes"] == 200 and likes["like_count"] == 200, likes
assert 1 <= likes["counter_updates"] <= 10, likes
count = c["count"]
assert count["ids"] == 20 and count["hot_calls_per_s"] > 0 and count["cold_calls_per_s"] > 0, count
n = c["notify"]
assert n["small"]["users"] == 100 and n["large"]["users"] == 20000, n
assert n["small"]["send_write_statements"] == n["large"]["send_write_statements"] > 0, n
assert n["send_writes_large_to_small"] == 1, n

s = json.load(open(f"{work}/social.json"))
m = s["modes"][0]
assert m["errors"] == 0, m
assert m["likes"] > 0 and m["counter_writes_per_like"] is not None, m
assert m["counter_writes_per_like"] >= 0, m
print("counters:", json.dumps(likes), "social: counter writes/like", m["counter_writes_per_like"])
PY
