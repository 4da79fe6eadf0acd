#!/usr/bin/env bash
# weibod's hot counters (weibod(1) --counter-cache; weibo(7), HOT AND COLD COUNTERS): count
# through the daemon is served from memory once read, and stays exact when the counters move
# — by the daemon's own likes, and by embedded commands of other processes on the same data
# directory (another connection's commit changes PRAGMA data_version: the shard's hot copies
# are dropped). With --counter-cache 0 every read goes to the shard and gives the same.
# usage: hot_counters.sh BIN_DIR
set -u
WEIBO_BIN=$1
. "$(dirname "$0")/lib.sh"
daemon_workdir hot
export WEIBO_DATA=$work/shards
DAEMON_LOG=$work/weibod.log

"$WEIBO_BIN/weibo-init" --shards 4 >/dev/null || fail "weibo-init"
for name in alice bob carol dave; do "$WEIBO_BIN/weibo-user" add $name >/dev/null || fail "user add"; done
m=$("$WEIBO_BIN/weibo-post" -u @alice "hot" --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["id"])')

# likes_of ENDPOINT_OPTION...: the message's like_count as count prints it
likes_of() {
  "$WEIBO_BIN/weibo-count" "$@" "$m" --json |
    python3 -c 'import json,sys; print(json.load(sys.stdin)[0]["counts"]["likes"])'
}
for cache in 100000 0; do
  start_daemon "$WEIBO_DATA" --counter-cache "$cache"
  c=(--connect "$ENDPOINT")
  base=$(likes_of "${c[@]}") || fail "count --connect"
  [ "$(likes_of "${c[@]}")" = "$base" ] || fail "a second read differs"
  # An embedded like: another process, another connection.
  "$WEIBO_BIN/weibo-like" -u @bob "$m" >/dev/null || fail "embedded like"
  [ "$(likes_of "${c[@]}")" = $((base + 1)) ] || fail "cache $cache: the embedded like is not seen"
  # One through the daemon, then an embedded unlike of it.
  "$WEIBO_BIN/weibo-like" "${c[@]}" -u @carol "$m" >/dev/null || fail "like --connect"
  [ "$(likes_of "${c[@]}")" = $((base + 2)) ] || fail "cache $cache: the daemon's like is not seen"
  "$WEIBO_BIN/weibo-unlike" -u @carol "$m" >/dev/null || fail "embedded unlike"
  [ "$(likes_of "${c[@]}")" = $((base + 1)) ] || fail "cache $cache: the embedded unlike is not seen"
  # --async: the delta stays pending in the outbox, which every read adds.
  "$WEIBO_BIN/weibo-like" --async -u @dave "$m" >/dev/null || fail "embedded like --async"
  [ "$(likes_of "${c[@]}")" = $((base + 2)) ] || fail "cache $cache: a pending delta is not seen"
  [ "$(likes_of)" = $((base + 2)) ] || fail "embedded count disagrees"
  "$WEIBO_BIN/weibo-unlike" -u @dave "$m" >/dev/null || fail "embedded unlike of dave"
  "$WEIBO_BIN/weibo-unlike" -u @bob "$m" >/dev/null || fail "embedded unlike of bob"
  [ "$(likes_of "${c[@]}")" = "$base" ] || fail "cache $cache: the unlikes are not seen"
  stop_daemon || fail "weibod exited $?"
  echo "ok   --counter-cache $cache: count --connect follows the daemon's and embedded likes"
done
"$WEIBO_BIN/weibo-fsck" >"$work/fsck" || fail "fsck: $(cat "$work/fsck")"
