#!/usr/bin/env bash
# weibo-sim --sweep-active-list at a tiny size (issue 16, point 4): one row per length,
# ascending, and push's last; deliveries per post never fall as the list grows (a longer
# list pushes to more fans) and rise from the shortest list to the longest; every hybrid's
# timelines equal push's; pulled authors per read never rise as the list grows; the CSV has a line per length and the SVG a bar per length and
# column.
# usage: sim_sweep.sh BIN_DIR PYTHON
set -euo pipefail
bin=${1:?usage: sim_sweep.sh BIN_DIR PYTHON} python=${2:?}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# A power-law graph whose pushed authors have more fans than the shortest list holds.
args=(--workload retwis --users 150 --follows 12 --posts 20 --ops 200 --shards 4 --celebrity-threshold 40)
"$bin/weibo-sim" "${args[@]}" --sweep-active-list 30,1,5 \
  --csv "$work/sweep.csv" --svg "$work/sweep.svg" > "$work/sweep.txt"
"$bin/weibo-sim" "${args[@]}" --sweep-active-list 1,5,30 --json > "$work/sweep.json"
# Refused: a sweep sets the list itself.
if "$bin/weibo-sim" --sweep-active-list 1,5 --active-list 3 >/dev/null 2>&1; then
  echo "--sweep-active-list with --active-list was accepted" >&2
  exit 1
fi
if "$bin/weibo-sim" --sweep-active-list 1,x >/dev/null 2>&1; then
  echo "--sweep-active-list 1,x was accepted" >&2
  exit 1
fi

"$python" - "$work" <<'PY'
import csv, json, re, sys
import xml.etree.ElementTree as ET
work = sys.argv[1]

text = open(f"{work}/sweep.txt").read().splitlines()
assert any(l.startswith("timelines: identical in push, hybrid 1, hybrid 5 and hybrid 30")
           for l in text), text
header = [i for i, l in enumerate(text) if l.strip().startswith("active list")]
assert len(header) == 1, text
rows = []
for line in text[header[0] + 1:]:
    if not line.strip():
        break
    rows.append(line.split())
assert [r[0] for r in rows] == ["1", "5", "30", "push"], rows
lines = list(csv.reader(open(f"{work}/sweep.csv", newline="")))
assert lines[0][:3] == ["active_list", "rows_per_post", "deliveries_per_post"], lines[0]
assert [l[0] for l in lines[1:]] == ["1", "5", "30", ""], lines
# Deliveries per post (full precision in the CSV; the text's are rounded to match).
deliveries = [float(l[2]) for l in lines[1:4]]
assert deliveries == sorted(deliveries), deliveries
assert deliveries[0] < deliveries[-1], deliveries
assert [f"{d:.1f}" for d in deliveries] == [r[2] for r in rows[:3]], (deliveries, rows)

sweep = json.load(open(f"{work}/sweep.json"))
assert [r["active_list"] for r in sweep["sweep"]] == [1, 5, 30, None], sweep["sweep"]
assert [r["feed"] for r in sweep["sweep"]] == ["hybrid"] * 3 + ["push"]
# The CSV prints 6 significant digits: the same numbers to within its rounding.
assert all(abs(r["deliveries_per_post"] - d) < 1e-3
           for r, d in zip(sweep["sweep"][:3], deliveries)), (sweep["sweep"], deliveries)
assert sweep["timelines"]["identical"], sweep["timelines"]
push = sweep["sweep"][3]
for r in sweep["sweep"][:3]:
    assert r["rows_per_post"] <= push["rows_per_post"], (r, push)
    assert r["statements_per_read"] >= 1 and r["shards_per_read"] >= 1, r
# Pulled authors per read: none in push; in hybrid never more as the list grows (a longer
# list holds more of each author's fans), and fewer from the shortest to the longest.
assert push["pulled_per_read"] == 0 and push["pulled_p90"] == 0, push
pulled = [r["pulled_per_read"] for r in sweep["sweep"][:3]]
assert pulled == sorted(pulled, reverse=True) and pulled[0] > pulled[-1], pulled
for r in sweep["sweep"][:3]:
    assert r["pulled_p50"] <= r["pulled_p90"], r

svg = ET.parse(f"{work}/sweep.svg").getroot()
ns = {"s": "http://www.w3.org/2000/svg"}
bars = [r for r in svg.iter("{http://www.w3.org/2000/svg}rect") if r.find("s:title", ns) is not None]
assert len(bars) == 4 * (len(lines[0]) - 1), (len(bars), lines[0])
print("sim sweep: ok, deliveries per post", deliveries, "pulled per read", pulled)
PY
