// storage/commit_log.cc: the chain of this process's commits a watch follows, with the two
// moments a header is read between commits: a commit in flight (its header written, its
// WAL hook not yet run) and a WAL restart (the header a commit writes before its frames).
#include "storage/commit_log.h"

#include <sqlite3.h>

#include <chrono>
#include <cstring>
#include <thread>

#include "storage/shard.h"
#include "test_support.h"

namespace weibo {
namespace {

using test::FreshShard;
using test::TempDir;

void Put32(WalHeader* h, int offset, uint32_t v) { std::memcpy(h->bytes + offset, &v, 4); }

void PutBigEndian(WalHeader* h, int offset, uint32_t v) {
  h->bytes[offset] = static_cast<unsigned char>(v >> 24);
  h->bytes[offset + 1] = static_cast<unsigned char>(v >> 16);
  h->bytes[offset + 2] = static_cast<unsigned char>(v >> 8);
  h->bytes[offset + 3] = static_cast<unsigned char>(v);
}

// A header as walformat.html 2.2 lays it out: change counter at 8, frames at 16, pages at
// 20, the two salts at 32 (big-endian), a checksum of the rest at 40.
WalHeader Header(uint32_t change, uint32_t frames, uint32_t pages, uint32_t salt1, uint32_t salt2) {
  WalHeader h;
  Put32(&h, 0, 3007000);  // the version
  Put32(&h, 8, change);
  h.bytes[12] = 1;  // isInit
  Put32(&h, 16, frames);
  Put32(&h, 20, pages);
  PutBigEndian(&h, 32, salt1);
  PutBigEndian(&h, 36, salt2);
  Put32(&h, 40, change * 31 + frames * 7 + salt1 + salt2);  // differs as the fields do
  return h;
}

const sqlite3* Connection(int n) { return reinterpret_cast<const sqlite3*>(n * 64); }

CommitLog::Commit Made(const WalHeader& before, int connection,
                       std::vector<std::string> changes = {}) {
  CommitLog::Commit c;
  c.before = before;
  c.connection = Connection(connection);
  c.changes = std::move(changes);
  return c;
}

const CommitInterest kPages{{"msg_page"}, {"active_on"}};

TEST_CASE("commit log: a chain of settled commits, and what breaks it") {
  CommitLog log;
  const WalHeader h0 = Header(5, 10, 3, 100, 7), h1 = Header(6, 12, 3, 100, 7),
                  h2 = Header(7, 13, 4, 100, 7), h3 = Header(8, 14, 4, 100, 7);
  log.Settle(log.Begin(Made(h0, 1, {"inbox"})), &h1);
  log.Settle(log.Begin(Made(h1, 2, {"job_applied"})), &h2);
  REQUIRE(log.Covers(h0, h2, Connection(3), &kPages));
  REQUIRE_FALSE(log.Covers(h0, h2, Connection(3), nullptr));  // no interest: every commit counts
  REQUIRE_FALSE(log.Covers(h0, h3, Connection(3), &kPages));  // h2 to h3: not made here
  log.Settle(log.Begin(Made(h2, 1, {"msg_page"})), &h3);
  REQUIRE_FALSE(log.Covers(h0, h3, Connection(3), &kPages));  // a row the watcher holds
  REQUIRE(log.Covers(h0, h3, Connection(1), &kPages));        // unless it was the watcher's
  const WalHeader h4 = Header(9, 15, 4, 100, 7);
  log.Settle(log.Begin(Made(h3, 2)), nullptr);  // rolled back, or another commit on top
  REQUIRE_FALSE(log.Covers(h3, h4, Connection(3), &kPages));
  REQUIRE(log.in_flight() == 0);
}

TEST_CASE("commit log: a commit in flight is waited for, a bounded time") {
  CommitLog log;
  const WalHeader h0 = Header(5, 10, 3, 100, 7), h1 = Header(6, 12, 3, 100, 7);
  SECTION("settled by its WAL hook while the watch waits") {
    log.set_in_flight_wait_us(60 * 1000 * 1000);  // returns once settled, however slow the hook
    const uint64_t id = log.Begin(Made(h0, 1, {"inbox"}));
    REQUIRE(log.in_flight() == 1);
    std::thread hook([&] {
      std::this_thread::sleep_for(std::chrono::microseconds(300));
      log.Settle(id, &h1);
    });
    REQUIRE(log.Covers(h0, h1, Connection(2), &kPages));
    hook.join();
    REQUIRE(log.in_flight() == 0);
  }
  SECTION("settled as unnamed: the chain breaks at once") {
    const uint64_t id = log.Begin(Made(h0, 1));
    log.Settle(id, nullptr);
    REQUIRE_FALSE(log.Covers(h0, h1, Connection(2), &kPages));
  }
  SECTION("never settled: the watch gives up after the wait") {
    log.Begin(Made(h0, 1));
    const auto start = std::chrono::steady_clock::now();
    REQUIRE_FALSE(log.Covers(h0, h1, Connection(2), &kPages));
    REQUIRE(std::chrono::steady_clock::now() - start >=
            std::chrono::microseconds(CommitLog::kInFlightWaitUs));  // the default
  }
  SECTION("a settled commit from the same header is preferred to one in flight") {
    // Were the one in flight waited for, the wait would end in false: it is never settled.
    log.Begin(Made(h0, 1));  // wrote no frame; its connection settles it later
    log.Settle(log.Begin(Made(h0, 2)), &h1);
    REQUIRE(log.Covers(h0, h1, Connection(3), &kPages));
  }
}

TEST_CASE("commit log: the header of a WAL restart belongs to the commit that made it") {
  CommitLog log;
  // h0: a WAL all copied into the file; the commit restarts it (salt-1 one more, salt-2
  // drawn at random), writes that header, then its frame and h1.
  const WalHeader h0 = Header(5, 40, 3, 100, 7), restart = Header(5, 0, 3, 101, 555),
                  h1 = Header(6, 1, 3, 101, 555), h2 = Header(7, 3, 3, 101, 555);
  REQUIRE(restart.RestartBetween(h0, h1));
  REQUIRE_FALSE(Header(5, 0, 3, 101, 556).RestartBetween(h0, h1));  // another salt-2
  REQUIRE_FALSE(Header(5, 0, 3, 102, 555).RestartBetween(h0, Header(6, 1, 3, 102, 555)));
  REQUIRE_FALSE(Header(4, 0, 3, 101, 555).RestartBetween(h0, h1));  // another counter
  REQUIRE_FALSE(Header(5, 0, 4, 101, 555).RestartBetween(h0, h1));  // another page count
  SECTION("in flight, the restart header is waited for like the commit") {
    log.set_in_flight_wait_us(60 * 1000 * 1000);
    const uint64_t id = log.Begin(Made(h0, 1, {"inbox"}));
    std::thread hook([&] {
      std::this_thread::sleep_for(std::chrono::microseconds(300));
      log.Settle(id, &h1);
    });
    REQUIRE(log.Covers(h0, restart, Connection(2), &kPages));  // read between the two
    hook.join();
  }
  SECTION("settled") {
    log.Settle(log.Begin(Made(h0, 1, {"inbox"})), &h1);
    log.Settle(log.Begin(Made(h1, 1, {"inbox"})), &h2);
    REQUIRE(log.Covers(h0, restart, Connection(2), &kPages));  // the watch read it then
    REQUIRE(log.Covers(restart, h1, Connection(2), &kPages));  // and goes on from it
    REQUIRE(log.Covers(restart, h2, Connection(2), &kPages));
    // A restart header the log does not know: another process's commit made it.
    REQUIRE_FALSE(log.Covers(Header(5, 0, 3, 101, 9), h2, Connection(2), &kPages));
    REQUIRE_FALSE(log.Covers(h0, Header(5, 0, 3, 101, 9), Connection(2), &kPages));
  }
  SECTION("the commit's changes count from its restart header, not up to it") {
    CommitLog pages;
    pages.Settle(pages.Begin(Made(h0, 1, {"msg_page"})), &h1);
    REQUIRE(pages.Covers(h0, restart, Connection(2), &kPages));  // nothing changed yet
    REQUIRE_FALSE(pages.Covers(restart, h1, Connection(2), &kPages));
    REQUIRE_FALSE(pages.Covers(h0, h1, Connection(2), &kPages));
  }
}

// With real connections: a statement that commits without writing a frame (nothing
// changed) leaves nothing in flight, and a watch's chain over the other connection's
// commits never waits for it.
TEST_CASE("commit log: a commit that writes no frame does not stay in flight") {
  TempDir dir;
  auto shard = FreshShard(dir);
  Shard other(0, shard->path(), false, nullptr);
  auto commit = [](Shard& s, const std::string& sql) {
    WriteTxn txn(s);
    if (!sql.empty()) s.Exec(sql.c_str());
    txn.Commit();
  };
  commit(*shard, "INSERT INTO job_applied(job_id, applied) VALUES (1, 1)");
  WalHeader from, to;
  REQUIRE(ReadWalHeader(shard->db(), &from));
  commit(other, "");  // BEGIN IMMEDIATE; COMMIT: the commit hook runs, the WAL hook does not
  REQUIRE(shard->commit_log()->in_flight() == 0);
  commit(other, "INSERT INTO job_applied(job_id, applied) VALUES (2, 1)");
  commit(*shard, "INSERT INTO job_applied(job_id, applied) VALUES (3, 1)");
  REQUIRE(shard->commit_log()->in_flight() == 0);
  REQUIRE(ReadWalHeader(shard->db(), &to));
  const CommitInterest interest{{"msg_page"}, {}};
  REQUIRE(shard->commit_log()->Covers(from, to, nullptr, &interest));
  {
    WriteTxn txn(other);
    other.Exec("INSERT INTO job_applied(job_id, applied) VALUES (4, 1)");
  }  // rolled back
  REQUIRE(shard->commit_log()->in_flight() == 0);
}

}  // namespace
}  // namespace weibo
