#!/usr/bin/env bash
# Multi-process load through the command-line programs (SPEC §3, §10):
#
#   cli_writers.sh BIN_DIR [PROCS] [COMMANDS]
#
# PROCS shell loops run at once against one cluster, each as its own user: it follows
# every other writer, then runs weibo-post / weibo-comment / weibo-repost on the others'
# seed messages, COMMANDS commands in all. Every command must exit 0 with nothing on
# stderr (no "database is locked", no storage_error); then every count must be exact and
# weibo-fsck must exit 0.
set -u
BIN=$1
PROCS=${2:-8}
COMMANDS=${3:-60}
DATA=$(mktemp -d "${TMPDIR:-/tmp}/weibo-cli-load-XXXXXX")
LOGS=$DATA/logs
mkdir -p "$LOGS"
export WEIBO_DATA=$DATA/shards
failures=0
fail() { echo "FAIL $*" >&2; failures=$((failures + 1)); }

"$BIN/weibo-init" --shards 4 --page-size 5 >/dev/null || { echo "init failed" >&2; exit 1; }
seeds=()
for ((i = 1; i <= PROCS; i++)); do
  "$BIN/weibo-user" add "writer$i" >/dev/null || exit 1
  seeds[i]=$("$BIN/weibo-post" --json -u "$i" "seed of $i" | jq -r .id) || exit 1
done

# The k-th command after the follows of writer i: post, comment, repost, in turn; the
# target of a comment or repost is the seed of writer (i + k) mod PROCS + 1 (never i).
target() { local i=$1 k=$2; local t=$(( (i - 1 + 1 + (k / 3) % (PROCS - 1)) % PROCS + 1 )); echo "$t"; }

writer() {
  local i=$1 k t
  for ((t = 1; t <= PROCS; t++)); do
    [ "$t" -eq "$i" ] && continue
    "$BIN/weibo-follow" -u "$i" "$t" >/dev/null || echo "exit $? follow $i $t" >&2
  done
  for ((k = 0; k < COMMANDS - PROCS + 1; k++)); do
    t=$(target "$i" "$k")
    case $((k % 3)) in
      0) "$BIN/weibo-post" -u "$i" "post $k of $i" >/dev/null || echo "exit $? post $i $k" >&2 ;;
      1) "$BIN/weibo-comment" -u "$i" "${seeds[t]}" "comment $k" >/dev/null || echo "exit $? comment $i $k" >&2 ;;
      2) "$BIN/weibo-repost" -u "$i" "${seeds[t]}" "repost $k" >/dev/null || echo "exit $? repost $i $k" >&2 ;;
    esac
  done
}

start=$(date +%s)
pids=()
for ((i = 1; i <= PROCS; i++)); do
  writer "$i" 2>"$LOGS/writer$i.err" &
  pids+=($!)
done
for pid in "${pids[@]}"; do wait "$pid"; done
elapsed=$(( $(date +%s) - start ))

for ((i = 1; i <= PROCS; i++)); do
  if [ -s "$LOGS/writer$i.err" ]; then
    fail "writer $i saw errors:"
    sed 's/^/    /' "$LOGS/writer$i.err" >&2
  fi
done

loop=$((COMMANDS - PROCS + 1))
posts=$(( (loop + 2) / 3 )); comments=$(( (loop + 1) / 3 )); reposts=$(( loop / 3 ))
for ((i = 1; i <= PROCS; i++)); do
  got=$("$BIN/weibo-user" show --json "$i" | jq -c '[.msg_count, .fans_count, .follow_count]')
  want="[$((1 + posts + comments + reposts)),$((PROCS - 1)),$((PROCS - 1))]"
  [ "$got" = "$want" ] || fail "user $i [msg_count,fans_count,follow_count] = $got, want $want"
done
for ((j = 1; j <= PROCS; j++)); do
  wc=0; wr=0
  for ((i = 1; i <= PROCS; i++)); do
    [ "$i" -eq "$j" ] && continue
    for ((k = 0; k < loop; k++)); do
      [ "$(target "$i" "$k")" -eq "$j" ] || continue
      case $((k % 3)) in 1) wc=$((wc + 1)) ;; 2) wr=$((wr + 1)) ;; esac
    done
  done
  got=$("$BIN/weibo-count" --json "${seeds[j]}" | jq -c '.[0].counts | [.comments, .commented, .reposts, .reposted]')
  want="[$wc,$wc,$wr,$wr]"
  [ "$got" = "$want" ] || fail "seed $j [comments,commented,reposts,reposted] = $got, want $want"
done
home=$(( 1 + posts + comments + reposts + (PROCS - 1) * (1 + posts + reposts) ))
for ((i = 1; i <= PROCS; i++)); do
  # Page through the whole home timeline with --max-id: every item once, newest first.
  : >"$LOGS/home$i"
  cursor=()
  while :; do
    "$BIN/weibo-timeline" --jsonl -u "$i" --count 200 "${cursor[@]}" | jq -r .id >"$LOGS/page"
    cat "$LOGS/page" >>"$LOGS/home$i"
    [ "$(wc -l <"$LOGS/page")" -lt 200 ] && break
    cursor=(--max-id "$(tail -n 1 "$LOGS/page")")
  done
  got=$(wc -l <"$LOGS/home$i")
  [ "$got" -eq "$home" ] || fail "home timeline of $i has $got items, want $home"
  [ "$(sort -u "$LOGS/home$i" | wc -l)" -eq "$got" ] || fail "home timeline of $i has duplicates"
  sort -rn "$LOGS/home$i" | cmp -s - "$LOGS/home$i" || fail "home timeline of $i is not newest first"
done
"$BIN/weibo-fsck" >"$LOGS/fsck.out" 2>&1 || { fail "weibo-fsck exited $?"; cat "$LOGS/fsck.out" >&2; }

echo "cli_writers: $PROCS processes x $COMMANDS commands in ${elapsed}s, $failures failure(s)"
if [ "$failures" -eq 0 ]; then rm -rf "$DATA"; else echo "data kept in $DATA" >&2; fi
[ "$failures" -eq 0 ]
