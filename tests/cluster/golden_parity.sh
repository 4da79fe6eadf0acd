#!/usr/bin/env bash
# Golden parity through a cluster (SPEC §11: a command pointed at the broker "behaves
# exactly as the embedded one"): a golden scenario, every command sent to the broker of a
# 3-node cluster, prints its golden byte for byte.
#
#   golden_parity.sh BIN_DIR RUN_GOLDEN_SH SCENARIO.sh [STRATEGY]
#
# With STRATEGY the cluster is made with weibo-init --strategy STRATEGY and the transcript
# is compared as `weibo-golden --strategy STRATEGY run` compares it (ids normalised, or the
# scenario's STRATEGY golden): under uid-mapping a message's request goes to its mapping's
# node first, which redirects it to its author's (cluster/routing.h).
#
# As tests/daemon/golden_parity.sh, with cluster shims: weibo-init runs embedded in the
# cluster's home (stopping a cluster already there), then `weibo-cluster up --nodes 3`
# starts the broker and the nodes on it; every other weibo-X runs with WEIBO_CONNECT set to
# the broker.
set -u
bin=$(cd "${1:?usage: golden_parity.sh BIN_DIR RUN_GOLDEN_SH SCENARIO.sh}" && pwd)
run_golden=${2:?}
scenario=${3:?}
strategy=${4:-}
golden=${scenario%.sh}.golden
WEIBO_BIN=$bin
. "$(dirname "$0")/lib.sh"
WORK=$(mktemp -d "${TMPDIR:-/tmp}/weibo-cparity.XXXXXX")
home=$WORK/home shims=$WORK/bin
mkdir -p "$home" "$shims"
port=$(free_base_port 3)

cleanup() {
  [ -f "$home/data" ] && "$bin/weibo-cluster" --data "$(cat "$home/data")" down >/dev/null 2>&1
  rm -rf "$WORK"
}
trap cleanup EXIT

cat >"$shims/weibo-init" <<SHIM
#!/usr/bin/env bash
# Cluster parity shim: init runs embedded in the cluster's home, then the cluster starts.
home='$home' bin='$bin'
[ -f "\$home/data" ] && "\$bin/weibo-cluster" --data "\$(cat "\$home/data")" down >/dev/null
rm -f "\$home/data" "\$home/endpoint"
(cd "\$home" && "\$bin/weibo-init" "\$@")
rc=\$?
if [ \$rc -eq 0 ]; then
  data=\${WEIBO_DATA:-./shards}
  case "\$data" in /*) ;; *) data=\$home/\$data ;; esac
  echo "\$data" >"\$home/data"
  "\$bin/weibo-cluster" --data "\$data" up --nodes 3 --base-port $port --allow-clock 2>>"\$home/up.log" |
    tail -n 1 >"\$home/endpoint"
fi
exit \$rc
SHIM
for prog in "$bin"/weibo "$bin"/weibo-*; do
  name=$(basename "$prog")
  # The runner itself (run_golden.sh runs it from here) is not a client: no shim.
  [ "$name" = weibo-golden ] && { ln -s "$prog" "$shims/$name"; continue; }
  case "$name" in weibo-init | weibo-cluster) continue ;; esac
  dispatch_init=""
  [ "$name" = weibo ] && dispatch_init="[ \"\${1:-}\" = init ] && { shift; exec '$shims/weibo-init' \"\$@\"; }"
  cat >"$shims/$name" <<SHIM
#!/usr/bin/env bash
# Cluster parity shim: the real $name, through the broker.
$dispatch_init
WEIBO_CONNECT=\$(head -n 1 '$home/endpoint' 2>/dev/null)
if [ -z "\$WEIBO_CONNECT" ]; then
  echo "cluster parity shim: no cluster is running (did the scenario start with weibo-init?)" >&2
  exit 99
fi
export WEIBO_CONNECT
exec '$prog' "\$@"
SHIM
done
chmod +x "$shims"/*

if [ -n "$strategy" ]; then
  env -u WEIBO_REGENERATE "$shims/weibo-golden" --bin "$shims" --strategy "$strategy" run \
    "$scenario" && exit 0
  [ -s "$home/up.log" ] && { echo "weibo-cluster up said:" >&2; cat "$home/up.log" >&2; }
  exit 1
fi
env -u WEIBO_REGENERATE bash "$run_golden" --print "$shims" "$scenario" >"$WORK/transcript" ||
  { echo "run_golden.sh failed" >&2; cat "$home/up.log" >&2; exit 1; }
name=$(basename "${scenario%.sh}")
if ! cmp -s "$golden" "$WORK/transcript"; then
  echo "cluster parity $name: the transcript differs from the golden (--- golden, +++ cluster):" >&2
  diff -u --label "$golden" --label "through the broker" "$golden" "$WORK/transcript" >&2
  [ -s "$home/up.log" ] && { echo "weibo-cluster up said:" >&2; cat "$home/up.log" >&2; }
  exit 1
fi
echo "cluster parity $name: ok"
