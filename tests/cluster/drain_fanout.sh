#!/usr/bin/env bash
# One drain through the broker empties the outboxes of every node (issue 13): --async likes
# and posts leave jobs pending on shards of both nodes, whose own drain passes are an hour
# apart here; one `weibo-worker --once` through the broker applies them all, reports their
# sum, and leaves nothing pending on any shard.
set -u
WEIBO_BIN=$(cd "${1:?usage: drain_fanout.sh BIN_DIR}" && pwd)
. "$(dirname "$0")/lib.sh"
WORK=$(mktemp -d "${TMPDIR:-/tmp}/weibo-cluster.XXXXXX")
data=$WORK/shards
PIDS=()
teardown() {
  local p
  for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null; done
  for p in "${PIDS[@]}"; do wait "$p" 2>/dev/null; done
  cluster_teardown
}
trap teardown EXIT

"$WEIBO_BIN/weibo-init" --data "$data" --shards 4 --feed push >/dev/null || fail "init"
# Started by hand rather than by weibo-cluster up: the nodes' background drain waits an hour.
port=$(free_base_port 3)
broker=tcp://127.0.0.1:$port backend=tcp://127.0.0.1:$((port + 1))
"$WEIBO_BIN/weibod" --broker --data "$data" --bind "$broker" --backend "$backend" \
  --layout node0=0,2 --layout node1=1,3 >/dev/null 2>"$WORK/broker.log" &
PIDS+=($!)
for i in 0 1; do
  "$WEIBO_BIN/weibod" --data "$data" --bind "tcp://127.0.0.1:$((port + 2 + i))" \
    --shards "$i,$((i + 2))" --join "$backend" --node "node$i" --rate 0 \
    --drain-interval 3600000 >/dev/null 2>"$WORK/node$i.log" &
  PIDS+=($!)
done
w() { "$WEIBO_BIN/weibo-$1" --connect "$broker" --timeout 5000 "${@:2}"; }
# Users 1..4 live on shard u mod 4: 2 and 4 on node0's shards, 1 and 3 on node1's. Each
# user add is retried until the node of its name's shard has joined.
for i in 1 2 3 4; do
  for _ in $(seq 100); do w user add "u$i" >/dev/null 2>&1 && break; sleep 0.1; done
done
# A user's user_info row is written by a job on shard(id): added while that shard's node
# was still joining, the job waits for a drain pass (an hour here), so drain until all
# four show.
for _ in $(seq 100); do
  shown=0
  for i in 1 2 3 4; do w user show "$i" >/dev/null 2>&1 && shown=$((shown + 1)); done
  [ "$shown" = 4 ] && break
  w worker --once >/dev/null 2>&1
  sleep 0.1
done
[ "$shown" = 4 ] || fail "the cluster did not come up: $(cat "$WORK"/*.log)"
w follow -u 1 2 >/dev/null || fail "follow 1 -> 2"
w follow -u 2 1 >/dev/null || fail "follow 2 -> 1"
m2=$(w post -u 2 "on node0" --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["id"])')
m1=$(w post -u 1 "on node1" --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["id"])')
[ -n "$m1" ] && [ -n "$m2" ] || fail "posts"

pending() {  # the pending jobs of shard $1's outbox
  sqlite3 -readonly "$data/shard-0$1.db" "SELECT count(*) FROM outbox WHERE state = 0"
}
w like -u 3 "$m2" --async >/dev/null || fail "like of M2"
w like -u 4 "$m1" --async >/dev/null || fail "like of M1"
w post -u 2 "fan-out from node0" --async >/dev/null || fail "async post by 2"
w post -u 1 "fan-out from node1" --async >/dev/null || fail "async post by 1"
before=0
for s in 0 1 2 3; do before=$((before + $(pending $s))); done
[ "$(pending 1)" -gt 0 ] && [ "$(pending 2)" -gt 0 ] ||
  fail "no jobs pending on both nodes' shards: shard 1 $(pending 1), shard 2 $(pending 2)"

out=$(w worker --once --json 2>"$WORK/err") || fail "drain through the broker: $(cat "$WORK/err")"
[ -s "$WORK/err" ] && fail "the drain warned: $(cat "$WORK/err")"
python3 - "$out" "$before" <<'PY' || fail "drain reply $out, $before pending before"
import json, sys
r = json.loads(sys.argv[1])
assert r["pending"] == 0, r
# Each pending job is applied once, and a post's fan-out adds the delivery it creates.
assert r["applied"] >= int(sys.argv[2]), r
PY
for s in 0 1 2 3; do
  [ "$(pending $s)" = 0 ] || fail "shard $s still has $(pending $s) pending job(s) after the drain"
done
for m in "$m1" "$m2"; do
  likes=$(w count "$m" --json | python3 -c 'import json,sys; print(json.load(sys.stdin)[0]["counts"]["likes"])')
  [ "$likes" = 1 ] || fail "message $m has like_count $likes, want 1"
done
n=$(w timeline -u 1 --json | python3 -c 'import json,sys; print(len(json.load(sys.stdin)))')
[ "$n" = 4 ] || fail "user 1's timeline has $n items, want 4"
echo "drain through the broker: $before pending before, reply $out"
