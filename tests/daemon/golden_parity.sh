#!/usr/bin/env bash
# Golden parity (SPEC §11: a command pointed at a daemon "behaves exactly as the embedded
# one"): a golden scenario run with every command going through weibod prints its golden,
# byte for byte.
#
#   golden_parity.sh BIN_DIR RUN_GOLDEN_SH SCENARIO.sh [STRATEGY]
#
# With STRATEGY the shards are made with weibo-init --strategy STRATEGY and the transcript
# is compared as `weibo-golden --strategy STRATEGY run` compares it (ids normalised, or the
# scenario's STRATEGY golden).
#
# How: run_golden.sh runs the scenario unchanged (its --print mode: the transcript is
# compared here, so this test never writes a golden), with a directory of shims first on
# PATH. The shim weibo-X runs the real weibo-X with WEIBO_CONNECT set to the daemon, so
# every request crosses the wire; with no daemon running it fails loudly rather than run
# embedded. init is not a daemon operation (weibod(1)), so the weibo-init shim runs the
# real weibo-init embedded in the daemon's home directory — same relative data directory,
# same output — and then (re)starts weibod on what it initialised. The scenario's run
# directory never holds shards; only the daemon touches them.
set -u
bin=$(cd "${1:?usage: golden_parity.sh BIN_DIR RUN_GOLDEN_SH SCENARIO.sh}" && pwd)
run_golden=${2:?}
scenario=${3:?}
strategy=${4:-}
golden=${scenario%.sh}.golden
work=$(mktemp -d "${TMPDIR:-/tmp}/weibo-parity.XXXXXX")
home=$work/home shims=$work/bin
mkdir -p "$home" "$shims"

cleanup() {
  if [ -f "$home/pid" ]; then
    kill -TERM "$(cat "$home/pid")" 2>/dev/null
    for _ in $(seq 100); do kill -0 "$(cat "$home/pid")" 2>/dev/null || break; sleep 0.05; done
  fi
  rm -rf "$work"
}
trap cleanup EXIT

cat >"$shims/weibo-init" <<SHIM
#!/usr/bin/env bash
# Parity shim: init runs embedded in the daemon's home, then weibod (re)starts there.
home='$home' bin='$bin'
if [ -f "\$home/pid" ]; then
  pid=\$(cat "\$home/pid")
  kill -TERM "\$pid" 2>/dev/null
  while kill -0 "\$pid" 2>/dev/null; do sleep 0.05; done
  rm -f "\$home/pid" "\$home/endpoint"
fi
(cd "\$home" && "\$bin/weibo-init" "\$@")
rc=\$?
if [ \$rc -eq 0 ]; then
  data=\${WEIBO_DATA:-./shards}
  case "\$data" in /*) ;; *) data=\$home/\$data ;; esac
  "\$bin/weibod" --data "\$data" --bind 'tcp://127.0.0.1:*' --allow-clock \\
    >"\$home/endpoint" 2>>"\$home/weibod.log" </dev/null &
  echo \$! >"\$home/pid"
  for _ in \$(seq 200); do [ -s "\$home/endpoint" ] && break; sleep 0.05; done
fi
exit \$rc
SHIM
for prog in "$bin"/weibo "$bin"/weibo-*; do
  name=$(basename "$prog")
  # The runner itself (run_golden.sh runs it from here) is not a client: no shim.
  [ "$name" = weibo-golden ] && { ln -s "$prog" "$shims/$name"; continue; }
  [ "$name" = weibo-init ] && continue
  dispatch_init=""
  [ "$name" = weibo ] && dispatch_init="[ \"\${1:-}\" = init ] && { shift; exec '$shims/weibo-init' \"\$@\"; }"
  cat >"$shims/$name" <<SHIM
#!/usr/bin/env bash
# Parity shim: the real $name, through the daemon.
$dispatch_init
WEIBO_CONNECT=\$(head -n 1 '$home/endpoint' 2>/dev/null)
if [ -z "\$WEIBO_CONNECT" ]; then
  echo "parity shim: no daemon is running (did the scenario start with weibo-init?)" >&2
  exit 99
fi
export WEIBO_CONNECT
exec '$prog' "\$@"
SHIM
done
chmod +x "$shims"/*

compared=0
if [ -n "$strategy" ]; then
  env -u WEIBO_REGENERATE "$shims/weibo-golden" --bin "$shims" --strategy "$strategy" run \
    "$scenario" || exit 1
  compared=1
else
  env -u WEIBO_REGENERATE bash "$run_golden" --print "$shims" "$scenario" >"$work/transcript" ||
    { echo "run_golden.sh failed" >&2; exit 1; }
fi
if [ -f "$home/pid" ]; then
  kill -TERM "$(cat "$home/pid")"
  for _ in $(seq 100); do kill -0 "$(cat "$home/pid")" 2>/dev/null || break; sleep 0.05; done
  rm -f "$home/pid"
fi
served=$(sed -n 's/^weibod: stopped after \([0-9]*\) requests$/\1/p' "$home/weibod.log" |
  awk '{ n += $1 } END { print n + 0 }')
name=$(basename "${scenario%.sh}")
if [ $compared = 0 ] && ! cmp -s "$golden" "$work/transcript"; then
  echo "parity $name: the daemon's transcript differs from the golden (--- golden, +++ daemon):" >&2
  diff -u --label "$golden" --label "through weibod" "$golden" "$work/transcript" >&2
  exit 1
fi
if [ -z "$served" ] || [ "$served" -eq 0 ]; then
  echo "parity $name: weibod served no request" >&2
  cat "$home/weibod.log" >&2
  exit 1
fi
echo "parity $name: ok ($served requests served by weibod)"
