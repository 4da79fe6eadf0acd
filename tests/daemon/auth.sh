#!/usr/bin/env bash
# weibod --auth (issue 12, weibod(1) AUTHENTICATION): every op through the daemon with a
# token in each state — valid, wrong scope, another user's, expired, revoked, unknown,
# missing — refused with its code and exit status, and nothing changed by a refusal; no
# token in any file of the data directory or in the daemon's log; without --auth, weibod
# refuses to bind beyond loopback. A revocation reaches a real subscriber of --events.
# usage: auth.sh BIN_DIR DAEMON_PROBE
set -u
WEIBO_BIN=$1
PROBE=$2
. "$(dirname "$0")/lib.sh"
daemon_workdir auth
data=$work/shards
W=$WEIBO_BIN
export WEIBO_DATA=$data
unset WEIBO_CONNECT WEIBO_TOKEN WEIBO_USER WEIBO_NOW

expect 2 "^weibod: error: invalid_argument: weibod without --auth binds only a loopback address" \
  "$W/weibod" --data "$data" --bind 'tcp://0.0.0.0:*'
expect 2 "without tokens, anyone who reaches it can act as any user" \
  "$W/weibod" --data "$data" --bind 'tcp://*:*'

"$W/weibo-init" --shards 4 >/dev/null || fail "weibo-init"
"$W/weibo-user" add alice >/dev/null && "$W/weibo-user" add bob >/dev/null || fail "user add"
key=$("$W/weibo-app" register syncer | sed -n 's/^app @syncer key \([^ ]*\) .*/\1/p')
[ ${#key} = 20 ] || fail "no app key"
issue() { "$W/weibo-token" issue --app "$key" "$@" | sed -n 's/^token //p'; }
valid=$(issue -u @alice)
read_only=$(issue -u @alice --scope read)
bobs=$(issue -u @bob)
admin=$(issue -u @bob --scope admin)
revoked=$(issue -u @alice)
"$W/weibo-token" revoke "$revoked" >/dev/null || fail "revoke"
# Issued in 2021 for one second: expired by the daemon's own clock.
expired=$(WEIBO_NOW=2021-01-01T00:00:00Z issue -u @alice --ttl 1s)
unknown=$(printf '%s' "$valid" | tr 'a-y' 'b-z')
for t in valid read_only bobs admin revoked expired; do
  [ ${#t} -gt 0 ] && [ "$(printf '%s' "${!t}" | wc -c)" = 40 ] || fail "token $t not issued"
done
# Spares for the --events check below: revoked one by one until the subscriber hears one.
spares=()
for _ in 1 2 3 4 5 6; do spares+=("$(issue -u @bob)"); done
msg=$("$W/weibo-post" -u @alice "before the daemon" | sed -n '1s/^#\([0-9]*\) .*/\1/p')

DAEMON_LOG=$work/weibod.log
start_daemon "$data" --auth --rate 0 --events "ipc://$work/events.ipc"
export WEIBO_CONNECT=$ENDPOINT

# Every row of every shard: what a refusal must leave as it was.
dump() { for f in "$data"/shard-*.db; do sqlite3 -readonly "$f" .dump; done | md5sum; }
before=$(dump)
# refused RC CODE TOKEN COMMAND...: COMMAND through the daemon with TOKEN ("" for none).
refused() {
  local rc=$1 code=$2 token=$3
  shift 3
  if [ -n "$token" ]; then
    expect "$rc" ": error: $code: " "$@" --token "$token"
  else
    expect "$rc" ": error: $code: " "$@"
  fi
}
writes=("$W/weibo-post -u @alice hello"
        "$W/weibo-follow -u @alice @bob"
        "$W/weibo-delete -u @alice $msg"
        "$W/weibo-comment -u @alice $msg nice"
        "$W/weibo-repost -u @alice $msg")
reads=("$W/weibo-timeline -u @alice"
       "$W/weibo-show $msg"
       "$W/weibo-user show @alice"
       "$W/weibo-user list"
       "$W/weibo-comments $msg"
       "$W/weibo-count $msg"
       "$W/weibo-token list -u @alice")
admins=("$W/weibo-fsck"
        "$W/weibo-user add carol"
        "$W/weibo-app list"
        "$W/weibo-token issue --app $key -u @alice")
for cmd in "${writes[@]}" "${reads[@]}" "${admins[@]}"; do
  # shellcheck disable=SC2086  # each command is a list of words
  {
    refused 3 token_missing "" $cmd
    refused 3 token_invalid "$unknown" $cmd
    refused 3 token_invalid "not-a-token" $cmd
    refused 3 token_expired "$expired" $cmd
    refused 3 token_revoked "$revoked" $cmd
  }
done
for cmd in "${writes[@]}"; do
  # shellcheck disable=SC2086
  {
    refused 1 forbidden "$read_only" $cmd
    refused 1 forbidden "$bobs" $cmd
    refused 1 forbidden "$admin" $cmd  # admin acts for no other user
  }
done
refused 1 forbidden "$bobs" "$W/weibo-timeline" -u @alice
for cmd in "${admins[@]}"; do
  # shellcheck disable=SC2086
  refused 1 forbidden "$valid" $cmd
done
[ "$(dump)" = "$before" ] || fail "a refused request changed the shards"
echo "ok   the shards are as they were after every refusal"

# granted COMMAND...: exits 0.
granted() {
  "$@" >"$work/out" 2>"$work/err" </dev/null || fail "$* exited $?: $(cat "$work/err")"
  echo "ok   exit 0: $*"
}
# Granted: each with the right token, WEIBO_TOKEN as --token.
granted "$W/weibo-post" -u @alice "through the daemon" --token "$valid"
WEIBO_TOKEN=$valid granted "$W/weibo-timeline" -u @alice
granted "$W/weibo-show" "$msg" --token "$read_only"
granted "$W/weibo-fsck" --token "$admin"
granted "$W/weibo-token" check "$valid" --token "$read_only"
# Revoked through the daemon: refused from the next request on, and published to a
# subscriber of --events (who connected before it).
"$PROBE" events "ipc://$work/events.ipc" >"$work/subscriber" 2>&1 &
subscriber=$!
for _ in $(seq 100); do grep -q subscribed "$work/subscriber" && break; sleep 0.05; done
granted "$W/weibo-token" revoke "$bobs" --token "$bobs"
# ZeroMQ says nothing of when a subscription has reached the publisher, and a PUB socket
# drops what it sends before then (the "slow joiner"): on a loaded machine the probe's wait
# may not be enough. So while the subscriber has heard nothing, another of bob's tokens is
# revoked every 2 s; the first frame that arrives is checked below, whichever it was.
for spare in "${spares[@]}"; do
  for _ in $(seq 40); do kill -0 "$subscriber" 2>/dev/null || break 2; sleep 0.05; done
  granted "$W/weibo-token" revoke "$spare" --token "$spare"
done
wait "$subscriber" || fail "no event reached the subscriber: $(cat "$work/subscriber")"
grep -q '^token_revoked {"event":"token_revoked","app":"'"$key"'",' "$work/subscriber" ||
  fail "the published frame: $(cat "$work/subscriber")"
echo "ok   the revocation reached a subscriber of --events: $(sed -n 2p "$work/subscriber")"
refused 3 token_revoked "$bobs" "$W/weibo-user" list
# The app's events name the revocation, never the token.
WEIBO_CONNECT= "$W/weibo-app" --json events "$key" >"$work/events" || fail "events"
grep -q '"event":"token_revoked"' "$work/events" || fail "no token_revoked event"

# No token anywhere but where it was printed: not in the data directory, not in the log.
stop_daemon || fail "weibod exited non-zero"
for t in valid read_only bobs admin revoked expired; do
  if grep -rqF -- "${!t}" "$data" "$DAEMON_LOG" "$work/subscriber"; then fail "token $t found in a file"; fi
done
for t in "${spares[@]}"; do
  if grep -rqF -- "$t" "$data" "$DAEMON_LOG" "$work/subscriber"; then fail "a spare token found in a file"; fi
done
echo "ok   no token in any file of $(find "$data" -type f | wc -l) in the data directory or the log"
