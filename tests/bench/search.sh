#!/usr/bin/env bash
# weibo-bench search at a tiny size: the JSON is whole, every query found something (they
# are windows of posted texts), and --reuse times the same queries on the kept cluster
# without loading it again: the same results, no load measured. --reuse without --data,
# or with a directory holding no cluster, is refused.
# usage: search.sh BIN_DIR PYTHON
set -euo pipefail
bin=${1:?usage: search.sh BIN_DIR PYTHON} python=${2:?}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

args=(search --posts 300 --users 20 --queries 50 --shards 4 --data "$work/kept" --json)
"$bin/weibo-bench" "${args[@]}" > "$work/first.json"
"$bin/weibo-bench" "${args[@]}" --reuse > "$work/again.json"
for refused in "$bin/weibo-bench search --reuse" "$bin/weibo-bench search --reuse --data $work/none"; do
  if $refused >/dev/null 2>"$work/err"; then
    echo "accepted: $refused" >&2
    exit 1
  fi
  grep -q -- "--reuse needs --data" "$work/err" || { cat "$work/err" >&2; exit 1; }
done
"$python" - "$work" <<'PY'
import json, sys
work = sys.argv[1]
a = json.load(open(f"{work}/first.json"))
b = json.load(open(f"{work}/again.json"))
assert a["posts"] == 300 and a["queries"] == 50 and a["empty_results"] == 0, a
assert a["reused"] is False and a["load_seconds"] > 0, a
assert b["reused"] is True and b["load_seconds"] == 0 and b["posts_per_second"] is None, b
assert a["mean_results"] == b["mean_results"], (a["mean_results"], b["mean_results"])
assert a["index_bytes"] == b["index_bytes"] and a["index_ratio"] > 0, (a, b)
for r in (a, b):
    l = r["latency_ms"]
    assert 0 < l["p50"] <= l["p99"] <= l["max"], l
print("search: ok,", a["mean_results"], "results a query both times")
PY
