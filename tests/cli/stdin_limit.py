#!/usr/bin/env python3
"""Issue 11, defect 6: content from standard input ("weibo-post -") is read only up to what
140 code points can take (4 bytes each, plus a line end), then refused with
content_too_long without reading the rest. 100 MB offered on a pipe: weibo-post must fail
quickly with exit 1, having taken at most a pipe's worth of it, in little memory.

usage: stdin_limit.py BIN_DIR
"""
import os
import resource
import subprocess
import sys
import tempfile
import time

OFFERED = 100 * 1024 * 1024
CHUNK = 64 * 1024


def fail(message):
    print("FAIL: " + message, file=sys.stderr)
    sys.exit(1)


def run(args, data, cwd):
    """Runs args with data on stdin; returns (exit status, stdout, stderr)."""
    p = subprocess.run(args, input=data, cwd=cwd, capture_output=True)
    return p.returncode, p.stdout.decode(), p.stderr.decode()


def main():
    bin_dir = os.path.abspath(sys.argv[1])
    post = os.path.join(bin_dir, "weibo-post")
    with tempfile.TemporaryDirectory() as work:
        env_args = ["--data", os.path.join(work, "shards"), "--now", "2026-01-01T00:00:00Z"]
        subprocess.run([os.path.join(bin_dir, "weibo-init"), *env_args[:2], "--shards", "1"],
                       check=True, capture_output=True)
        subprocess.run([os.path.join(bin_dir, "weibo-user"), *env_args[:2], "add", "alice"],
                       check=True, capture_output=True)

        # The edges: 140 four-byte code points and a CRLF (562 bytes) are a message.
        rc, out, err = run([post, *env_args, "-u", "@alice", "-"], "😀".encode() * 140 + b"\r\n",
                           work)
        if rc != 0:
            fail("140 four-byte code points and CRLF: exit %d, %s" % (rc, err))
        rc, out, err = run([post, *env_args, "-u", "@alice", "-"], "😀".encode() * 141, work)
        if rc != 1 or "content_too_long" not in err:
            fail("141 four-byte code points: exit %d, %s" % (rc, err))
        print("ok   562 bytes of content accepted, 564 refused")

        # 100 MB offered: weibo-post stops reading at 563 bytes and exits; the writer then
        # meets a closed pipe after at most the pipe's buffer.
        start = time.monotonic()
        child = subprocess.Popen([post, *env_args, "-u", "@alice", "-"], cwd=work,
                                 stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                 stderr=subprocess.PIPE)
        written = 0
        chunk = b"x" * CHUNK
        try:
            while written < OFFERED:
                child.stdin.write(chunk)
                written += CHUNK
        except BrokenPipeError:
            pass
        try:
            child.stdin.close()
        except BrokenPipeError:  # what was still buffered had nowhere to go
            pass
        child.stdout.read()  # a few bytes at most: no pipe fills up
        err = child.stderr.read()
        child.wait(timeout=60)
        seconds = time.monotonic() - start
        rss_mb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
        err = err.decode()
        if child.returncode != 1 or "error: content_too_long: standard input holds more than 562 bytes" not in err:
            fail("100 MB on stdin: exit %d, %s" % (child.returncode, err))
        if written >= 16 * 1024 * 1024:
            fail("weibo-post read %d bytes of the 100 MB before refusing" % written)
        if seconds > 10:
            fail("refusing took %.1f s" % seconds)
        # A plain build peaks near 10 MB, ASan's shadow memory adds tens; the old code held
        # the whole input several times over (600 MB and more).
        if rss_mb > 200:
            fail("weibo-post peaked at %.0f MB" % rss_mb)
        print("ok   100 MB offered: exit 1 after %.2f s, %d KiB taken, peak %.0f MB"
              % (seconds, written // 1024, rss_mb))


if __name__ == "__main__":
    main()
