#!/usr/bin/env bash
# weibo-bench archive at a small size (its default is 10^6 posts): it runs, archives the
# oldest 90% of the posts and reports the live shards' size and the timeline latency on
# both sides. Checked: what does not depend on the machine's speed — the messages moved
# are 90% of the posts, the live shards hold fewer bytes after than before, the archive
# files hold some, and every latency is a positive number. No timing is compared.
# usage: archive.sh BIN_DIR PYTHON
set -euo pipefail
bin=${1:?usage: archive.sh BIN_DIR PYTHON} python=${2:?}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

"$bin/weibo-bench" archive --posts 3000 --users 200 --follows 10 --reads 50 --shards 4 \
  --json > "$work/archive.json"
"$bin/weibo-bench" archive --posts 500 --users 50 --follows 5 --reads 10 --shards 2 \
  --feed pull > "$work/archive.txt"
grep -q '^before ' "$work/archive.txt"
grep -q '^after ' "$work/archive.txt"

"$python" - "$work" <<'PY'
import json, sys
r = json.load(open(sys.argv[1] + "/archive.json"))
a = r["archive"]
assert r["posts"] == 3000 and a["messages"] == 2700, a
assert a["inbox"] > 0 and a["bytes"] > 0, a
assert r["after"]["live_bytes"] < r["before"]["live_bytes"], r
for side in ("before", "after"):
    t = r[side]["timeline_ms"]
    assert 0 < t["p50"] <= t["p99"], (side, t)
print("archive bench: live bytes %d -> %d, p99 %.3f -> %.3f ms" % (
    r["before"]["live_bytes"], r["after"]["live_bytes"],
    r["before"]["timeline_ms"]["p99"], r["after"]["timeline_ms"]["p99"]))
PY
