#!/usr/bin/env bash
# weibo-bench --daemon at a tiny size: each mode runs twice, embedded and through a weibod
# the bench starts on an identical cluster, op blocks interleaved. The two columns did the
# same ops without errors, the ratios are reported, both clusters pass weibo-fsck, and no
# weibod is left behind. Nothing here looks at how large a timing or ratio is. Last, a
# bench against a running daemon with a rate limit stops with a message saying why, and one
# against a running daemon without a limit loads a setup larger than a request can carry.
# usage: daemon_pair.sh BIN_DIR PYTHON
set -euo pipefail
bin=${1:?usage: daemon_pair.sh BIN_DIR PYTHON} python=${2:?}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

"$bin/weibo-bench" run --workload timeline --users 30 --follows 3 --posts 12 --reads 50 \
  --feed push --daemon --data "$work/d" --json-out "$work/pair.json" > "$work/pair.txt"
grep -q '^push/weibod / push: posts/s [0-9.]*, timeline reads/s [0-9.]* (same ops, interleaved' \
  "$work/pair.txt" || { cat "$work/pair.txt" >&2; echo "no ratio line" >&2; exit 1; }
grep -q '^metric  *push  *push/weibod$' "$work/pair.txt"

"$python" - "$work/pair.json" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
assert j["daemon"] is True, j
embedded, daemon = j["modes"]
assert embedded["feed"] == "push" and daemon["feed"] == "push/weibod", j["modes"]
for m in (embedded, daemon):
    assert m["errors"] == 0 and m["posts"] == 12 and m["timeline_reads"] == 50, m
assert daemon["deliveries"] is None  # nothing is measured inside the daemon's process
assert "vs_embedded" not in embedded
v = daemon["vs_embedded"]
assert v["feed"] == "push" and v["posts_per_s"] > 0 and v["timeline_reads_per_s"] > 0, v
assert embedded["baselines"] is not None
assert daemon["baselines"] == embedded["baselines"]  # one set of baselines, shared
print("bench --daemon: ok")
PY

# Both clusters hold the same work, whole: the daemon's was left by a SIGTERM'd weibod.
for c in push push-weibod; do
  "$bin/weibo-fsck" --data "$work/d/$c" > "$work/fsck-$c.txt" ||
    { cat "$work/fsck-$c.txt" >&2; exit 1; }
done
[ -s "$work/d/push-weibod/weibod.log" ]
if pgrep -f "weibod --data $work/d" > /dev/null; then echo "a weibod outlived the bench" >&2; exit 1; fi

# Refused: a running daemon and one of its own; a weibod that does not start.
if "$bin/weibo-bench" run --daemon --connect tcp://127.0.0.1:1 2> "$work/err"; then exit 1; fi
grep -q 'invalid_argument: --daemon starts a weibod of its own' "$work/err"
if "$bin/weibo-bench" run --users 30 --follows 3 --posts 2 --no-baselines --feed pull --daemon \
  --weibod "$work/no-such-weibod" > /dev/null 2> "$work/err"; then exit 1; fi
grep -q "unavailable: pull: weibod ($work/no-such-weibod) did not start" "$work/err" ||
  { cat "$work/err" >&2; exit 1; }
echo "bench --daemon refusals: ok"

# Starts a weibod with rate limit $2 on a new 4-shard cluster in $work/$1, in the background
# ($pid), and sets $endpoint once it listens.
start_weibod() {
  "$bin/weibo-init" --data "$work/$1" --shards 4 > /dev/null
  "$bin/weibod" --data "$work/$1" --bind 'tcp://127.0.0.1:*' --rate "$2" --allow-clock \
    > "$work/$1.endpoint" 2> "$work/$1.log" < /dev/null &
  pid=$!
  for _ in $(seq 200); do [ -s "$work/$1.endpoint" ] && break; sleep 0.05; done
  endpoint=$(head -n 1 "$work/$1.endpoint")
}

# A running daemon with a per-peer rate limit refuses a bench that sends as fast as it can:
# the run stops with unavailable (exit 5), and the message says how to measure.
start_weibod limited 5
rc=0
"$bin/weibo-bench" run --users 30 --follows 3 --posts 2 --no-baselines \
  --connect "$endpoint" > /dev/null 2> "$work/err" || rc=$?
kill -TERM $pid
wait $pid
[ $rc -eq 5 ] || { cat "$work/err" >&2; echo "rate-limited bench exited $rc, not 5" >&2; exit 1; }
grep -q 'over the rate limit of 5 requests a second.*start weibod with --rate 0 to measure it' \
  "$work/err" || { cat "$work/err" >&2; exit 1; }
echo "bench against a rate-limited daemon: ok"

# Into a running daemon (--connect) the setup's follows go as imports below the daemon's
# request cap (64 KiB): 400 users following 30 each (about 11 000 edges, some 140 KB as one
# import) load without an error, and the daemon's cluster holds them (less at most one
# unfollow per measured op).
start_weibod open 0
rc=0
out=$("$bin/weibo-bench" run --users 400 --follows 30 --posts 1 --ops 100 --no-baselines \
  --connect "$endpoint" --jq '"\(.modes[0].errors) \(.setup.follows)"' 2> "$work/err") || rc=$?
kill -TERM $pid
wait $pid
read -r errors setup_follows <<< "$out"
[ $rc -eq 0 ] && [ "$errors" = 0 ] && [ "$setup_follows" -gt 10000 ] ||
  { cat "$work/err" >&2; echo "bench --connect: exit $rc, output '$out'" >&2; exit 1; }
follows=$("$bin/weibo-sql" --data "$work/open" --jq 'map(.n) | add' \
  'SELECT count(*) AS n FROM user_relation WHERE type = 0')
[ "$follows" -ge $((setup_follows - 100)) ] ||
  { echo "the daemon's cluster holds $follows follows of $setup_follows" >&2; exit 1; }
echo "bench --connect loads a large setup: ok"
