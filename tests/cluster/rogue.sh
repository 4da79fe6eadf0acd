#!/usr/bin/env bash
# Issue 11, defect 5: a process on the broker's node port cannot take shards over. On a
# 2-node cluster of 4 shards (node0 0,2  node1 1,3):
#  - a fake node "evil" claiming every shard is refused, and once it goes quiet every
#    request is still served and `weibo-cluster status` is right (exit 0);
#  - a fake node under a live node's name is refused (retry: a restart of that node);
#  - a real weibod started as an extra node for owned shards logs the refusal and exits 5;
#  - with node1 dead, "evil" claiming node1's shards is refused (the layout keeps them
#    node1's): status reports node1 down (exit 5), its shards answer unavailable, and
#    `up` brings node1 back;
#  - a dead broker makes status say so and exit 5.
# usage: rogue.sh BIN_DIR ROGUE_NODE
set -u
WEIBO_BIN=$(cd "${1:?usage: rogue.sh BIN_DIR ROGUE_NODE}" && pwd)
rogue=$2
. "$(dirname "$0")/lib.sh"
WORK=$(mktemp -d "${TMPDIR:-/tmp}/weibo-rogue.XXXXXX")
data=$WORK/shards
w() { "$WEIBO_BIN/weibo-$1" --connect "$BROKER" --timeout 3000 "${@:2}"; }
status() { "$WEIBO_BIN/weibo-cluster" --data "$data" status; }
"$WEIBO_BIN/weibo-init" --data "$data" --shards 4 >/dev/null || fail "init"
cluster_up "$data" 2
backend=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["broker"]["backend"])' \
  "$data/weibo-cluster.json") || fail "no backend in weibo-cluster.json"
for i in 1 2 3 4; do w user add "u$i" >/dev/null || fail "user add u$i"; done
# The rogue holds the cluster's CURVE node key: the broker's routing itself must hold.
export ROGUE_CURVE_DIR=$data
serving() {  # every shard answers: users 1..4 live on shards 1, 2, 3, 0
  local u
  for u in 1 2 3 4; do w user show "$u" >/dev/null || fail "$1: user $u's shard does not answer"; done
}

out=$("$rogue" "$backend" evil 4 0,1,2,3 1000) || fail "evil's claim of owned shards was not refused"
case $out in *"refused: shard "*) ;; *) fail "evil: $out" ;; esac
echo "ok   evil refused: $out"
sleep 2  # evil is quiet past the broker's expiry (1.5 s)
serving "after evil went quiet"
status >"$WORK/status" || { cat "$WORK/status" >&2; fail "status exit $? after evil"; }
grep -q evil "$WORK/status" && fail "status lists evil: $(cat "$WORK/status")"
echo "ok   every shard served and status clean after evil went quiet"

out=$("$rogue" "$backend" node0 4 0,2 600) || fail "a second node0 was not refused"
case $out in *"(retry)"*) ;; *) fail "second node0: $out" ;; esac
sleep 2
serving "after a second node0"
echo "ok   a second process as node0 refused: $out"

port=$(free_base_port 0)
"$WEIBO_BIN/weibod" --data "$data" --bind "tcp://127.0.0.1:$port" --shards 1 --join "$backend" \
  --node extra >"$WORK/extra.out" 2>"$WORK/extra.err" </dev/null &
extra=$!
for _ in $(seq 100); do kill -0 "$extra" 2>/dev/null || break; sleep 0.05; done
kill -0 "$extra" 2>/dev/null && { kill "$extra"; fail "weibod --node extra still runs"; }
wait "$extra"
rc=$?
[ $rc -eq 5 ] || fail "weibod --node extra exited $rc, want 5: $(cat "$WORK/extra.err")"
grep -q "refused node extra: shard 1 belongs to node1" "$WORK/extra.err" ||
  fail "weibod --node extra: $(cat "$WORK/extra.err")"
serving "after weibod --node extra"
echo "ok   weibod --node extra exits 5: $(tail -n 1 "$WORK/extra.err")"

p1=$(node_pid "$data" node1)
kill -9 "$p1"
for _ in $(seq 100); do kill -0 "$p1" 2>/dev/null || break; sleep 0.05; done
sleep 2  # past the expiry: the broker has node1 down
out=$("$rogue" "$backend" evil 4 1,3 1000) || fail "evil's claim of a dead node's shards was not refused"
case $out in *"belongs to node1"*) ;; *) fail "evil on node1's shards: $out" ;; esac
w user show 1 >/dev/null 2>"$WORK/err"
rc=$?
[ $rc -eq 5 ] && grep -q "node1" "$WORK/err" || fail "user 1 on dead node1: exit $rc, $(cat "$WORK/err")"
status >"$WORK/status"
rc=$?
[ $rc -eq 5 ] && grep -q "^node1 .* down" "$WORK/status" ||
  fail "status with node1 dead: exit $rc, $(cat "$WORK/status")"
"$WEIBO_BIN/weibo-cluster" --data "$data" up >/dev/null || fail "up after node1 died"
serving "after up"
status >/dev/null || fail "status after up: exit $?"
echo "ok   node1's shards stay node1's while it is dead; up brings it back"

pb=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["broker"]["pid"])' "$data/weibo-cluster.json")
kill -9 "$pb"
for _ in $(seq 100); do kill -0 "$pb" 2>/dev/null || break; sleep 0.05; done
status >"$WORK/status"
rc=$?
[ $rc -eq 5 ] && grep -q "^broker .* down" "$WORK/status" ||
  fail "status with the broker dead: exit $rc, $(cat "$WORK/status")"
echo "ok   a dead broker: status exit 5"
echo "cluster rogue: ok"
