#!/usr/bin/env bash
# PROCS concurrent processes x WRITES writes (posts, follows, comments) through the broker
# of a 3-node cluster: no caller sees an error, every write is there, fsck is clean.
#   writers.sh BIN_DIR CLUSTER_WRITERS [PROCS] [WRITES]
set -u
WEIBO_BIN=$(cd "${1:?usage: writers.sh BIN_DIR CLUSTER_WRITERS [PROCS] [WRITES]}" && pwd)
writers=${2:?}
procs=${3:-8} writes=${4:-1000} nodes=${NODES:-3}
. "$(dirname "$0")/lib.sh"
WORK=$(mktemp -d "${TMPDIR:-/tmp}/weibo-cluster.XXXXXX")
data=$WORK/shards
"$WEIBO_BIN/weibo-init" --data "$data" >/dev/null || fail "init"
cluster_up "$data" "$nodes"
"$writers" "$BROKER" "$procs" "$writes" || fail "cluster_writers"
"$WEIBO_BIN/weibo-cluster" --data "$data" down || fail "down"
"$WEIBO_BIN/weibo-fsck" --data "$data" >"$WORK/fsck" 2>&1 || { cat "$WORK/fsck" >&2; fail "fsck"; }
echo "cluster writers: ok ($procs x $writes)"
