#!/usr/bin/env bash
# weibo-bench run at tiny sizes, every feed mode, every workload: the table and the JSON
# say what was run, and the counts (never the timings) add up.
# usage: run_smoke.sh BIN_DIR PYTHON
set -euo pipefail
bin=${1:?usage: run_smoke.sh BIN_DIR PYTHON} python=${2:?}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

"$bin/weibo-bench" run --users 30 --follows 3 --posts 8 --feed all \
  --json-out "$work/fanout.json" > "$work/fanout.txt"
for row in 'posts/s' 'deliveries/s' 'deliveries/s / same commits' 'deliveries/s / ceiling' 'rows written/post' \
           'db bytes/post' 'timeline p999 ms' 'slowest fan-out ms'; do
  grep -q "^$row " "$work/fanout.txt" || { echo "table has no row '$row'" >&2; exit 1; }
done
head -n 1 "$work/fanout.txt" | grep -q '^weibo-bench run: fanout workload, seed 1'

"$bin/weibo-bench" run --workload timeline --users 30 --follows 3 --posts 5 --reads 10 \
  --no-baselines --feed pull --json-out "$work/timeline.json" > /dev/null
"$bin/weibo-bench" run --workload retwis --users 30 --follows 3 --posts 5 --ops 40 \
  --no-baselines --feed hybrid --async --jsonl > "$work/retwis.jsonl"

"$python" - "$work" <<'PY'
import json, sys
work = sys.argv[1]

fanout = json.load(open(f"{work}/fanout.json"))
assert fanout["program"] == "weibo-bench" and fanout["command"] == "run", fanout
assert fanout["workload"]["users"] == 30 and fanout["workload"]["seed"] == 1
assert [m["feed"] for m in fanout["modes"]] == ["push", "pull", "hybrid"]
for m in fanout["modes"]:
    assert m["posts"] == 8 and m["errors"] == 0, m
    assert m["deliveries"] >= m["posts"], m  # at least the author's own inbox row
    # Every mode's baselines insert push's rows of the measured phase (deliveries is a net
    # count: a delivery into a full inbox trims its oldest row).
    assert m["baselines"]["ceiling"]["rows"] >= fanout["modes"][0]["deliveries"], m
    assert m["baselines"]["ceiling"]["transactions"] == 1, m
    for key in ("posts_per_s", "deliveries_per_s", "rows_written_per_post"):
        assert m[key] is not None and m[key] > 0, (key, m)
    for key in ("same_commits", "one_txn_per_post", "ceiling"):
        assert m["deliveries_per_s_against"]["ratios"][key] > 0, (key, m)
    assert m["timeline_reads"] == 0 and m["timeline_reads_per_s"] is None
push, pull, hybrid = fanout["modes"]
assert push["deliveries"] >= hybrid["deliveries"] >= pull["deliveries"], fanout["modes"]

timeline = json.load(open(f"{work}/timeline.json"))
(m,) = timeline["modes"]
assert m["feed"] == "pull" and m["timeline_reads"] == 10 and m["posts"] == 5, m
assert m["timeline_latency_ms"]["p50"] <= m["timeline_latency_ms"]["p999"]
assert m["baselines"] is None and m["deliveries_per_s_against"]["ratios"]["ceiling"] is None
assert m["star"] is None

lines = [json.loads(l) for l in open(f"{work}/retwis.jsonl")]
assert len(lines) == 1 and lines[0]["feed"] == "hybrid" and lines[0]["errors"] == 0, lines
assert lines[0]["post_completed_latency_ms"]["p50"] is not None  # --async: post + drain
print("bench run smoke: ok")
PY
