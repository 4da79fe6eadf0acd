#!/usr/bin/env bash
# weibo-sim at a tiny size: the three modes give identical timelines, the CSV has a row
# per metric and a column per mode (the same on a second run, latencies aside), and the
# SVG is well-formed XML with a bar per mode and metric.
# usage: sim_smoke.sh BIN_DIR PYTHON
set -euo pipefail
bin=${1:?usage: sim_smoke.sh BIN_DIR PYTHON} python=${2:?}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

"$bin/weibo-sim" --users 30 --follows 3 --posts 10 --ops 50 \
  --csv "$work/sim.csv" --svg "$work/sim.svg" > "$work/sim.txt"
grep -q '^timelines: identical in push, pull and hybrid' "$work/sim.txt"
test -s "$work/sim.csv" && test -s "$work/sim.svg"
# The same options again: every row but the latencies is the same.
"$bin/weibo-sim" --users 30 --follows 3 --posts 10 --ops 50 --csv "$work/again.csv" --json \
  > "$work/sim.json"
diff <(grep -v latency "$work/sim.csv") <(grep -v latency "$work/again.csv")

"$python" - "$work" <<'PY'
import csv, json, sys
import xml.etree.ElementTree as ET
work = sys.argv[1]

rows = list(csv.reader(open(f"{work}/sim.csv", newline="")))
assert rows[0] == ["metric", "unit", "push", "pull", "hybrid"], rows[0]
metrics = [r[0] for r in rows[1:]]
for needed in ("rows written per post", "rows read per timeline", "shards touched per timeline",
               "post latency p99", "timeline latency p99"):
    assert needed in metrics, (needed, metrics)
for r in rows[1:]:
    assert len(r) == 5, r
    for v in r[2:]:
        float(v)

svg = ET.parse(f"{work}/sim.svg").getroot()
assert svg.tag == "{http://www.w3.org/2000/svg}svg", svg.tag
ns = {"s": "http://www.w3.org/2000/svg"}
bars = [r for r in svg.iter("{http://www.w3.org/2000/svg}rect") if r.find("s:title", ns) is not None]
assert len(bars) == 3 * (len(rows) - 1), (len(bars), len(rows))
texts = {t.text for t in svg.iter("{http://www.w3.org/2000/svg}text")}
assert {"push", "pull", "hybrid"} <= texts and "rows written per post" in texts

sim = json.load(open(f"{work}/sim.json"))
assert sim["timelines"]["identical"] and sim["timelines"]["users_differing"] == 0, sim["timelines"]
assert sim["timelines"]["users"] >= 30 and sim["timelines"]["items"] > 0
assert [m["feed"] for m in sim["modes"]] == ["push", "pull", "hybrid"]
for m in sim["modes"]:
    assert m["errors"] == 0 and m["shards_per_timeline"] >= 1, m
print("sim smoke: ok")
PY
