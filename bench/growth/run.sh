#!/usr/bin/env bash
# The growth measurement of issue 3: home-timeline latency at 100 000 and at 1 000 000 posts
# on the same graph of 100 000 users and about 5 000 000 follows (push mode).
#
#   bench/growth/run.sh WORKDIR [USERS FOLLOWS SMALL LARGE READS ROUNDS]
#
# Builds cluster WORKDIR/small (SMALL posts) with bench/growth/load.py, copies it to
# WORKDIR/large and adds LARGE - SMALL posts, checks both with weibo-fsck, then replays the
# same trace of READS home-timeline reads (uniform random readers, count 20) against each,
# through weibod and `weibo-bench replay --connect`, alternating small and large ROUNDS
# times so both see the same machine. Prints each round's p50/p99/p999 and the ratio of the
# medians of the p99s. The clusters stay in WORKDIR (several GiB for the default sizes).
# Needs the programs of a build on PATH or in WEIBO_BIN (default ./build/bin).
set -euo pipefail
work=${1:?usage: run.sh WORKDIR [USERS FOLLOWS SMALL LARGE READS ROUNDS]}
users=${2:-100000} follows=${3:-50} small=${4:-100000} large=${5:-1000000}
reads=${6:-5000} rounds=${7:-3}
here=$(cd "$(dirname "$0")" && pwd)
bin=${WEIBO_BIN:-$here/../../build/bin}
port=${WEIBO_GROWTH_PORT:-5597}
mkdir -p "$work"

if [ ! -f "$work/small/.loaded" ]; then
  rm -rf "$work/small"
  "$bin/weibo-init" --data "$work/small" --feed push --now 2026-01-01T00:00:00Z >/dev/null
  python3 "$here/load.py" "$work/small" users --users "$users" --follows "$follows"
  python3 "$here/load.py" "$work/small" posts --posts "$small"
  "$bin/weibo-fsck" --data "$work/small" | tail -1
  touch "$work/small/.loaded"
fi
if [ ! -f "$work/large/.loaded" ]; then
  rm -rf "$work/large"
  cp -r "$work/small" "$work/large"
  rm -f "$work/large/.loaded"
  python3 "$here/load.py" "$work/large" posts --posts $((large - small)) --seed 2
  "$bin/weibo-fsck" --data "$work/large" | tail -1
  touch "$work/large/.loaded"
fi
du -sh "$work/small" "$work/large"

python3 - "$users" "$reads" >"$work/reads.jsonl" <<'EOF'
import json, random, sys
users, reads = int(sys.argv[1]), int(sys.argv[2])
rng = random.Random(42)
for _ in range(reads):
    print(json.dumps({"op": "timeline", "args": {"user": str(rng.randint(1, users)), "count": 20}}))
EOF

measure() {  # cluster round -> one line: name round p50 p99 p999 reads/s
  local dir=$1 pid
  "$bin/weibod" --data "$dir" --bind "tcp://127.0.0.1:$port" --rate 0 --allow-clock >"$work/weibod.log" 2>&1 &
  pid=$!
  sleep 1
  "$bin/weibo-bench" replay --connect "tcp://127.0.0.1:$port" --no-baselines \
    --json-out "$work/result.json" "$work/reads.jsonl" >/dev/null
  kill -TERM "$pid"
  wait "$pid" || true
  python3 - "$work/result.json" "$(basename "$dir")" "$2" <<'EOF'
import json, sys
r = json.load(open(sys.argv[1]))
m = r["modes"][0]
t = m["timeline_latency_ms"]
if m["errors"]:
    sys.exit(f"{m['errors']} timeline reads failed")
print(sys.argv[2], sys.argv[3], round(t["p50"], 3), round(t["p99"], 3), round(t["p999"], 3),
      round(m["timeline_reads_per_s"]))
EOF
}

echo "cluster round p50_ms p99_ms p999_ms reads_per_s" | tee "$work/growth.txt"
for round in $(seq 1 "$rounds"); do
  measure "$work/small" "$round" | tee -a "$work/growth.txt"
  measure "$work/large" "$round" | tee -a "$work/growth.txt"
done
python3 - "$work/growth.txt" <<'EOF'
import statistics, sys
rows = [l.split() for l in open(sys.argv[1]).read().splitlines()[1:]]
p99 = {n: statistics.median(float(r[3]) for r in rows if r[0] == n) for n in ("small", "large")}
print(f"median p99: small {p99['small']:.3f} ms, large {p99['large']:.3f} ms, "
      f"ratio {p99['large'] / p99['small']:.2f} (target <= 1.5)")
EOF
