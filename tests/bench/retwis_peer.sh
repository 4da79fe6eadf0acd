#!/usr/bin/env bash
# weibo-bench --peer retwis at a tiny size: the trace also runs on the Retwis model in a
# redis-server the bench starts; its column is the last, every other mode gets vs_retwis
# ratios in the JSON and a line under the table, the peer did the same posts and reads,
# and no redis-server is left behind. Nothing here looks at how large a ratio is.
# Skipped (77) where redis-server is not installed (scripts/setup.sh installs it).
# usage: retwis_peer.sh BIN_DIR PYTHON
set -euo pipefail
bin=${1:?usage: retwis_peer.sh BIN_DIR PYTHON} python=${2:?}
if ! command -v redis-server > /dev/null && [ ! -x /usr/bin/redis-server ]; then
  echo "redis-server is not installed: skipped"
  exit 77
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

"$bin/weibo-bench" run --workload retwis --users 40 --follows 4 --posts 10 --ops 600 \
  --feed hybrid --daemon --peer retwis --durability normal --no-baselines --data "$work/d" \
  --json-out "$work/peer.json" > "$work/peer.txt"
grep -q '^against retwis (rates: ours / Retwis' "$work/peer.txt" ||
  { cat "$work/peer.txt" >&2; echo "no ratio lines" >&2; exit 1; }
grep -q '^  hybrid: timeline reads/s [0-9.]*, p99 [0-9.]*; posts/s [0-9.]*, p99 [0-9.]*; setup [0-9.]*; whole trace [0-9.]*$' \
  "$work/peer.txt" || { cat "$work/peer.txt" >&2; exit 1; }
grep -q '^metric  *hybrid  *hybrid/weibod  *retwis$' "$work/peer.txt"
grep -q 'durability normal' "$work/peer.txt"

"$python" - "$work/peer.json" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
assert j["peer"] == "retwis" and j["cluster"]["durability"] == "normal", j
hybrid, daemon, retwis = j["modes"]
assert (hybrid["feed"], daemon["feed"], retwis["feed"]) == ("hybrid", "hybrid/weibod", "retwis")
assert retwis["posts"] == hybrid["posts"] > 0, (retwis["posts"], hybrid["posts"])
assert retwis["timeline_reads"] == hybrid["timeline_reads"] > 0
assert retwis["deliveries"] is None and "vs_retwis" not in retwis
for m in (hybrid, daemon):
    v = m["vs_retwis"]
    for key in ("timeline_reads_per_s", "timeline_p99_ms", "posts_per_s", "post_p99_ms",
                "setup_seconds", "trace_seconds"):
        assert v[key] is not None and v[key] > 0, (m["feed"], key, v)
    assert m["trace_seconds"] > m["setup"]["seconds"], m
print("bench --peer retwis: ok")
PY

conf=$work/d/retwis/redis.conf
grep -qx 'appendonly yes' "$conf" && grep -qx 'appendfsync everysec' "$conf"
if pgrep -f "redis-server $conf" > /dev/null; then echo "a redis-server outlived the bench" >&2; exit 1; fi

# A relative --data works too (redis-server changes into its dir before it binds).
(cd "$work" && "$bin/weibo-bench" run --workload retwis --users 20 --follows 2 --posts 5 \
  --ops 100 --feed push --peer retwis --durability normal --no-baselines --data rel \
  > "$work/rel.txt") || { cat "$work/rel.txt" >&2; echo "a relative --data failed" >&2; exit 1; }
grep -q '^against retwis (rates: ours / Retwis' "$work/rel.txt"

# Not with --connect; an unknown peer is refused by the parser.
if "$bin/weibo-bench" run --peer retwis --connect tcp://127.0.0.1:1 2> "$work/err"; then exit 1; fi
grep -q 'invalid_argument: --peer shapes the bench' "$work/err" || { cat "$work/err" >&2; exit 1; }
if "$bin/weibo-bench" run --peer redis 2> "$work/err"; then exit 1; fi
echo "bench --peer refusals: ok"
