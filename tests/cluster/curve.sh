#!/usr/bin/env bash
# The cluster's node links under CURVE (issue 12, weibo-cluster(1) NODE LINKS): weibo-cluster
# up makes the two key pairs 0600 in the data directory; a process that joins the broker's
# backend without the node key — here a weibod node of another data directory, which has
# none — is never admitted: it does not register, takes no shard, and the cluster serves on.
# usage: curve.sh BIN_DIR
set -u
WEIBO_BIN=$1
. "$(dirname "$0")/lib.sh"
WORK=$(mktemp -d "${TMPDIR:-/tmp}/weibo-cluster-curve.XXXXXX")
data=$WORK/shards
fake=$WORK/fake
W=$WEIBO_BIN
unset WEIBO_CONNECT WEIBO_TOKEN WEIBO_USER WEIBO_NOW WEIBO_DATA

"$W/weibo-init" --data "$data" --shards 4 >/dev/null || fail "weibo-init"
"$W/weibo-init" --data "$fake" --shards 4 >/dev/null || fail "weibo-init of the fake"
cluster_up "$data" 2
for f in curve-broker.key curve-node.key; do
  [ "$(stat -c %a "$data/$f")" = 600 ] || fail "$f is $(stat -c %a "$data/$f"), not 600"
  [ "$(wc -l <"$data/$f")" = 2 ] || fail "$f is not two lines"
done
echo "ok   curve-broker.key and curve-node.key are 0600"
backend=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["broker"]["backend"])' \
  "$data/weibo-cluster.json") || fail "no state file"
[ -n "$backend" ] || fail "no backend endpoint in the cluster's state"

pids=()
# The intruder claims shard 0 under a name of its own, and then under node0's.
for name in intruder node0; do
  "$W/weibod" --data "$fake" --bind 'tcp://127.0.0.1:*' --shards 0 --join "$backend" \
    --node "$name" >"$WORK/$name.out" 2>"$WORK/$name.log" </dev/null &
  pids+=($!)
done
sleep 3
kill "${pids[@]}" 2>/dev/null
wait "${pids[@]}" 2>/dev/null
if grep -q "node intruder" "$data/broker.log"; then fail "the intruder registered: $(cat "$data/broker.log")"; fi
[ "$(grep -c 'node node0 is alive' "$data/broker.log")" = 1 ] ||
  fail "node0 registered again: $(cat "$data/broker.log")"
echo "ok   a node without the key is refused (not in broker.log)"
export WEIBO_CONNECT=$BROKER
"$W/weibo-user" add alice >/dev/null || fail "user add through the broker"
"$W/weibo-user" add bob >/dev/null || fail "user add through the broker"
"$W/weibo-follow" -u @alice @bob >/dev/null || fail "a follow across nodes"
"$W/weibo-cluster" --data "$data" status >/dev/null || fail "a node is down"
echo "ok   the cluster serves on, jobs crossing nodes"
