#!/usr/bin/env bash
# weibo-sim and weibo-bench --strategy (issue 14, point 5) at a tiny size: the counts of
# shards per op are measured, so they are checked against what each strategy must touch
# (seed 003): a post read by id on 1 shard under gene and tid, and on the mapping's shard
# too under uid-mapping (the same shard 1 time in N); a user's own posts on 1 shard under
# gene and uid-mapping, and on several under tid, whose messages are on id mod N. The CSV has a row per metric and the SVG a bar per strategy and panel.
# --strategy S runs the usual comparison of feed modes in clusters of that strategy.
# usage: sim_strategies.sh BIN_DIR PYTHON
set -euo pipefail
bin=${1:?usage: sim_strategies.sh BIN_DIR PYTHON} python=${2:?}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

args=(--workload retwis --users 120 --follows 10 --posts 3 --ops 100 --shards 4 --strategy-ops 40)
"$bin/weibo-sim" "${args[@]}" --strategy all --json > "$work/sim.json"
"$bin/weibo-sim" "${args[@]}" --strategy all --csv "$work/sim.csv" --svg "$work/sim.svg" \
  > "$work/sim.txt"
"$bin/weibo-bench" run "${args[@]}" --strategy all --json > "$work/bench.json"
# A single strategy: the feed modes as usual, in uid-mapping clusters, timelines identical.
"$bin/weibo-sim" --workload retwis --users 80 --ops 100 --shards 4 --strategy uid-mapping \
  > "$work/mapped.txt"
grep -q "^timelines: identical in push, pull and hybrid" "$work/mapped.txt"
for refused in "$bin/weibo-sim --strategy all --sweep-active-list 1,2" \
               "$bin/weibo-sim --strategy all --hot-likes 10" \
               "$bin/weibo-sim --strategy sideways" \
               "$bin/weibo-bench run --strategy all --daemon" \
               "$bin/weibo-bench run --strategy all --star 10"; do
  if $refused >/dev/null 2>"$work/err"; then
    echo "accepted: $refused" >&2
    exit 1
  fi
  grep -q "strategy" "$work/err" || { echo "no reason given: $refused" >&2; cat "$work/err" >&2; exit 1; }
done

"$python" - "$work" <<'PY'
import csv, json, sys
import xml.etree.ElementTree as ET
work = sys.argv[1]
for name in ("sim", "bench"):
    j = json.load(open(f"{work}/{name}.json"))
    assert j["feed"] == "hybrid" and j["samples"] == 40 and j["shards"] == 4, j
    s = {r["strategy"]: r for r in j["strategies"]}
    assert list(s) == ["gene", "uid-mapping", "tid"], list(s)
    for built in ("gene", "uid-mapping", "tid"):
        assert s[built]["built"], s[built]
        for kind, o in s[built]["ops"].items():
            assert o["errors"] == 0 and o["ops"] >= 1, (name, built, kind, o)
            assert o["statements"] >= 1 and o["p50_ms"] > 0, (name, built, kind, o)
    gene, mapped = s["gene"]["ops"], s["uid-mapping"]["ops"]
    # Read by id: one shard under gene; the mapping lookup first under uid-mapping.
    assert gene["show"]["shards"] == 1 and gene["show"]["msg_shards"] == 1, gene["show"]
    assert 1.5 <= mapped["show"]["shards"] <= 2, mapped["show"]
    assert 1.5 <= mapped["show"]["msg_shards"] <= 2, mapped["show"]
    assert mapped["show"]["statements"] > gene["show"]["statements"], (gene, mapped)
    # A user's posts: the author's shard under both.
    assert gene["user_timeline"]["shards"] == 1, gene["user_timeline"]
    assert mapped["user_timeline"]["shards"] == 1, mapped["user_timeline"]
    assert mapped["user_timeline"]["msg_shards"] == 1, mapped["user_timeline"]
    # A post writes its tid_map row, on another shard 3 times in 4.
    assert mapped["post"]["shards"] > gene["post"]["shards"], (gene["post"], mapped["post"])
    tid = s["tid"]["ops"]
    # Seed 003: the message by id on tid mod N, one shard (its author's name is on the
    # author's, another 3 times in 4); a user's posts scattered over the shards.
    assert tid["show"]["msg_shards"] == 1, tid["show"]
    assert 1.5 <= tid["show"]["shards"] <= 2, tid["show"]
    assert tid["user_timeline"]["msg_shards"] > 1.5, tid["user_timeline"]
text = open(f"{work}/sim.txt").read()
assert "show by id: shards" in text, text
assert "not measured" not in text, text
lines = list(csv.reader(open(f"{work}/sim.csv", newline="")))
assert lines[0] == ["metric", "unit", "gene", "uid-mapping", "tid"], lines[0]
assert len(lines) == 1 + 5 * 5, len(lines)
svg = ET.parse(f"{work}/sim.svg").getroot()
ns = {"s": "http://www.w3.org/2000/svg"}
bars = [r for r in svg.iter("{http://www.w3.org/2000/svg}rect") if r.find("s:title", ns) is not None]
# A bar per strategy in each of the 15 panels (shards, message shards, statements per kind).
assert len(bars) == 3 * 15, len(bars)
print("strategies: ok, show by id on", json.load(open(f"{work}/sim.json"))["strategies"][1]["ops"]["show"]["shards"], "shards under uid-mapping")
PY
