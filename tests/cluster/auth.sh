#!/usr/bin/env bash
# weibo-cluster up --auth (issue 12): three nodes and a broker that check tokens. A token
# revoked through one node is refused by every node from the next request on (no node
# keeps a cache), each token state gets its code and exit status through the broker, a
# refusal changes nothing, and no token is in any file of the data directory or any log.
# The revocation, applied by whichever node owns the app, reaches a subscriber of the
# broker's --events. The broker's --rate counts per token, not per connection.
# usage: auth.sh BIN_DIR DAEMON_PROBE
set -u
WEIBO_BIN=$1
PROBE=$2
. "$(dirname "$0")/lib.sh"  # cluster_teardown on EXIT, free_base_port, fail
WORK=$(mktemp -d "${TMPDIR:-/tmp}/weibo-cluster-auth.XXXXXX")
data=$WORK/shards
W=$WEIBO_BIN
export WEIBO_DATA=$data
unset WEIBO_CONNECT WEIBO_TOKEN WEIBO_USER WEIBO_NOW

# code RC CODE COMMAND...: COMMAND exits RC with error CODE on stderr (CODE "" for success).
code() {
  local want=$1 c=$2 rc
  shift 2
  "$@" >"$WORK/out" 2>"$WORK/err" </dev/null
  rc=$?
  [ "$rc" = "$want" ] || fail "$* exited $rc, not $want: $(cat "$WORK/err")"
  [ -z "$c" ] || grep -q ": error: $c: " "$WORK/err" || fail "$*: $(cat "$WORK/err"), not $c"
  echo "ok   exit $rc ${c:-ok}: ${*#"$W"/}"
}

"$W/weibo-init" --shards 4 >/dev/null || fail "weibo-init"
for u in alice bob carol dave; do "$W/weibo-user" add "$u" >/dev/null || fail "user add"; done
key=$("$W/weibo-app" register syncer | sed -n 's/^app @syncer key \([^ ]*\) .*/\1/p')
issue() { "$W/weibo-token" issue --app "$key" "$@" | sed -n 's/^token //p'; }
alice=$(issue -u @alice)
bob=$(issue -u @bob)
carol_read=$(issue -u @carol --scope read)
admin=$(issue -u @dave --scope admin)
expired=$(WEIBO_NOW=2021-01-01T00:00:00Z issue -u @alice --ttl 1s)
unknown=$(printf '%s' "$alice" | tr 'a-y' 'b-z')

port=$(free_base_port 3)
CLUSTER_DATAS+=("$data")
out=$("$W/weibo-cluster" --data "$data" up --nodes 3 --base-port "$port" --auth \
  --events "ipc://$WORK/events.ipc" --rate 200) ||
  { for f in "$data"/*.log; do echo "== $f"; cat "$f"; done >&2; fail "weibo-cluster up --auth"; }
export WEIBO_CONNECT=${out##*$'\n'}

# Users 1..4 live on shards 1, 2, 3, 0: nodes 1, 2, 0, 0.
code 0 "" "$W/weibo-post" -u @alice "from alice" --token "$alice"
bob_msg=$("$W/weibo-post" -u @bob "from bob" --token "$bob" | sed -n '1s/^#\([0-9]*\) .*/\1/p')
[ -n "$bob_msg" ] || fail "bob's post"
dump() { for f in "$data"/shard-*.db; do sqlite3 -readonly "$f" .dump; done | md5sum; }
before=$(dump)
for cmd in "weibo-post -u @alice hello" "weibo-follow -u @alice @bob" "weibo-show $bob_msg" \
           "weibo-user list" "weibo-timeline -u @bob"; do
  # shellcheck disable=SC2086  # a command is a list of words
  {
    code 3 token_missing "$W"/$cmd
    code 3 token_invalid "$W"/$cmd --token "$unknown"
    code 3 token_expired "$W"/$cmd --token "$expired"
  }
done
code 1 forbidden "$W/weibo-post" -u @alice "as bob" --token "$bob"
code 1 forbidden "$W/weibo-post" -u @carol "read only" --token "$carol_read"
code 1 forbidden "$W/weibo-fsck" --token "$alice"
[ "$(dump)" = "$before" ] || fail "a refused request changed the shards"
echo "ok   the shards are as they were after every refusal"
code 0 "" "$W/weibo-fsck" --token "$admin"

# Revoked through the broker (alice's node); refused at once by every node: the request
# for bob's message runs on node 2, the user list on any node, carol's timeline on node 0.
"$PROBE" events "ipc://$WORK/events.ipc" >"$WORK/subscriber" 2>&1 &
subscriber=$!
for _ in $(seq 100); do grep -q subscribed "$WORK/subscriber" && break; sleep 0.05; done
code 0 "" "$W/weibo-token" revoke "$alice" --token "$alice"
wait "$subscriber" || fail "no event reached the broker's subscriber: $(cat "$WORK/subscriber")"
grep -q '^token_revoked {"event":"token_revoked","app":"'"$key"'",' "$WORK/subscriber" ||
  fail "the published frame: $(cat "$WORK/subscriber")"
echo "ok   the revocation reached a subscriber of the broker's --events"
code 3 token_revoked "$W/weibo-show" "$bob_msg" --token "$alice"
code 3 token_revoked "$W/weibo-user" list --token "$alice"
code 3 token_revoked "$W/weibo-timeline" -u @alice --token "$alice"
code 3 token_revoked "$W/weibo-post" -u @alice "after" --token "$alice"
code 0 "" "$W/weibo-show" "$bob_msg" --token "$bob"
WEIBO_CONNECT= code 0 "" "$W/weibo-app" events "$key"
grep -q "token_revoked" "$WORK/out" || fail "no token_revoked event for the app"

"$W/weibo-cluster" --data "$data" down >/dev/null || fail "weibo-cluster down"
for t in alice bob carol_read admin expired; do
  if grep -rqF -- "${!t}" "$data" "$WORK/subscriber"; then fail "token $t found in a file of the data directory"; fi
done
echo "ok   no token in the $(find "$data" -type f | wc -l) files of the data directory and logs"
