#!/usr/bin/env bash
# weibo-cluster up / status / down, and `up` restarting only the nodes that are down.
set -u
WEIBO_BIN=$(cd "${1:?usage: lifecycle.sh BIN_DIR}" && pwd)
. "$(dirname "$0")/lib.sh"
WORK=$(mktemp -d "${TMPDIR:-/tmp}/weibo-cluster.XXXXXX")
data=$WORK/shards
"$WEIBO_BIN/weibo-init" --data "$data" --shards 8 >/dev/null || fail "init"

cluster_up "$data" 3
case "$BROKER" in tcp://127.0.0.1:*) ;; *) fail "up's last line is not the broker: $BROKER" ;; esac
status=$("$WEIBO_BIN/weibo-cluster" --data "$data" status --json) || fail "status exit $?"
python3 - "$status" <<'PY' || fail "status --json: $status"
import json, sys
s = json.loads(sys.argv[1])
assert s["broker"].startswith("tcp://"), s
nodes = s["nodes"]
assert [n["node"] for n in nodes] == ["node0", "node1", "node2"], nodes
assert all(n["alive"] for n in nodes), nodes
assert [n["shards"] for n in nodes] == [[0, 3, 6], [1, 4, 7], [2, 5]], nodes
assert all(isinstance(n["pid"], int) and n["endpoint"].startswith("tcp://") for n in nodes)
PY
"$WEIBO_BIN/weibo-user" --connect "$BROKER" add alice >/dev/null || fail "user add via broker"

# up on a running cluster starts nothing.
p0=$(node_pid "$data" node0) p1=$(node_pid "$data" node1) p2=$(node_pid "$data" node2)
"$WEIBO_BIN/weibo-cluster" --data "$data" up >/dev/null || fail "second up"
[ "$(node_pid "$data" node1)" = "$p1" ] || fail "up restarted a running node"

# A killed node shows as down (exit 5); up restarts it and only it.
kill -9 "$p1"
for _ in $(seq 100); do kill -0 "$p1" 2>/dev/null || break; sleep 0.05; done
"$WEIBO_BIN/weibo-cluster" --data "$data" status >/dev/null
rc=$?
[ $rc -eq 5 ] || fail "status with a dead node: exit $rc, want 5"
"$WEIBO_BIN/weibo-cluster" --data "$data" status --json | grep -q '"node":"node1","endpoint":"[^"]*","pid":'"$p1"',"alive":false' ||
  fail "status does not show node1 down"
out=$("$WEIBO_BIN/weibo-cluster" --data "$data" up) || fail "up after kill"
[ "$(printf '%s\n' "$out" | tail -n 1)" = "$BROKER" ] || fail "up's last line changed"
[ "$(node_pid "$data" node0)" = "$p0" ] || fail "up restarted node0"
[ "$(node_pid "$data" node2)" = "$p2" ] || fail "up restarted node2"
[ "$(node_pid "$data" node1)" != "$p1" ] || fail "up did not restart node1"
"$WEIBO_BIN/weibo-cluster" --data "$data" status >/dev/null || fail "status after restart"

# down stops everything and forgets the cluster.
pids="$(node_pid "$data" node0) $(node_pid "$data" node1) $(node_pid "$data" node2)"
"$WEIBO_BIN/weibo-cluster" --data "$data" down || fail "down"
# (a daemon's parent is init, which may reap it a moment after it exits)
running() { [ -n "$(ps -o stat= -p "$1" 2>/dev/null | grep -v Z)" ]; }
for p in $pids; do
  for _ in $(seq 50); do running "$p" || break; sleep 0.1; done
  running "$p" && fail "pid $p still runs after down"
done
"$WEIBO_BIN/weibo-cluster" --data "$data" status >/dev/null 2>&1
[ $? -eq 1 ] || fail "status after down should exit 1"

# A daemon that cannot start says why in up's error, quoting only this start's log lines:
# a weibod next to weibo-cluster that cannot be executed, and an old line in broker.log.
mkdir "$WORK/bin"
cp "$WEIBO_BIN/weibo-cluster" "$WORK/bin/"
printf 'not a program\n' > "$WORK/bin/weibod"
echo "weibod: an earlier broker's last line" >> "$data/broker.log"
out=$("$WORK/bin/weibo-cluster" --data "$data" up --nodes 2 --base-port "$(free_base_port 2)" 2>&1)
rc=$?
[ $rc -eq 5 ] || fail "up with a weibod that cannot run: exit $rc, want 5: $out"
case "$out" in
  *"the broker exited: weibo-cluster: cannot execute $WORK/bin/weibod: Permission denied (see broker.log)"*) ;;
  *) fail "up does not say why the broker did not start: $out" ;;
esac
"$WEIBO_BIN/weibo-cluster" --data "$data" down || fail "down after a failed up"
echo "cluster lifecycle: ok"
