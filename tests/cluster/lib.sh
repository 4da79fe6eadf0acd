# Helpers for the cluster tests, sourced by each script. WEIBO_BIN is the build's bin dir.
#
#   free_base_port K   a base port P with P .. P+K+1 all free on loopback (random, so
#                      tests running in parallel do not collide)
#   cluster_up DATA K  weibo-cluster up; sets BROKER (its last line); the EXIT trap set
#                      here runs weibo-cluster down on every DATA started, so no daemon leaks
#   fail MESSAGE       prints it and exits 1

CLUSTER_DATAS=()

fail() {
  echo "FAIL: $*" >&2
  exit 1
}

cluster_teardown() {
  local d
  for d in "${CLUSTER_DATAS[@]}"; do
    "$WEIBO_BIN/weibo-cluster" --data "$d" down >/dev/null 2>&1
  done
  [ -n "${WORK:-}" ] && rm -rf "$WORK"
}
trap cluster_teardown EXIT

free_base_port() {
  python3 - "$1" <<'PY'
import random, socket, sys
k = int(sys.argv[1])
for _ in range(200):
    # Below the kernel's ephemeral range (ip_local_port_range), where the many client
    # connections of a test would otherwise take a port between this check and the bind.
    lo = 32768
    try:
        lo = int(open("/proc/sys/net/ipv4/ip_local_port_range").read().split()[0])
    except (OSError, ValueError, IndexError):
        pass
    base = random.randrange(10000, max(10001, lo - k - 2))
    socks = []
    try:
        for p in range(base, base + k + 2):
            s = socket.socket()
            s.bind(("127.0.0.1", p))
            socks.append(s)
    except OSError:
        continue
    finally:
        for s in socks:
            s.close()
    print(base)
    break
PY
}

cluster_up() {
  local data=$1 k=$2 port out
  shift 2
  port=$(free_base_port "$k")
  CLUSTER_DATAS+=("$data")
  out=$("$WEIBO_BIN/weibo-cluster" --data "$data" up --nodes "$k" --base-port "$port" "$@") ||
    { for f in "$data"/*.log; do echo "== $f"; cat "$f"; done >&2; fail "weibo-cluster up failed"; }
  BROKER=$(printf '%s\n' "$out" | tail -n 1)
}

# node_pid DATA NODE   the pid weibo-cluster status --json reports for NODE
node_pid() {
  "$WEIBO_BIN/weibo-cluster" --data "$1" status --json |
    python3 -c "import json,sys; print([n['pid'] for n in json.load(sys.stdin)['nodes'] if n['node']=='$2'][0])"
}
