#!/usr/bin/env python3
"""Crash tests (SPEC §5: "a crash at any point loses nothing and duplicates nothing").

    crash_test.py BIN_DIR [--feeds push,hybrid,pull] [--writer N] [--worker N]
                  [--daemon N] [--node N] [--followers N] [--seed S]

For each feed mode, a fresh 16-shard cluster whose author (user 1) has --followers fans
spread over every shard, then three kinds of SIGKILL at random points:

  writer  weibo-post / weibo-repost / weibo-delete by the author (a fan-out, or a purge,
          to every follower) and weibo-follow / weibo-unfollow of the author by a few
          "churn" users (an inbox merge), killed after a delay drawn uniformly from
          [0, 1.2 x the measured duration of that command]: before its commit, in the
          middle of its fan-out, or while it marks its jobs done. Several kills in a row
          run without a worker in between, so a command may meet the pending jobs of a
          killed one.
  worker  weibo-worker draining a backlog made with --async, killed the same way
          (the delay drawn from 1.2 x the measured time of draining such a backlog).
  daemon  one weibod serving posts, reposts and deletes from three --connect clients at
          once, killed the same way, then restarted.
  node    (--node N) a 3-node weibo-cluster: three clients write through the broker, one
          node chosen at random is killed the same way, its clients get unavailable (exit
          5) or their reply, and `weibo-cluster up` restarts it before the next kill; jobs
          bound for its shards wait in their outboxes meanwhile. After the last kill the
          cluster is stopped and checked like the others.

After each batch of kills: `weibo-worker --once` (through the restarted daemon for the
daemon batch), then `weibo-fsck --json` must report ok and no violation, and the shards
are read directly (python sqlite3, read-only) to check, independently of fsck:

  * every outbox job of every shard is done (state 1);
  * every post and repost of the author present in msg_info is in every stable
    follower's inbox exactly once (push and hybrid), in none (pull); no inbox holds a
    row of a message that is not in msg_info; no (reader, message) pair appears twice;
  * every post or repost whose command printed its id (it returned before the kill)
    still exists, unless a delete of it was started since; every delete that returned
    really removed its message;
  * the author's msg_count and fans_count, and the reposted message's transfer counts,
    equal a recount of their rows.

The seed is printed first; --seed (or WEIBO_CRASH_SEED) reruns the same kill schedule.
Exit status 0 when every check passed, 1 otherwise.
"""

import argparse
import json
import os
import random
import shutil
import socket
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time

SHARDS = 16
AUTHOR, OTHER = 1, 2  # OTHER's message is what the author reposts
CHURN = list(range(3, 9))  # follow and unfollow the author during the test
FIRST_FAN = 9

failures = 0


def check(ok, what):
    global failures
    if not ok:
        failures += 1
        print("FAIL " + what, flush=True)
    return ok


class Cluster:
    def __init__(self, bin_dir, data, feed, followers, durability="full"):
        self.bin, self.data, self.feed, self.followers = bin_dir, data, feed, followers
        self.durability = durability  # cluster.json's: full or normal (weibo-init(1))
        self.fans = list(range(FIRST_FAN, FIRST_FAN + followers))
        self.other_fans = self.fans[::4]  # the stable followers of OTHER
        self.committed = {}  # msg id -> kind, for every write that printed its id
        self.delete_started = set()  # ids a delete was started on (it may have committed)
        self.deleted = set()  # ids a delete returned for
        self.reposted = None  # OTHER's message, reposted by the author
        self.kill_points = {}  # where the kills landed (classify)

    def cmd(self, name, *args, connect=None, timeout=4000):
        argv = [os.path.join(self.bin, name), "--data", self.data]
        if connect:
            argv += ["--connect", connect, "--timeout", str(timeout)]
        return argv + list(args)

    def run(self, name, *args, connect=None, want=0, timeout=4000):
        p = subprocess.run(self.cmd(name, *args, connect=connect, timeout=timeout),
                           capture_output=True, text=True)
        if want is not None and p.returncode != want:
            raise RuntimeError("%s %s exited %d: %s" % (name, " ".join(args), p.returncode,
                                                          p.stderr.strip()))
        return p

    # -- direct reads of the shard files (read-only, so this reader never checkpoints)
    def shard(self, i):
        path = os.path.join(self.data, "shard-%02d.db" % i)
        return sqlite3.connect("file:%s?mode=ro" % path, uri=True, timeout=30)

    def query_all(self, sql, args=()):
        rows = []
        for i in range(SHARDS):
            db = self.shard(i)
            rows += db.execute(sql, args).fetchall()
            db.close()
        return rows

    def query_shard(self, i, sql, args=()):
        db = self.shard(i)
        rows = db.execute(sql, args).fetchall()
        db.close()
        return rows

    def pending_jobs(self):
        return sum(r[0] for r in self.query_all("SELECT count(*) FROM outbox WHERE state != 1"))

    def applied_not_done(self):
        """Pending jobs their target already applied: killed between apply and done mark."""
        n = 0
        for i in range(SHARDS):
            for job, target in self.query_shard(i, "SELECT job_id, target_shard FROM outbox "
                                                "WHERE state = 0"):
                n += len(self.query_shard(target, "SELECT 1 FROM job_applied WHERE job_id = ?",
                                          ((i << 40) | job,)))
        return n

    def author_msgs(self):
        return [r[0] for r in self.query_shard(
            AUTHOR % SHARDS, "SELECT msg_id FROM msg_info WHERE user_id = ?", (AUTHOR,))]

    def follows_author(self, user):
        return bool(self.query_shard(user % SHARDS, "SELECT 1 FROM user_relation WHERE "
                                     "user_id = ? AND type = 1 AND follow_id = ?", (user, AUTHOR)))

    # -- setup: users and follows through weibo-bench's replay (fast, synchronous=OFF)
    def make_graph(self, work, feed="push"):
        """The users and follows, through weibo-bench's replay (fast: synchronous=OFF).
        Returns the cluster's directory. No post is made, so a push graph suits push and
        pull; hybrid needs its own, as its follows fill the authors' active-fan lists."""
        trace = os.path.join(work, "setup.jsonl")
        with open(trace, "w") as f:
            for name in ["author", "other"] + ["churn%d" % u for u in CHURN] + \
                    ["fan%d" % u for u in self.fans]:
                f.write(json.dumps({"op": "user_add", "args": {"name": name}}) + "\n")
            for u in self.fans:
                f.write(json.dumps({"op": "follow", "args": {"user": str(u), "target": "1"}}) + "\n")
            for u in self.other_fans:
                f.write(json.dumps({"op": "follow", "args": {"user": str(u), "target": "2"}}) + "\n")
        root = os.path.join(work, "bench")
        p = subprocess.run([os.path.join(self.bin, "weibo-bench"), "replay", "--feed", feed,
                            "--shards", str(SHARDS), "--no-baselines",
                            "--celebrity-threshold", "10000", "--inbox-cap", "800",
                            "--data", root, trace], capture_output=True, text=True)
        if p.returncode != 0:
            raise RuntimeError("weibo-bench replay: " + p.stderr)
        return os.path.join(root, feed)

    def setup(self, work, template=None):
        """A copy of the template graph (made here when there is none) in this feed mode."""
        self.data = os.path.join(work, "shards")
        if self.feed == "hybrid":  # its own graph: the follows fill the active-fan lists
            template = self.make_graph(work, "hybrid")
        shutil.copytree(template or self.make_graph(work), self.data)
        config = os.path.join(self.data, "cluster.json")
        with open(config) as f:
            j = json.load(f)
        j["feed"] = self.feed
        j["durability"] = self.durability
        with open(config, "w") as f:
            json.dump(j, f, indent=2)
        out = self.run("weibo-post", "--json", "-u", str(OTHER), "the message the author reposts")
        self.reposted = int(json.loads(out.stdout)["id"])
        for i in range(3):
            self.post_and_record("weibo-post", "--json", "-u", str(AUTHOR), "setup post %d" % i)
        check(self.fans_count() == self.followers, "setup: the author has %d fans" % self.followers)
        pulled = self.query_shard(AUTHOR % SHARDS, "SELECT pulled FROM user_info WHERE user_id = ?",
                                  (AUTHOR,))[0][0]
        check(pulled == 0, "setup: the author is pushed in hybrid mode (below the threshold)")

    def fans_count(self):
        return self.query_shard(AUTHOR % SHARDS, "SELECT fans_count FROM user_info WHERE user_id = ?",
                                (AUTHOR,))[0][0]

    def post_and_record(self, *argv):
        out = self.run(*argv)
        msg = int(json.loads(out.stdout)["id"])
        self.committed[msg] = argv[0]
        return msg

    def record_output(self, argv, rc, stdout):
        """A command that returned before the kill: what it printed is committed."""
        if rc != 0:
            return
        name = os.path.basename(argv[0])
        if name in ("weibo-post", "weibo-repost"):
            self.committed[int(json.loads(stdout)["id"])] = name
        elif name == "weibo-delete":
            self.deleted.add(int(argv[-1]))

    # -- the checks after a batch
    def verify(self, label, connect=None):
        t0 = time.monotonic()
        # Through the daemon: long attempts, as fsck of a big cluster under ASan takes seconds.
        w = self.run("weibo-worker", "--once", "--json", connect=connect, want=None,
                     timeout=240000)
        check(w.returncode == 0, "%s: weibo-worker --once exited %d: %s" %
              (label, w.returncode, w.stderr.strip()))
        f = self.run("weibo-fsck", "--json", connect=connect, want=None, timeout=240000)
        report = json.loads(f.stdout) if f.stdout.strip() else {}
        violations = report.get("violations", ["no report: " + f.stderr])
        check(f.returncode == 0 and report.get("ok") is True and violations == [],
              "%s: fsck (exit %d) reports %d violation(s): %s" %
              (label, f.returncode, len(violations), json.dumps(violations[:10])))

        check(self.pending_jobs() == 0, "%s: outbox jobs not done" % label)
        msgs = {}  # msg id -> (author, type)
        for m, u, t in self.query_all("SELECT msg_id, user_id, type FROM msg_info"):
            msgs[m] = (u, t)
        inbox = {}  # msg id -> rows in stable followers' inboxes
        pairs = total = 0
        orphans = []
        for i in range(SHARDS):
            db = self.shard(i)
            for m, n in db.execute("SELECT msg_id, count(*) FROM msg_index WHERE user_id >= ? "
                                   "GROUP BY msg_id", (FIRST_FAN,)):
                inbox[m] = inbox.get(m, 0) + n
            for (m,) in db.execute("SELECT DISTINCT msg_id FROM msg_index"):
                if m not in msgs:
                    orphans.append(m)
            total += db.execute("SELECT count(*) FROM msg_index").fetchone()[0]
            pairs += db.execute("SELECT count(*) FROM (SELECT DISTINCT user_id, msg_id "
                                "FROM msg_index)").fetchone()[0]
            db.close()
        check(total == pairs, "%s: %d duplicate inbox rows" % (label, total - pairs))
        check(not orphans, "%s: inbox rows of %d deleted messages, e.g. %s" %
              (label, len(orphans), orphans[:3]))
        pushed = self.feed != "pull"
        wrong = []
        for m, (u, t) in msgs.items():
            if u not in (AUTHOR, OTHER) or t == 1:
                continue
            want = (self.followers if u == AUTHOR else len(self.other_fans)) if pushed else 0
            if self.feed == "hybrid":
                # Pushed only to the fans on the author's active list when it was posted
                # (the list is LRU: churning follows push stable fans off it), the others
                # pull it. fsck checks that every fan on the list has it; here: at most
                # once each (the duplicate check above) and never more than the fans.
                if inbox.get(m, 0) > want:
                    wrong.append((m, inbox.get(m, 0), want))
            elif inbox.get(m, 0) != want:
                wrong.append((m, inbox.get(m, 0), want))
        check(not wrong, "%s: %d message(s) not in every stable follower's inbox exactly once "
              "(msg, rows, expected): %s" % (label, len(wrong), wrong[:5]))
        lost = [m for m in self.committed if m not in msgs and m not in self.delete_started]
        check(not lost, "%s: %d committed message(s) lost: %s" % (label, len(lost), lost[:5]))
        undead = [m for m in self.deleted if m in msgs]
        check(not undead, "%s: deleted message(s) still there: %s" % (label, undead[:5]))

        own = sum(1 for (u, _) in msgs.values() if u == AUTHOR)
        churn_following = sum(1 for u in CHURN if self.follows_author(u))
        row = self.query_shard(AUTHOR % SHARDS, "SELECT msg_count, fans_count FROM user_info "
                               "WHERE user_id = ?", (AUTHOR,))[0]
        fan_rows = self.query_shard(AUTHOR % SHARDS, "SELECT count(*) FROM user_relation WHERE "
                                    "user_id = ? AND type = 0", (AUTHOR,))[0][0]
        check(row == (own, self.followers + churn_following) and fan_rows == row[1],
              "%s: author's msg_count/fans_count %s, rows say %d/%d (fan rows %d)" %
              (label, row, own, self.followers + churn_following, fan_rows))
        reposts = sum(1 for (u, t) in msgs.values() if u == AUTHOR and t == 2)
        rel = self.query_shard(self.reposted % SHARDS, "SELECT count(*) FROM msg_msg_relation "
                               "WHERE referenced_msg_id = ? AND type = 2", (self.reposted,))[0][0]
        counter = self.query_shard(self.reposted % SHARDS, "SELECT transfer_count, "
                                   "transferred_count FROM msg_counter WHERE msg_id = ?",
                                   (self.reposted,))[0]
        check(rel == reposts and counter[0] == reposts and counter[1] >= reposts,
              "%s: reposted message counts %s, relation rows %d, reposts %d" %
              (label, counter, rel, reposts))
        print("  %s: fsck ok=%s, %d violations; %d messages, %d inbox rows, %d committed ids "
              "checked, %d deletes checked (%.1f s)" %
              (label, report.get("ok"), len(violations), len(msgs), total, len(self.committed),
               len(self.deleted), time.monotonic() - t0), flush=True)

    def state(self):
        """What a write changes: the author's messages, churn follows, pending jobs."""
        return (len(self.author_msgs()), tuple(self.follows_author(u) for u in CHURN),
                self.pending_jobs())

    def classify(self, phase, before, exited):
        """Where a kill landed, from what changed (jobs of earlier kills may be pending)."""
        msgs, follows, pending = self.state()
        if exited:
            point = "exited before the kill"
        elif phase == "worker":
            point = ("before its first job" if pending == before[2] else
                     "after the last job" if pending == 0 else "mid drain")
            if self.applied_not_done() > 0:
                point += ", one applied but not marked done"
        elif pending > before[2]:
            point = "after the commit, jobs pending (mid fan-out)"
            if self.applied_not_done() > 0:
                point += ", one applied but not marked done"
        elif (msgs, follows) == before[:2]:
            point = "before the commit"
        else:
            point = "after the last job was done"
        key = phase + ": " + point
        self.kill_points[key] = self.kill_points.get(key, 0) + 1


def timed(argv):
    t0 = time.monotonic()
    p = subprocess.run(argv, capture_output=True, text=True)
    if p.returncode != 0:
        raise RuntimeError("%s exited %d: %s" % (argv, p.returncode, p.stderr))
    return time.monotonic() - t0, p


def kill_after(argv, delay):
    """Starts argv, SIGKILLs it after delay seconds; (exited, returncode, stdout, seconds)."""
    t0 = time.monotonic()
    p = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        p.wait(timeout=delay)
    except subprocess.TimeoutExpired:
        p.send_signal(signal.SIGKILL)
        p.wait()
        p.stdout.close()
        p.stderr.close()
        return False, None, "", None
    took = time.monotonic() - t0
    out = p.stdout.read()
    p.stdout.close()
    p.stderr.close()
    return True, p.returncode, out, took


def writer_argv(c, rng, n):
    """One write by the author or a churn user, and what it may remove."""
    kind = rng.choices(["post", "repost", "delete", "follow"], [4, 2, 3, 2])[0]
    if kind == "delete":
        live = sorted(set(c.author_msgs()) - c.delete_started)
        if live:
            msg = rng.choice(live)
            c.delete_started.add(msg)
            return kind, c.cmd("weibo-delete", "-u", str(AUTHOR), str(msg))
        kind = "post"
    if kind == "repost":
        return kind, c.cmd("weibo-repost", "--json", "-u", str(AUTHOR), str(c.reposted),
                           "crash repost %d" % n)
    if kind == "follow":
        user = rng.choice(CHURN)
        verb = "weibo-unfollow" if c.follows_author(user) else "weibo-follow"
        return kind, c.cmd(verb, "-u", str(user), str(AUTHOR))
    return kind, c.cmd("weibo-post", "--json", "-u", str(AUTHOR), "crash post %d" % n)


def writer_kills(c, rng, count, batch):
    # The duration of each kind of command, measured on this machine and build: the
    # median of three runs, so one slow run (a shared machine) does not stretch the range.
    runs = {"post": [], "repost": [], "delete": [], "follow": []}
    for i in range(3):
        d, p = timed(c.cmd("weibo-post", "--json", "-u", str(AUTHOR), "measured post %d" % i))
        runs["post"].append(d)
        c.committed[int(json.loads(p.stdout)["id"])] = "weibo-post"
        d, p = timed(c.cmd("weibo-repost", "--json", "-u", str(AUTHOR), str(c.reposted),
                           "measured repost %d" % i))
        runs["repost"].append(d)
        c.committed[int(json.loads(p.stdout)["id"])] = "weibo-repost"
        victim = max(set(c.author_msgs()) - c.delete_started)
        c.delete_started.add(victim)
        d, _ = timed(c.cmd("weibo-delete", "-u", str(AUTHOR), str(victim)))
        runs["delete"].append(d)
        c.deleted.add(victim)
        verb = "weibo-unfollow" if c.follows_author(CHURN[0]) else "weibo-follow"
        d, _ = timed(c.cmd(verb, "-u", str(CHURN[0]), str(AUTHOR)))
        runs["follow"].append(d)
    # A command that finishes before its kill adds its time, and the range follows the
    # median of the last five: a first run slowed by a cold cache or a busy machine does
    # not leave most kills landing after the command has already exited.
    def duration(kind):
        return sorted(runs[kind][-5:])[len(runs[kind][-5:]) // 2]
    durations = {k: duration(k) for k in runs}
    print("  measured: " + ", ".join("%s %.3f s" % kv for kv in sorted(durations.items())),
          flush=True)
    for n in range(count):
        kind, argv = writer_argv(c, rng, n)
        delay = rng.uniform(0, 1.2 * duration(kind))
        before = c.state()
        exited, rc, out, took = kill_after(argv, delay)
        if exited:
            c.record_output(argv, rc, out)
            if rc == 0:
                runs[kind].append(took)
        c.classify("writer", before, exited)
        if (n + 1) % batch == 0 or n + 1 == count:
            c.verify("writer kills %d-%d" % (n + 2 - min(batch, n + 1), n + 1))


def worker_kills(c, rng, count):
    def backlog(n):
        for i in range(2):
            c.post_and_record("weibo-post", "--async", "--json", "-u", str(AUTHOR),
                              "backlog %d.%d" % (n, i))
        live = sorted(set(c.author_msgs()) - c.delete_started)
        if live:
            msg = rng.choice(live)
            c.delete_started.add(msg)
            c.run("weibo-delete", "--async", "-u", str(AUTHOR), str(msg))
            c.deleted.add(msg)  # its msg_info row goes in the command's own transaction
    backlog(-1)
    duration, _ = timed(c.cmd("weibo-worker", "--once"))
    print("  measured: draining a backlog of 2 posts and a delete takes %.3f s" % duration,
          flush=True)
    for n in range(count):
        backlog(n)
        before = c.state()
        exited, _, _, _ = kill_after(c.cmd("weibo-worker", "--interval", "20"),
                                  rng.uniform(0, 1.2 * duration))
        c.classify("worker", before, exited)
    c.verify("worker kills 1-%d" % count)


class Daemon:
    def __init__(self, c, work):
        self.c, self.work, self.proc, self.endpoint = c, work, None, None

    def start(self):
        ready = os.path.join(self.work, "ready")
        with open(ready, "w") as out, open(os.path.join(self.work, "weibod.log"), "a") as err:
            self.proc = subprocess.Popen([os.path.join(self.c.bin, "weibod"), "--data",
                                          self.c.data, "--bind", "tcp://127.0.0.1:*"],
                                         stdout=out, stderr=err, stdin=subprocess.DEVNULL)
        for _ in range(600):
            with open(ready) as f:
                line = f.readline().strip()
            if line:
                self.endpoint = line
                return
            if self.proc.poll() is not None:
                raise RuntimeError("weibod exited %d at start" % self.proc.returncode)
            time.sleep(0.02)
        raise RuntimeError("weibod did not become ready")

    def stop(self):
        self.proc.send_signal(signal.SIGTERM)
        return self.proc.wait(timeout=30)


def daemon_kills(c, rng, count, work):
    d = Daemon(c, work)
    d.start()
    clients = lambda n: [  # noqa: E731
        c.cmd("weibo-post", "--json", "-u", str(AUTHOR), "daemon post %d" % n, connect=d.endpoint),
        c.cmd("weibo-repost", "--json", "-u", str(AUTHOR), str(c.reposted), "daemon repost %d" % n,
              connect=d.endpoint),
        c.cmd("weibo-follow", "-u", str(CHURN[-1]), str(AUTHOR), connect=d.endpoint)
        if not c.follows_author(CHURN[-1]) else
        c.cmd("weibo-unfollow", "-u", str(CHURN[-1]), str(AUTHOR), connect=d.endpoint),
    ]
    t0 = time.monotonic()
    procs = [subprocess.Popen(a, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for a in clients(-1)]
    for p in procs:
        out, err = p.communicate()
        check(p.returncode == 0, "daemon: a client exited %d: %s" % (p.returncode, err))
        if p.args[0].endswith(("weibo-post", "weibo-repost")):
            c.committed[int(json.loads(out)["id"])] = "daemon"
    duration = time.monotonic() - t0
    print("  measured: three concurrent --connect writes take %.3f s" % duration, flush=True)
    for n in range(count):
        before = c.state()
        argvs = clients(n)
        procs = [subprocess.Popen(a, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
                 for a in argvs]
        time.sleep(rng.uniform(0, 1.2 * duration))
        d.proc.send_signal(signal.SIGKILL)
        d.proc.wait()
        exited = 0
        for argv, p in zip(argvs, procs):
            if p.poll() is None:  # waiting for a reply that will never come
                p.send_signal(signal.SIGKILL)
                p.communicate()
                continue
            out, _ = p.communicate()
            exited += 1
            if p.returncode == 0 and os.path.basename(argv[0]) in ("weibo-post", "weibo-repost"):
                c.committed[int(json.loads(out)["id"])] = "daemon"
        c.classify("daemon", before, exited == len(argvs))
        d.start()
    c.verify("daemon kills 1-%d" % count, connect=d.endpoint)
    check(d.stop() == 0, "weibod: exit status after SIGTERM")


def free_base_port(k):
    """A base port P with P .. P+K+1 free on loopback, below the ephemeral range."""
    lo = 32768
    try:
        lo = int(open("/proc/sys/net/ipv4/ip_local_port_range").read().split()[0])
    except (OSError, ValueError, IndexError):
        pass
    for _ in range(200):
        base = random.randrange(10000, max(10001, lo - k - 2))
        socks = []
        try:
            for port in range(base, base + k + 2):
                sock = socket.socket()
                socks.append(sock)
                sock.bind(("127.0.0.1", port))
        except OSError:
            continue
        finally:
            for sock in socks:
                sock.close()
        return base
    raise RuntimeError("no free ports")


class LaptopCluster:
    """weibo-cluster(1) on the test's shards: a broker and NODES weibod nodes."""

    NODES = 3

    def __init__(self, c):
        self.c, self.port, self.broker = c, free_base_port(self.NODES), None

    def up(self):
        out = self.c.run("weibo-cluster", "up", "--nodes", str(self.NODES), "--base-port",
                         str(self.port), timeout=None)
        self.broker = out.stdout.strip().splitlines()[-1]

    def pids(self):
        status = json.loads(self.c.run("weibo-cluster", "status", "--json", want=None).stdout)
        return {n["node"]: n["pid"] for n in status["nodes"] if n.get("pid")}

    def down(self):
        return self.c.run("weibo-cluster", "down", want=None).returncode


def node_kills(c, rng, count):
    """SIGKILL one node of a 3-node cluster while three clients write through the broker.

    A client whose request was at the killed node gets unavailable (exit 5) or no reply;
    what it wrote may or may not have committed, and either is fine. What a client printed
    is committed. The node is restarted (weibo-cluster up starts only the dead one) before
    the next kill, so jobs bound for its shards wait in their outboxes and are delivered
    when it is back. After the last kill the cluster is stopped and checked embedded.
    """
    lc = LaptopCluster(c)
    lc.up()
    clients = lambda n: [  # noqa: E731
        c.cmd("weibo-post", "--json", "-u", str(AUTHOR), "node post %d" % n,
              connect=lc.broker, timeout=3000),
        c.cmd("weibo-repost", "--json", "-u", str(AUTHOR), str(c.reposted), "node repost %d" % n,
              connect=lc.broker, timeout=3000),
        c.cmd("weibo-follow", "-u", str(CHURN[-1]), str(AUTHOR), connect=lc.broker, timeout=3000)
        if not c.follows_author(CHURN[-1]) else
        c.cmd("weibo-unfollow", "-u", str(CHURN[-1]), str(AUTHOR), connect=lc.broker,
              timeout=3000),
    ]
    try:
        t0 = time.monotonic()
        for argv in clients(-1):
            p = subprocess.run(argv, capture_output=True, text=True)
            check(p.returncode == 0, "node: a client exited %d: %s" % (p.returncode, p.stderr))
            c.record_output(argv, p.returncode, p.stdout)
        duration = time.monotonic() - t0
        print("  measured: three --connect writes through the broker take %.3f s" % duration,
              flush=True)
        for n in range(count):
            before = c.state()
            argvs = clients(n)
            procs = [subprocess.Popen(a, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                      text=True) for a in argvs]
            time.sleep(rng.uniform(0, duration))
            pids = lc.pids()
            victim = sorted(pids)[rng.randrange(len(pids))]
            all_exited = all(p.poll() is not None for p in procs)
            os.kill(pids[victim], signal.SIGKILL)
            exited = 0
            for argv, p in zip(argvs, procs):
                try:
                    out, err = p.communicate(timeout=30)
                except subprocess.TimeoutExpired:
                    p.kill()
                    p.communicate()
                    check(False, "node: a client hung past its timeout: %s" % argv)
                    continue
                exited += 1
                check(p.returncode in (0, 5), "node: a client exited %d (want 0 or 5): %s" %
                      (p.returncode, err.strip()))
                c.record_output(argv, p.returncode, out)
            c.classify("node", before, all_exited)
            lc.up()  # restarts the killed node; its pending jobs are delivered again
    finally:
        check(lc.down() == 0, "node: weibo-cluster down")
    c.verify("node kills 1-%d" % count)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("bin")
    ap.add_argument("--feeds", default="push,hybrid,pull")
    ap.add_argument("--writer", type=int, default=50)
    ap.add_argument("--worker", type=int, default=10)
    ap.add_argument("--daemon", type=int, default=10)
    ap.add_argument("--node", type=int, default=0)
    ap.add_argument("--durability", choices=["full", "normal"], default="full",
                    help="cluster.json's durability for every mode (SIGKILL loses nothing "
                         "under either)")
    ap.add_argument("--batch", type=int, default=25)
    ap.add_argument("--followers", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=int(os.environ.get("WEIBO_CRASH_SEED", "0")))
    ap.add_argument("--make-template", metavar="DIR",
                    help="only build the users and follows into DIR (a ctest fixture)")
    ap.add_argument("--template", metavar="DIR", help="start each mode from a copy of DIR")
    args = ap.parse_args()
    if args.make_template:
        shutil.rmtree(args.make_template, ignore_errors=True)
        os.makedirs(args.make_template)
        t0 = time.monotonic()
        graph = Cluster(args.bin, None, "push", args.followers).make_graph(args.make_template)
        os.rename(graph, os.path.join(args.make_template, "shards"))
        shutil.rmtree(os.path.join(args.make_template, "bench"))
        print("template: %d followers over %d shards in %.1f s" %
              (args.followers, SHARDS, time.monotonic() - t0))
        return 0
    template = os.path.join(args.template, "shards") if args.template else None
    if template and not os.path.isdir(template):
        print("FAIL no template in %s (run with --make-template first)" % args.template)
        return 1
    seed = args.seed or random.SystemRandom().randrange(1, 2**31)
    print("seed %d (rerun the same kill schedule: --seed %d or WEIBO_CRASH_SEED=%d)" %
          (seed, seed, seed), flush=True)
    # SIGKILL loses nothing a process wrote (the page cache survives it), so tmpfs is as
    # good a place as disk for these crashes, and faster.
    base = "/dev/shm" if os.access("/dev/shm", os.W_OK) else None
    total = 0
    start = time.monotonic()
    for feed in args.feeds.split(","):
        rng = random.Random("%d-%s" % (seed, feed))
        with tempfile.TemporaryDirectory(prefix="weibo-crash-", dir=base) as work:
            c = Cluster(args.bin, None, feed, args.followers, args.durability)
            t0 = time.monotonic()
            c.setup(work, template)
            print("%s (durability %s): %d followers over %d shards set up in %.1f s" %
                  (feed, args.durability, args.followers, SHARDS, time.monotonic() - t0),
                  flush=True)
            writer_kills(c, rng, args.writer, args.batch)
            worker_kills(c, rng, args.worker)
            daemon_kills(c, rng, args.daemon, work)
            if args.node:
                node_kills(c, rng, args.node)
            kills = args.writer + args.worker + args.daemon + args.node
            total += kills
            print("%s: %d kills; where they landed:" % (feed, kills))
            for point, n in sorted(c.kill_points.items()):
                print("    %3d  %s" % (n, point))
    print("%d kills in %.1f s, %d failure(s); seed %d" %
          (total, time.monotonic() - start, failures, seed), flush=True)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
