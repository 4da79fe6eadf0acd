#!/usr/bin/env python3
"""weibo-archive under SIGKILL, under concurrent writers, and twice at once (issue 15).

    archive_crash.py BIN_DIR [--kills N] [--writers] [--seed S]

Builds a cluster of 8 shards whose messages span two months (posts, comments, reposts,
likes, a follow graph), then:

  --kills N  SIGKILLs `weibo-archive --before T --batch 5` N times after a delay drawn
             from [0, 1.2 x the duration of a whole run] (a run that ended first starts
             over from the first state). After each kill, read directly (python sqlite3,
             read only) and through the commands:
               * every message is in its shard or its archive (never neither), and one in
                 both is a copy above the shard's archived_to mark (a batch whose shard
                 commit the kill prevented: still live, weibo(7) ARCHIVE) — never both
                 otherwise;
               * weibo-count finds every message, once;
               * each author's --posts timeline and a reader's home timeline hold
                 exactly the messages they held before any archive run, once each.
             Then a run to the end: nothing in both, everything older than T archived
             and the rest live, weibo-fsck --json ok.
  --writers  runs the archive while three writers post, comment, like and show (old and
             new messages alike); their writes succeed or are refused with archived
             (exit 1), nothing else; afterwards every message each writer saw created
             exists exactly once, weibo-fsck --json is ok. Then a second run started
             while a first one moves shards must be refused with archive_running.

The seed is printed; --seed (or WEIBO_CRASH_SEED) replays the same schedule.
Exit status 0 when every check passed, 1 otherwise.
"""

import argparse
import json
import os
import random
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import crash_test  # noqa: E402 (its check() and failure count)

check = crash_test.check
SHARDS = 8
USERS = 16
BEFORE = "2025-02-01T00:00:00Z"


class Data:
    def __init__(self, bin_dir, path):
        self.bin, self.path = bin_dir, path

    def run(self, *args, now=None, check_rc=True):
        env = dict(os.environ, WEIBO_DATA=self.path)
        env.pop("WEIBO_CONNECT", None)
        if now is not None:
            env["WEIBO_NOW"] = now
        p = subprocess.run([os.path.join(self.bin, "weibo-" + args[0])] + list(args[1:]),
                           env=env, capture_output=True, text=True)
        if check_rc and p.returncode != 0:
            raise RuntimeError("%s: exit %d: %s" % (" ".join(args), p.returncode, p.stderr))
        return p

    def json(self, *args, now=None):
        return json.loads(self.run(*args, "--json", now=now).stdout)

    def ids(self, table_file, where=""):
        db = sqlite3.connect("file:%s?mode=ro" % table_file, uri=True)
        try:
            return {r[0] for r in db.execute("SELECT msg_id FROM msg_info " + where)}
        finally:
            db.close()

    def state(self):
        """Per shard: (live ids, archived ids, archived_to mark)."""
        out = []
        for i in range(SHARDS):
            live = self.ids(os.path.join(self.path, "shard-%02d.db" % i))
            arch_path = os.path.join(self.path, "archive-%02d.db" % i)
            archived, mark = set(), 0
            if os.path.exists(arch_path):
                archived = self.ids(arch_path)
            db = sqlite3.connect("file:%s?mode=ro" % os.path.join(self.path, "shard-%02d.db" % i),
                                 uri=True)
            row = db.execute("SELECT value FROM meta WHERE key = 'archived_to'").fetchone()
            db.close()
            if row:
                mark = int(row[0])
            out.append((live, archived, mark))
        return out


def minute(n):
    """2025-01-01 plus n hours: the messages span about two months."""
    t = time.gmtime(1735689600 + n * 3600)
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", t)


def build(data, rng):
    data.run("init", "--shards", str(SHARDS), now=minute(0))
    for u in range(1, USERS + 1):
        data.run("user", "add", "u%d" % u, now=minute(0))
    edges = "".join("%d %d\n" % (u, v) for u in range(1, USERS + 1)
                    for v in rng.sample(range(1, USERS + 1), 5) if u != v)
    p = subprocess.run([os.path.join(data.bin, "weibo-import"), "-"], input=edges, text=True,
                       env=dict(os.environ, WEIBO_DATA=data.path, WEIBO_NOW=minute(0)),
                       capture_output=True)
    if p.returncode != 0:
        raise RuntimeError("import: " + p.stderr)
    msgs = []
    for n in range(1, 1400, 7):  # 200 messages, one every 7 hours
        u = rng.randint(1, USERS)
        kind = rng.random()
        if msgs and kind < 0.25:
            r = data.json("comment", "-u", str(u), rng.choice(msgs), "c%d" % n, now=minute(n))
        elif msgs and kind < 0.4:
            r = data.json("repost", "-u", str(u), rng.choice(msgs), "r%d" % n, now=minute(n))
        else:
            r = data.json("post", "-u", str(u), "p%d" % n, now=minute(n))
        msgs.append(r["id"])
        if kind > 0.85:
            data.run("like", "-u", str(rng.randint(1, USERS)), rng.choice(msgs), now=minute(n),
                     check_rc=False)  # already_liked now and then
    return msgs


def views(data, msgs):
    """What the commands show: every message's counts, posts timelines, two home timelines."""
    counts = {}
    for i in range(0, len(msgs), 200):
        for c in data.json("count", *msgs[i:i + 200]):
            check(c["id"] not in counts, "count listed %s twice" % c["id"])
            counts[c["id"]] = c["counts"]
    posts = {u: [m["id"] for m in data.json("timeline", "-u", str(u), "--posts", "--count", "200")]
             for u in (1, 2, 3)}
    homes = {u: [m["id"] for m in data.json("timeline", "-u", str(u), "--count", "200")]
             for u in (4, 5)}
    return counts, posts, homes


def check_placement(data, all_ids, label):
    """The number of messages found in transit (in both, above their shard's mark)."""
    seen, transit = set(), 0
    for i, (live, archived, mark) in enumerate(data.state()):
        transit += len(live & archived)
        for m in live & archived:
            check(m >= mark, "%s: message %d is live and archived below shard %d's mark %d"
                  % (label, m, i, mark))
        seen |= live | archived
    missing = all_ids - seen
    check(not missing, "%s: %d message(s) neither live nor archived: %s"
          % (label, len(missing), sorted(missing)[:5]))
    return transit


def kills(args, rng, bin_dir, work):
    first = Data(bin_dir, os.path.join(work, "first"))
    msgs = build(first, rng)
    all_ids = {int(m) for m in msgs}
    expected = views(first, msgs)
    data = Data(bin_dir, os.path.join(work, "data"))

    def fresh():
        shutil.rmtree(data.path, ignore_errors=True)
        shutil.copytree(first.path, data.path)

    fresh()
    start = time.time()
    data.run("archive", "--before", BEFORE, "--batch", "5")
    duration = time.time() - start
    print("a whole run: %.2f s" % duration, flush=True)
    fresh()
    cmd = [os.path.join(bin_dir, "weibo-archive"), "--before", BEFORE, "--batch", "5"]
    env = dict(os.environ, WEIBO_DATA=data.path)
    env.pop("WEIBO_CONNECT", None)
    killed = transit = 0
    for k in range(args.kills):
        p = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        time.sleep(rng.uniform(0, 1.2 * duration))
        ended = p.poll() is not None
        if not ended:
            p.send_signal(signal.SIGKILL)
        p.wait()
        label = "kill %d" % (k + 1)
        killed += 0 if ended else 1
        transit += check_placement(data, all_ids, label)
        got = views(data, msgs)
        check(got[0] == expected[0], label + ": counts differ from before the archive")
        check(got[1] == expected[1], label + ": a --posts timeline differs")
        check(got[2] == expected[2], label + ": a home timeline differs")
        if ended:
            fresh()  # it finished: kill the next run from the start again
    print("%d of %d runs killed before their end; %d message(s) found in transit" %
          (killed, args.kills, transit), flush=True)
    data.run("archive", "--before", BEFORE, "--batch", "5")
    before_id = int(json.load(open(os.path.join(data.path, "archive.json")))["before_id"])
    for i, (live, archived, mark) in enumerate(data.state()):
        check(not (live & archived), "after the last run: shard %d has messages in both" % i)
        check(all(m < before_id for m in archived), "shard %d archived a newer message" % i)
        check(all(m >= before_id for m in live), "shard %d kept an older message live" % i)
    check(views(data, msgs) == expected, "after the last run: the views differ")
    fsck = json.loads(data.run("fsck", "--json", check_rc=False).stdout)
    check(fsck["ok"], "weibo-fsck after the last run: %s" % fsck["violations"][:3])


def writers(args, rng, bin_dir, work):
    data = Data(bin_dir, os.path.join(work, "data"))
    msgs = build(data, rng)
    shutil.copytree(data.path, os.path.join(work, "first"))
    env = dict(os.environ, WEIBO_DATA=data.path)
    env.pop("WEIBO_CONNECT", None)
    script = r'''
import json, os, random, subprocess, sys
bin_dir, seed, out = sys.argv[1], int(sys.argv[2]), sys.argv[3]
msgs = sys.argv[4:]
rng = random.Random(seed)
made, bad = [], []
for n in range(40):
    u = str(rng.randint(1, 16))
    m = rng.choice(msgs)
    op = rng.choice(["post", "comment", "repost", "like", "show"])
    argv = {"post": ["post", "-u", u, "w%d" % n], "comment": ["comment", "-u", u, m, "w%d" % n],
            "repost": ["repost", "-u", u, m], "like": ["like", "-u", u, m], "show": ["show", m]}[op]
    p = subprocess.run([os.path.join(bin_dir, "weibo-" + argv[0])] + argv[1:] + ["--json"],
                       capture_output=True, text=True)
    if p.returncode == 0 and op in ("post", "comment", "repost"):
        made.append(json.loads(p.stdout)["id"])
    elif p.returncode != 0 and not ('"archived"' in p.stderr or '"already_liked"' in p.stderr):
        bad.append("%s: %d %s" % (" ".join(argv), p.returncode, p.stderr.strip()))
json.dump({"made": made, "bad": bad}, open(out, "w"))
'''
    procs = []
    for w in range(3):
        out = os.path.join(work, "writer%d.json" % w)
        procs.append((out, subprocess.Popen(
            [sys.executable, "-c", script, bin_dir, str(rng.randrange(1 << 30)), out] + msgs,
            env=env)))
    time.sleep(0.3)  # the writers are going
    r = data.run("archive", "--before", BEFORE, "--batch", "3")
    print(r.stdout.strip(), flush=True)
    made = []
    for out, p in procs:
        p.wait()
        result = json.load(open(out))
        made += result["made"]
        for line in result["bad"]:
            check(False, "a writer's command failed: " + line)
    all_ids = {int(m) for m in msgs + made}
    check_placement(data, all_ids, "after writers")
    for i, (live, archived, mark) in enumerate(data.state()):
        check(not (live & archived), "after writers: shard %d has messages in both" % i)
    fsck = json.loads(data.run("fsck", "--json", check_rc=False).stdout)
    check(fsck["ok"], "weibo-fsck after writers: %s" % fsck["violations"][:3])
    print("%d messages written during the run" % len(made), flush=True)
    # Twice at once: the second run, started while the first holds its locks, is refused.
    for attempt in range(10):
        second = Data(bin_dir, os.path.join(work, "second%d" % attempt))
        shutil.copytree(os.path.join(work, "first"), second.path)
        env2 = dict(env, WEIBO_DATA=second.path)
        first_run = subprocess.Popen(
            [os.path.join(bin_dir, "weibo-archive"), "--before", BEFORE, "--batch", "1"],
            env=env2, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        while first_run.poll() is None and not os.path.exists(
                os.path.join(second.path, "archive-00.db")):
            time.sleep(0.005)
        p = second.run("archive", "--before", BEFORE, check_rc=False)
        still = first_run.poll() is None
        first_run.wait()
        if not still:
            continue  # the first one ended too soon: try again
        check(p.returncode == 1 and "archive_running" in p.stderr,
              "a second run at once: exit %d, %s" % (p.returncode, p.stderr.strip()))
        check(first_run.returncode == 0, "the first run failed beside the second")
        break
    else:
        check(False, "the first run always ended before the second started")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("bin_dir")
    ap.add_argument("--kills", type=int, default=0)
    ap.add_argument("--writers", action="store_true")
    ap.add_argument("--seed", type=int,
                    default=int(os.environ.get("WEIBO_CRASH_SEED", random.randrange(1 << 30))))
    args = ap.parse_args()
    print("seed %d" % args.seed, flush=True)
    rng = random.Random(args.seed)
    base = "/dev/shm" if os.access("/dev/shm", os.W_OK) else None
    work = tempfile.mkdtemp(prefix="weibo-archive-crash.", dir=base)
    try:
        if args.kills:
            kills(args, rng, os.path.abspath(args.bin_dir), work)
        if args.writers:
            writers(args, rng, os.path.abspath(args.bin_dir), work)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print("%d failure(s)" % crash_test.failures, flush=True)
    return 1 if crash_test.failures else 0


if __name__ == "__main__":
    sys.exit(main())
