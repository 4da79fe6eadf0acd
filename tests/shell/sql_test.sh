#!/usr/bin/env bash
# weibo-sql (weibo-sql(1)) on a 4-shard cluster: every shard in one table with a shard
# column, one shard, JSON; the -wal and -shm files of every shard are still there after it
# (plain sqlite3 deletes them when it closes), no shard file changed, and a statement that
# writes is refused before it runs.
set -euo pipefail
bin=$(cd "${1:?usage: sql_test.sh BIN_DIR}" && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/weibo-sql.XXXXXX")
trap 'rm -rf "$work"' EXIT
cd "$work"
export WEIBO_DATA=$work/shards WEIBO_NOW=2026-01-01T00:00:00Z
unset WEIBO_CONNECT WEIBO_USER
fail() { echo "FAIL: $*" >&2; exit 1; }

"$bin/weibo-init" --shards 4 >/dev/null
"$bin/weibo-user" add alice >/dev/null
"$bin/weibo-user" add bob >/dev/null
"$bin/weibo-follow" -u @bob @alice >/dev/null
"$bin/weibo-post" -u @alice "hello" >/dev/null

files() { (cd shards && ls -1 | sort); }
# The databases and their WALs, byte for byte (a reader does write its read mark into
# the -shm file, which only has to stay).
sums() { (cd shards && for f in shard-*.db shard-*.db-wal; do printf '%s %s\n' "$f" "$(cksum <"$f")"; done); }
files >"$work/files.before"
sums >"$work/sums.before"
grep -q -- '-wal$' "$work/files.before" || fail "no -wal file to keep: $(cat "$work/files.before")"
grep -q -- '-shm$' "$work/files.before" || fail "no -shm file to keep"

# Every shard, one table: the header, then a row per user on the shard of the name.
out=$("$bin/weibo-sql" "SELECT user_id, user_name FROM user_name ORDER BY user_id")
echo "$out"
[ "$(echo "$out" | head -n 1 | tr -s ' ')" = "shard user_id user_name" ] || fail "header: $out"
[ "$(echo "$out" | wc -l)" -eq 3 ] || fail "expected a header and 2 rows"
grep -Eq '^[0-3] +1 +alice$' <<<"$out" || fail "no alice row"
grep -Eq '^[0-3] +2 +bob$' <<<"$out" || fail "no bob row"

# One shard; JSON with the shard column first and the query's columns in order.
json=$("$bin/weibo-sql" --shard 1 --json "SELECT user_id, user_name, msg_count FROM user_info")
echo "$json"
[ "$json" = '[{"shard":1,"user_id":1,"user_name":"alice","msg_count":1}]' ] || fail "json: $json"
total=$("$bin/weibo-sql" --all --jq 'map(.n) | add' "SELECT count(*) AS n FROM msg_info")
[ "$total" = 1 ] || fail "--jq over every shard: $total"

# Writes are refused, on every kind of statement, and nothing changes.
for sql in "DELETE FROM user_info" "UPDATE user_info SET msg_count = 9" \
           "INSERT INTO meta VALUES ('x', 'y')" "CREATE TABLE t(x)" "DROP TABLE msg_info" \
           "PRAGMA user_version = 1" "SELECT 1; DELETE FROM user_info"; do
  rc=0
  "$bin/weibo-sql" "$sql" >/dev/null 2>"$work/err" || rc=$?
  [ "$rc" -eq 2 ] || fail "'$sql' exited $rc, expected 2"
  grep -q "only reads" "$work/err" || fail "'$sql': $(cat "$work/err")"
done
rc=0
"$bin/weibo-sql" --shard 4 "SELECT 1" 2>"$work/err" || rc=$?
[ "$rc" -eq 2 ] && grep -q -- "--shard must be from 0 to 3" "$work/err" || fail "--shard 4: $rc"

files >"$work/files.after"
sums >"$work/sums.after"
cmp -s "$work/files.before" "$work/files.after" ||
  { diff "$work/files.before" "$work/files.after" >&2; fail "weibo-sql changed the files of the shards"; }
cmp -s "$work/sums.before" "$work/sums.after" ||
  { diff "$work/sums.before" "$work/sums.after" >&2; fail "a shard or its WAL changed"; }
"$bin/weibo-fsck" >/dev/null || fail "fsck after weibo-sql"

# The cluster is found from a subdirectory, as every command finds it.
mkdir -p sub/dir
(cd sub/dir && env -u WEIBO_DATA "$bin/weibo-sql" --shard 0 "SELECT count(*) AS n FROM meta") >/dev/null ||
  fail "weibo-sql in a subdirectory did not find ./shards above"
echo "weibo-sql: read every shard, refused 7 writes, left $(wc -l <"$work/files.after") files as they were"
