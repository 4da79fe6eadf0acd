#!/usr/bin/env python3
"""Bulk-load a large push-mode cluster for the growth measurement (bench/growth/run.sh).

Running 5 000 000 follows and 1 000 000 posts through the flows one request at a time takes
hours on 2 cores, so this loader writes the rows the flows would have written, in large
transactions, straight into the shards of a cluster that `weibo-init --feed push` has just
created. It is a test fixture builder, not a second implementation: run.sh checks the
result with `weibo-fsck`, which recounts every counter, checks both rows of every follow and
that every post is in every follower's inbox exactly once. A loader that drifted from the
flows would fail there.

  load.py DIR users  --users U --follows F --seed S   users and a power-law follow graph
  load.py DIR posts  --posts P --seed S               P more posts by random authors

The follow graph: out-degrees are drawn from a discrete power law (exponent 2, from 5 to
2000, scaled so the mean is F), targets by preferential popularity (Zipf exponent 1 over a
random ranking of the users), without self-follows or duplicates. Every post comes after
every follow, so no follow ever merges old posts into an inbox: each post is written to its
author's own inbox and pushed to every follower, exactly what `weibo-post` does in push
mode. Inbox trims are sampled at delivery time by the flows; the loader makes none, so every
inbox is complete (floor 0), which the flows also allow.
"""
import argparse
import bisect
import hashlib
import itertools
import json
import random
import sqlite3
import sys
import time

GENE_EPOCH_MS = 1577836800000  # 2020-01-01T00:00:00Z, libweibo/storage/gene_id.h
BASE_MS = 1767225600000        # 2026-01-01T00:00:00Z: the clock of the first user


def shards_of(data):
    with open(f"{data}/cluster.json") as f:
        cluster = json.load(f)
    if cluster.get("feed") != "push":
        sys.exit("load.py: the cluster must be created with --feed push")
    n = cluster["shards"]
    dbs = []
    for i in range(n):
        db = sqlite3.connect(f"{data}/shard-{i:02d}.db", isolation_level=None)
        db.execute("PRAGMA synchronous=OFF")
        db.execute("BEGIN IMMEDIATE")
        dbs.append(db)
    return n, dbs


def commit(dbs):
    for db in dbs:
        db.execute("COMMIT")
        db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        db.close()


def name_shard(name, n):
    digest = hashlib.blake2b(name.encode(), digest_size=8).digest()
    return int.from_bytes(digest, "little") % n


def load_users(data, users, mean_follows, seed):
    n, dbs = shards_of(data)
    rng = random.Random(seed)
    # Out-degrees: P(k) ~ k^-2 on [5, 2000], then scaled to the wanted mean.
    ks = list(range(5, 2001))
    cum = list(itertools.accumulate(1.0 / (k * k) for k in ks))
    degrees = rng.choices(ks, cum_weights=cum, k=users)
    scale = mean_follows * users / sum(degrees)
    degrees = [max(1, min(users - 1, 2000, round(d * scale))) for d in degrees]
    # Popularity: Zipf(1) over a random ranking.
    ranking = list(range(1, users + 1))
    rng.shuffle(ranking)
    pop_cum = list(itertools.accumulate(1.0 / r for r in range(1, users + 1)))
    total = pop_cum[-1]
    fans = [0] * (users + 1)
    follows = [0] * (users + 1)
    t = BASE_MS + users  # follows start after the last user
    rows_following = [[] for _ in range(n)]
    rows_fan = [[] for _ in range(n)]
    edges = 0
    for u in range(1, users + 1):
        want = degrees[u - 1]
        chosen = set()
        while len(chosen) < want:
            r = bisect.bisect_left(pop_cum, rng.random() * total)
            v = ranking[min(r, users - 1)]
            if v != u:
                chosen.add(v)
        for v in chosen:
            t += 1
            rows_following[u % n].append((u, v, 1, t))
            rows_fan[v % n].append((v, u, 0, t))
            fans[v] += 1
        follows[u] = want
        edges += want
        if u % 20000 == 0 or u == users:
            for i in range(n):
                dbs[i].executemany("INSERT INTO user_relation VALUES (?, ?, ?, ?)",
                                   rows_following[i])
                dbs[i].executemany("INSERT INTO user_relation VALUES (?, ?, ?, ?)", rows_fan[i])
                rows_following[i].clear()
                rows_fan[i].clear()
            print(f"  users {u}/{users}, follows {edges}", file=sys.stderr)
    for u in range(1, users + 1):
        name = f"u{u}"
        created = BASE_MS + u
        dbs[u % n].execute(
            "INSERT INTO user_info(user_id, user_name, msg_count, fans_count, follow_count,"
            " created, last_active) VALUES (?, ?, 0, ?, ?, ?, ?)",
            (u, name, fans[u], follows[u], created, created))
        dbs[name_shard(name, n)].execute("INSERT INTO user_name VALUES (?, ?)", (name, u))
    dbs[0].execute("INSERT OR REPLACE INTO meta(key, value) VALUES ('next_user_id', ?)",
                   (str(users + 1),))
    dbs[0].execute("INSERT OR REPLACE INTO meta(key, value) VALUES ('growth_clock', ?)",
                   (str(t),))
    commit(dbs)
    print(f"loaded {users} users, {edges} follows", file=sys.stderr)


def load_posts(data, posts, seed):
    n, dbs = shards_of(data)
    clock = int(dbs[0].execute("SELECT value FROM meta WHERE key = 'growth_clock'").fetchone()[0])
    users = int(dbs[0].execute("SELECT value FROM meta WHERE key = 'next_user_id'").fetchone()[0]) - 1
    fans = {}
    for db in dbs:
        for user, fan in db.execute("SELECT user_id, follow_id FROM user_relation WHERE type = 0"):
            fans.setdefault(user, []).append(fan)
    rng = random.Random(seed * 7919 + clock)
    last_id = {}
    msg_count = {}
    info = [[] for _ in range(n)]
    inbox = [[] for _ in range(n)]
    deliveries = 0
    for k in range(1, posts + 1):
        clock += 10  # a post every 10 ms: distinct milliseconds, so ids are sequence 0
        author = rng.randint(1, users)
        msg_id = ((clock - GENE_EPOCH_MS) << 22) | (author & 0xFF)
        s = author % n
        info[s].append((msg_id, author, f"growth post {k} by u{author}", clock))
        last_id[(s, author & 0xFF)] = msg_id
        msg_count[author] = msg_count.get(author, 0) + 1
        inbox[s].append((author, msg_id, author, clock))
        for fan in fans.get(author, ()):
            inbox[fan % n].append((fan, msg_id, author, clock))
        deliveries += len(fans.get(author, ()))
        if k % 20000 == 0 or k == posts:
            for i in range(n):
                dbs[i].executemany(
                    "INSERT INTO msg_info(msg_id, user_id, content, type, time)"
                    " VALUES (?, ?, ?, 0, ?)", info[i])
                dbs[i].executemany("INSERT INTO msg_counter(msg_id) VALUES (?)",
                                   ((row[0],) for row in info[i]))
                dbs[i].executemany("INSERT INTO msg_index VALUES (?, ?, ?, ?)", inbox[i])
                info[i].clear()
                inbox[i].clear()
            print(f"  posts {k}/{posts}, deliveries {deliveries}", file=sys.stderr)
    for (s, gene), last in last_id.items():
        dbs[s].execute(
            "INSERT INTO msg_seq(low8, last_id) VALUES (?, ?)"
            " ON CONFLICT(low8) DO UPDATE SET last_id = max(last_id, excluded.last_id)",
            (gene, last))
    for author, count in msg_count.items():
        dbs[author % n].execute("UPDATE user_info SET msg_count = msg_count + ? WHERE user_id = ?",
                                (count, author))
    dbs[0].execute("UPDATE meta SET value = ? WHERE key = 'growth_clock'", (str(clock),))
    commit(dbs)
    print(f"loaded {posts} posts, {deliveries} deliveries", file=sys.stderr)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("data")
    p.add_argument("what", choices=["users", "posts"])
    p.add_argument("--users", type=int, default=100000)
    p.add_argument("--follows", type=float, default=50)
    p.add_argument("--posts", type=int, default=100000)
    p.add_argument("--seed", type=int, default=1)
    a = p.parse_args()
    t0 = time.time()
    if a.what == "users":
        load_users(a.data, a.users, a.follows, a.seed)
    else:
        load_posts(a.data, a.posts, a.seed)
    print(f"  {time.time() - t0:.1f} s", file=sys.stderr)


if __name__ == "__main__":
    main()
