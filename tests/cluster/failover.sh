#!/usr/bin/env bash
# kill -9 one node of a 3-node push cluster: requests for its shards fail with unavailable
# (exit 5) at once while the other nodes keep serving; posts whose fans live on its shards
# keep their jobs pending; after `weibo-cluster up` restarts it the cluster converges by
# itself (no drain is asked for), and after `down` the embedded weibo-fsck finds nothing
# and every follower has every post.
set -u
WEIBO_BIN=$(cd "${1:?usage: failover.sh BIN_DIR}" && pwd)
. "$(dirname "$0")/lib.sh"
WORK=$(mktemp -d "${TMPDIR:-/tmp}/weibo-cluster.XXXXXX")
data=$WORK/shards
w() { "$WEIBO_BIN/weibo-$1" --connect "$BROKER" --timeout 5000 "${@:2}"; }
"$WEIBO_BIN/weibo-init" --data "$data" --shards 8 --feed push >/dev/null || fail "init"
cluster_up "$data" 3
# 8 shards on 3 nodes: node0 0,3,6  node1 1,4,7  node2 2,5. User u lives on shard u mod 8.
for i in $(seq 8); do w user add "u$i" >/dev/null || fail "user add u$i"; done
for fan in 1 2 4 6; do w follow -u "$fan" 3 >/dev/null || fail "follow $fan -> 3"; done
w post -u 3 "before the crash" >/dev/null || fail "post before"

p1=$(node_pid "$data" node1)
kill -9 "$p1"
for _ in $(seq 100); do kill -0 "$p1" 2>/dev/null || break; sleep 0.05; done

start=$(date +%s%N)
w timeline -u 1 >/dev/null 2>"$WORK/err"
rc=$?
ms=$((($(date +%s%N) - start) / 1000000))
[ $rc -eq 5 ] || fail "timeline of a user on the dead node: exit $rc, want 5"
grep -q 'unavailable' "$WORK/err" || fail "no unavailable error: $(cat "$WORK/err")"
[ $ms -lt 4000 ] || fail "unavailable took $ms ms"
w post -u 4 "on a dead shard" >/dev/null 2>&1
[ $? -eq 5 ] || fail "post by a user on the dead node should exit 5"
# The others keep serving, and posts to fans on the dead node's shards stay pending.
w timeline -u 2 >/dev/null || fail "timeline on a live node"
w post -u 3 "during the crash" >/dev/null || fail "post during the crash"
w post -u 3 "still during the crash" >/dev/null || fail "second post during the crash"
pending=$(w worker --once --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["pending"])') ||
  fail "drain via the broker"
[ "$pending" -gt 0 ] || fail "no job is pending for the dead node's shards"
echo "dead node: unavailable after $ms ms, $pending job(s) pending"

"$WEIBO_BIN/weibo-cluster" --data "$data" up >/dev/null || fail "up after the crash"
# Converge without asking: the nodes drain in the background. Watch with fsck-free reads.
for _ in $(seq 100); do
  n=$(w timeline -u 1 --json | python3 -c 'import json,sys; print(sum(m["user_id"]=="3" for m in json.load(sys.stdin)))')
  [ "$n" = 3 ] && break
  sleep 0.1
done
[ "$n" = 3 ] || fail "user 1 has $n of user 3's 3 posts after the restart"
w post -u 4 "after the restart" >/dev/null || fail "post on the restarted node"
"$WEIBO_BIN/weibo-cluster" --data "$data" down || fail "down"

"$WEIBO_BIN/weibo-fsck" --data "$data" >"$WORK/fsck" 2>&1 || { cat "$WORK/fsck" >&2; fail "fsck after convergence"; }
for fan in 1 2 4 6; do
  n=$("$WEIBO_BIN/weibo-timeline" --data "$data" -u "$fan" --json |
    python3 -c 'import json,sys; print(sum(m["user_id"]=="3" for m in json.load(sys.stdin)))')
  [ "$n" = 3 ] || fail "follower $fan has $n of 3 posts"
done
echo "cluster failover: ok"
