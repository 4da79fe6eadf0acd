#!/usr/bin/env bash
# weibo-bench's baselines are the limits they claim to be (issue 19):
#  - no mode's deliveries/s is above the ceiling's rows/s (all the rows in one transaction
#    and one fsync): a baseline a mode can beat is no ceiling — on the workload and on a
#    --star post;
#  - the baselines insert the rows push delivered, and the star's the rows its post added;
#  - the same-commits baseline applies the group commit the modes ran with (given, 0, and
#    the default): with 0 it syncs every post's deliveries, as many fsyncs as transactions;
#    with N it holds deliveries to other shards back as a server does (min(N, 1024) of
#    them, then one shard's at a time), applies them in fewer transactions than one per
#    post, and syncs once N or more of them are unsynced; the rows are the same either way;
#  - the workload's same-commits baseline runs between the mode's blocks of 20 measured ops
#    (interleaved, so that a machine slowed for a while slows both), the star's after it;
#  - the ceiling is the fastest of three runs; the star posts three times, each post
#    followed by one of them, and its time is the median post's.
# usage: baselines.sh BIN_DIR PYTHON
set -euo pipefail
bin=${1:?usage: baselines.sh BIN_DIR PYTHON} python=${2:?}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# No history: no inbox fills up, so push's deliveries (a net count) are all its rows.
common=(run --users 300 --follows 8 --history 0 --posts 60 --shards 8)
"$bin/weibo-bench" "${common[@]}" --feed all --star 400 --json-out "$work/all.json" > "$work/all.txt"
"$bin/weibo-bench" "${common[@]}" --feed push --group-commit 7 --json-out "$work/gc7.json" > /dev/null
"$bin/weibo-bench" "${common[@]}" --feed push --group-commit 0 --json-out "$work/gc0.json" > /dev/null
grep -q '^baselines (push.s deliveries of the measured phase): ' "$work/all.txt"
grep -q '^baselines (the star post.s deliveries): ' "$work/all.txt"

"$python" - "$work" <<'PY'
import json, math, sys
work = sys.argv[1]

def check_group_commit(j, expected):
    assert j["cluster"]["group_commit"] == expected, j["cluster"]
    for m in j["modes"]:
        same = m["baselines"]["same_commits"]
        assert same["group_commit"] == j["cluster"]["group_commit"], (m["feed"], same)
        per_post = m["baselines"]["one_txn_per_post"]
        assert per_post["group_commit"] is None and per_post["fsyncs"] == per_post["transactions"]
        assert same["rows"] == per_post["rows"] and same["files"] == 8, (same, per_post)
        assert same["interleaved_block"] == 20, same
        if expected == 0:
            # Nothing held, every post's deliveries synced before the next: the same
            # transactions as one txn per post, one fsync each.
            assert same["transactions"] == per_post["transactions"], (same, per_post)
            assert same["fsyncs"] == same["transactions"], same
        else:
            # Deliveries to other shards held back and applied together, one transaction
            # per shard for many posts: never more transactions than one per post makes.
            assert same["transactions"] < per_post["transactions"], (same, per_post)
            # A sync once N or more deliveries to other shards are applied and unsynced
            # (one txn per post makes one transaction per post and per such delivery).
            deferred_jobs = per_post["transactions"] - m["posts"]
            assert 1 <= same["sync_rounds"] <= math.ceil(deferred_jobs / expected) + 1, same
            # The author's own shard is synced every post (as the library's home commit
            # is); the other shards once per round: fewer fsyncs than one per transaction
            # of one txn per post.
            assert same["fsyncs"] < per_post["fsyncs"], (same, per_post)
    return j

everything = check_group_commit(json.load(open(f"{work}/all.json")), 1024)  # the default
check_group_commit(json.load(open(f"{work}/gc7.json")), 7)
check_group_commit(json.load(open(f"{work}/gc0.json")), 0)

push = everything["modes"][0]
assert push["feed"] == "push"
for m in everything["modes"]:
    b = m["baselines"]
    assert b["ceiling"]["rows"] == push["deliveries"], (m["feed"], b)
    assert b["ceiling"]["transactions"] == 1 and b["ceiling"]["fsyncs"] == 1
    assert b["ceiling"]["runs"] == 3, b["ceiling"]  # the fastest of three counts
    ratio = m["deliveries_per_s_against"]["ratios"]["ceiling"]
    assert 0 < ratio <= 1, f"{m['feed']}: deliveries/s is {ratio} of the ceiling"
    star = m["star"]
    assert star["fans"] == 400 and star["baselines"]["ceiling"]["rows"] == 401, star
    assert star["baselines"]["same_commits"]["interleaved_block"] == 0, star
    # Three posts, each followed by a run of the ceiling: the median post, the fastest run.
    assert star["posts"] == 3 and len(star["post_ms"]) == 3, star
    assert abs(star["ms"] - sorted(star["post_ms"])[1]) < 1e-6, star
    assert star["baselines"]["ceiling"]["runs"] == 3, star
    ratio = star["deliveries_per_s_against"]["ratios"]["ceiling"]
    assert 0 < ratio <= 1, f"{m['feed']}: the star post is {ratio} of its ceiling"
assert push["star"]["deliveries"] == 401, push["star"]  # its own row and one per fan
assert everything["modes"][1]["star"]["deliveries"] == 1  # pull: the author's own row
print("bench baselines: ok")
PY
