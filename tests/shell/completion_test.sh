#!/usr/bin/env bash
# `weibo completion bash` loads in a bash without bash-completion installed and completes:
# commands, a subcommand, options (common and the command's own), feed modes, and the
# @names of the cluster of the --data on the line. zsh and fish are checked for syntax
# when those shells are installed.
set -uo pipefail
bin=$(cd "${1:?usage: completion_test.sh BIN_DIR}" && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/weibo-completion.XXXXXX")
trap 'rm -rf "$work"' EXIT
export PATH="$bin:$PATH" WEIBO_NOW=2026-01-01T00:00:00Z
unset WEIBO_DATA WEIBO_CONNECT WEIBO_USER
fail() { echo "FAIL: $*" >&2; exit 1; }

weibo completion bash >"$work/weibo.bash" || fail "weibo completion bash"
weibo-init --data "$work/shards" --shards 2 >/dev/null
weibo-user --data "$work/shards" add alice >/dev/null
weibo-user --data "$work/shards" add albert >/dev/null
weibo-user --data "$work/shards" add bob >/dev/null

# complete LINE: what _weibo offers with the cursor at the end of LINE, sorted, one line.
cat >"$work/driver.bash" <<'DRIVER'
source "$1" || exit 3
complete -p weibo >/dev/null || exit 4
complete -p weibo-post >/dev/null || exit 4
COMP_LINE=$2
COMP_POINT=${#COMP_LINE}
COMP_WORDBREAKS=$' \t\n"\'@><=;|&(:'  # bash's default, as in an interactive shell
# bash's own split ('@' breaks a word); _weibo reads the line itself
read -ra COMP_WORDS <<<"${COMP_LINE//@/ @ }"
[[ $COMP_LINE == *" " ]] && COMP_WORDS+=("")
COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
_weibo
printf '%s\n' "${COMPREPLY[@]}" | sort | tr '\n' ' '
DRIVER
complete() { bash "$work/driver.bash" "$work/weibo.bash" "$1"; }
expect() {  # expect LINE WORD...: each WORD is offered
  local got
  got=$(complete "$1")
  [ $? -eq 0 ] || fail "'$1': the script did not load (exit $?)"
  shift 0
  for word in "${@:2}"; do
    case " $got " in *" $word "*) ;; *) fail "'$1' offers '$got', not '$word'" ;; esac
  done
  echo "ok: '$1' -> $got"
}
expect "weibo fol" follow
expect "weibo tim" timeline
expect "weibo " post timeline user sql cluster golden help completion
expect "weibo user " add show list
expect "weibo timeline --c" --count --connect
expect "weibo --json " post
expect "weibo init --feed " push pull hybrid
expect "weibo completion " bash zsh fish
expect "weibo-user add --ex" --exist-ok
expect "weibo-follow --data $work/shards -u @al" alice albert
expect "weibo follow --data $work/shards -u bob @" alice albert bob
expect "weibo cluster " up status down
[ "$(complete "weibo fol")" = "follow " ] || fail "weibo fol: $(complete "weibo fol")"
[ "$(complete "weibo-follow --data $work/shards -u @al")" = "albert alice " ] ||
  fail "@al: '$(complete "weibo-follow --data $work/shards -u @al")' (bash replaces only what follows '@')"

for shell in zsh fish; do
  if command -v "$shell" >/dev/null; then
    weibo completion "$shell" >"$work/weibo.$shell" || fail "weibo completion $shell"
    "$shell" -n "$work/weibo.$shell" || fail "$shell rejects its completion script"
    echo "ok: $shell parses its script"
  else
    weibo completion "$shell" >/dev/null || fail "weibo completion $shell"
    echo "($shell is not installed: its script was made but not parsed)"
  fi
done
rc=0
weibo completion tcsh >/dev/null 2>&1 || rc=$?
[ "$rc" -eq 2 ] || fail "weibo completion tcsh exited $rc, expected 2"
