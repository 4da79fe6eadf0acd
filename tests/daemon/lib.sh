# Helpers for the daemon tests, sourced by each script. WEIBO_BIN is the build's bin dir.
#
#   start_daemon DATA_DIR [WEIBOD OPTIONS...]
#       starts weibod on a free loopback port (--bind tcp://127.0.0.1:*), waits for its
#       ready line and sets DAEMON_PID and ENDPOINT; its stderr goes to $DAEMON_LOG.
#   stop_daemon     SIGTERM, then waits; returns weibod's exit status.
#   fail MESSAGE    prints it and exits 1 (the EXIT trap stops the daemon).
#   expect RC STDERR_PATTERN COMMAND...
#                   runs COMMAND, checks its exit status and that its stderr matches the
#                   extended regex (its output goes to $work/out and $work/err).
#   free_port       a loopback TCP port nobody listens on (just released by the kernel).
#   daemon_workdir NAME
#                   makes the test's scratch directory ($work, weibod-NAME.XXXXXX under
#                   $TMPDIR) and the EXIT trap that stops the daemon and removes it.

daemon_workdir() {
  work=$(mktemp -d "${TMPDIR:-/tmp}/weibod-$1.XXXXXX")
  trap 'stop_daemon; rm -rf "$work"' EXIT
}

fail() {
  echo "FAIL: $*" >&2
  exit 1
}

expect() {
  local want_rc=$1 pattern=$2 rc
  shift 2
  "$@" >"$work/out" 2>"$work/err" </dev/null
  rc=$?
  [ "$rc" -eq "$want_rc" ] || fail "$* exited $rc, not $want_rc: $(cat "$work/err")"
  grep -Eq "$pattern" "$work/err" || fail "$*: stderr '$(cat "$work/err")' does not match '$pattern'"
  echo "ok   exit $rc: $*"
}

start_daemon() {
  local data=$1 ready
  shift
  ready=$(mktemp "${TMPDIR:-/tmp}/weibod-ready.XXXXXX")
  DAEMON_LOG=${DAEMON_LOG:-$ready.log}
  "$WEIBO_BIN/weibod" --data "$data" --bind 'tcp://127.0.0.1:*' "$@" \
    >"$ready" 2>"$DAEMON_LOG" </dev/null &
  DAEMON_PID=$!
  for _ in $(seq 200); do
    ENDPOINT=$(head -n 1 "$ready")
    if [ -n "$ENDPOINT" ]; then
      rm -f "$ready"
      return 0
    fi
    kill -0 "$DAEMON_PID" 2>/dev/null || break
    sleep 0.05
  done
  cat "$DAEMON_LOG" >&2
  rm -f "$ready"
  fail "weibod did not become ready"
}

stop_daemon() {
  [ -n "${DAEMON_PID:-}" ] || return 0
  local pid=$DAEMON_PID rc=0
  DAEMON_PID=
  kill -TERM "$pid" 2>/dev/null
  wait "$pid" || rc=$?
  return $rc
}

free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}
