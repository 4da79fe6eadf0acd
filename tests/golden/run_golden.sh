#!/usr/bin/env bash
# Golden-scenario runner (STYLE rule 9).
#
#   run_golden.sh [--print] BIN_DIR fixtures/NAME.sh
#
# A scenario is a plain shell script of weibo commands, one per line. Blank lines are
# skipped; lines starting with '#' are comments and are copied into the transcript as they
# are, so a golden reads like the scenario with its output. Every other line is run, in
# order, by one bash shell (variables set by one line are seen by the next) in a fresh
# temporary directory, with BIN_DIR first on PATH, WEIBO_DATA=./shards and the fixed clock
# WEIBO_NOW=2026-01-01T00:00:00Z (a scenario may export another WEIBO_NOW between steps).
# Standard input of a line is /dev/null unless the line pipes something in.
#
# For each line the transcript holds "$ <the line as written>", then its standard output,
# then its standard error, then "[exit N]" when the status N is not 0.
#
# Message ids are deterministic under the fixed clock; to refer to one later, a scenario
# runs the command that creates it through the runner's function
#
#   capture VAR COMMAND [ARGS...]
#
# which runs COMMAND as it is (its output is recorded as usual) and sets VAR to the first
# message id it printed: "#<id>" at the start of the text output, or "id":"<id>" of --json.
#
# The transcript is compared byte for byte with fixtures/NAME.golden; a missing or
# different golden fails with a diff. WEIBO_REGENERATE=1 (re)writes the golden instead.
# --print writes the transcript to standard output and compares nothing.
set -u

print_only=0
if [ "${1:-}" = "--print" ]; then
  print_only=1
  shift
fi
if [ $# -ne 2 ]; then
  echo "usage: run_golden.sh [--print] BIN_DIR SCENARIO.sh" >&2
  exit 2
fi
__g_bin=$(cd "$1" && pwd) || exit 2
__g_scenario=$(cd "$(dirname "$2")" && pwd)/$(basename "$2")
__g_golden=${__g_scenario%.sh}.golden
__g_name=$(basename "${__g_scenario%.sh}")
if [ ! -r "$__g_scenario" ]; then
  echo "run_golden.sh: cannot read $__g_scenario" >&2
  exit 2
fi

__g_work=$(mktemp -d "${TMPDIR:-/tmp}/weibo-golden-$__g_name.XXXXXX") || exit 2
trap 'rm -rf "$__g_work"' EXIT
mkdir "$__g_work/run"
__g_out=$__g_work/stdout
__g_err=$__g_work/stderr
__g_transcript=$__g_work/transcript

__g_regenerate=${WEIBO_REGENERATE:-}
# The environment a scenario sees: nothing from the caller's weibo settings.
unset WEIBO_USER WEIBO_CONNECT WEIBO_TOKEN WEIBO_REGENERATE
export PATH="$__g_bin:$PATH"
export WEIBO_DATA=./shards
export WEIBO_NOW=2026-01-01T00:00:00Z
export LC_ALL=C.UTF-8
export TZ=UTC

capture() {
  local __g_var=$1 __g_rc __g_tmp=$__g_work/capture
  shift
  "$@" >"$__g_tmp"
  __g_rc=$?
  cat "$__g_tmp"
  printf -v "$__g_var" '%s' "$(sed -n -e '1s/^#\([0-9][0-9]*\) .*/\1/p' \
    -e '1s/^{"id":"\([0-9][0-9]*\)".*/\1/p' "$__g_tmp")"
  return $__g_rc
}

# A scenario line that says exit would end the runner before the comparison.
# shellcheck disable=SC2317  # called through eval
exit() {
  echo "run_golden.sh: a scenario may not call exit" >&2
  return 2
}

# Appends a captured stream, marking output that does not end with a newline.
__g_append() {
  [ -s "$1" ] || return 0
  cat "$1" >>"$__g_transcript"
  [ -z "$(tail -c 1 "$1")" ] || printf '\n[no newline at end of output]\n' >>"$__g_transcript"
}

: >"$__g_transcript"
cd "$__g_work/run" || builtin exit 2
set +u  # scenario lines get plain shell semantics: an unset variable expands to nothing
while IFS= read -r __g_line <&3 || [ -n "$__g_line" ]; do
  if [ -z "${__g_line//[[:space:]]/}" ]; then continue; fi
  if [ "${__g_line:0:1}" = "#" ]; then
    printf '%s\n' "$__g_line" >>"$__g_transcript"
    continue
  fi
  printf '$ %s\n' "$__g_line" >>"$__g_transcript"
  eval "$__g_line" >"$__g_out" 2>"$__g_err" </dev/null
  __g_rc=$?
  __g_append "$__g_out"
  __g_append "$__g_err"
  [ "$__g_rc" -eq 0 ] || printf '[exit %d]\n' "$__g_rc" >>"$__g_transcript"
done 3<"$__g_scenario"
set -u
cd / || builtin exit 2
unset -f exit

if [ "$print_only" = 1 ]; then
  cat "$__g_transcript"
  exit 0
fi
if [ "$__g_regenerate" = 1 ]; then
  cp "$__g_transcript" "$__g_golden"
  echo "wrote $__g_golden"
  exit 0
fi
if [ ! -f "$__g_golden" ]; then
  echo "golden $__g_golden is missing; this run's transcript:" >&2
  cat "$__g_transcript" >&2
  echo "(WEIBO_REGENERATE=1 writes it)" >&2
  exit 1
fi
if ! cmp -s "$__g_golden" "$__g_transcript"; then
  echo "golden $__g_name differs (--- golden, +++ this run; WEIBO_REGENERATE=1 rewrites it):" >&2
  diff -u --label "$__g_golden" --label "this run" "$__g_golden" "$__g_transcript" >&2
  exit 1
fi
echo "golden $__g_name: ok"
