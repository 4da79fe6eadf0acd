#!/bin/bash
# scripts/include-graph --check on planted trees: a clean one passes; an include going up,
# a public header of an upper layer included below, and a directory missing from LAYERS
# each fail, naming the offending include.
set -u
python=$1 script=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0

plant() {  # a fresh tree: storage below jobs, weibo/request.h belonging to jobs
  rm -rf "$tmp/libweibo"
  mkdir -p "$tmp/libweibo/storage" "$tmp/libweibo/jobs" "$tmp/libweibo/include/weibo"
  printf 'storage weibo/status.h\njobs weibo/request.h\n' >"$tmp/libweibo/LAYERS"
  printf '#include "weibo/status.h"\n' >"$tmp/libweibo/storage/shard.cc"
  printf '#include "storage/shard.h"\n#include "weibo/request.h"\n' >"$tmp/libweibo/jobs/jobs.cc"
  : >"$tmp/libweibo/storage/shard.h"
  : >"$tmp/libweibo/include/weibo/status.h"
  printf '#include "weibo/status.h"\n' >"$tmp/libweibo/include/weibo/request.h"
}

expect() {  # expect STATUS MESSAGE-PATTERN WHAT
  local out status
  out=$("$python" "$script" --check --root "$tmp" 2>&1 >/dev/null)
  status=$?
  if [ "$status" != "$1" ] || ! grep -q -- "$2" <<<"$out"; then
    echo "FAIL: $3: exit $status (want $1), stderr: $out"
    failures=$((failures + 1))
  fi
}

plant
expect 0 '' "a clean tree"
plant
printf '#include "jobs/jobs.h"\n' >>"$tmp/libweibo/storage/shard.cc"
expect 1 'storage/shard.cc:2: #include "jobs/jobs.h": storage -> jobs goes up' "an include up"
plant
printf '#include "weibo/request.h"\n' >>"$tmp/libweibo/storage/shard.h"
expect 1 'storage -> jobs goes up' "an upper layer's public header"
plant
printf '#include "storage/shard.h"\n' >>"$tmp/libweibo/include/weibo/status.h"
printf '#include "weibo/status.h"\n' >>"$tmp/libweibo/jobs/jobs.cc"
expect 0 '' "a public header including its own layer"
plant
mkdir "$tmp/libweibo/daemon"
printf '#include "jobs/jobs.h"\n' >"$tmp/libweibo/daemon/loop.cc"
expect 1 'directory daemon/ is not in libweibo/LAYERS' "an unlisted directory"
plant
printf 'storage weibo/status.h\njobs weibo/request.h\nstorage\n' >"$tmp/libweibo/LAYERS"
printf '#include "jobs/jobs.h"\n' >>"$tmp/libweibo/storage/shard.cc"
expect 1 'cycle: ' "a cycle"
exit $((failures > 0))
