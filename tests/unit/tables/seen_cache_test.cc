// tables/seen_cache.cc: a server's last-read ids — its bound, its sets and their eviction
// order, and the invalidations that keep an unread exact (this process's notify read and
// expiry, other connections' commits, nothing stored from inside a write transaction).
#include "tables/seen_cache.h"

#include "storage/shard.h"
#include "tables/notification.h"
#include "test_support.h"

namespace weibo {
namespace {

using test::FreshShard;
using test::RawDb;
using test::TempDir;

int64_t Found(SeenCache& cache, int shard, int64_t user) {
  int64_t id = -1;
  return cache.Find(shard, user, &id) ? id : -1;
}

TEST_CASE("seen cache: capacity rounds up to whole sets, 0 holds nothing") {
  REQUIRE(SeenCache(0).capacity() == 0);
  REQUIRE(SeenCache(1).capacity() == SeenCache::kWays);
  REQUIRE(SeenCache(100).capacity() == 128);
  REQUIRE(SeenCache(1 << 20).capacity() == (1u << 20));
  TempDir dir;
  auto shard = FreshShard(dir);
  SeenCache none(0);
  none.Validate(*shard);
  none.Put(*shard, 1, 5);
  REQUIRE(none.size() == 0);
  REQUIRE(Found(none, 0, 1) == -1);
}

TEST_CASE("seen cache: a full set replaces the entry it used least recently") {
  TempDir dir;
  auto shard = FreshShard(dir);
  SeenCache cache(SeenCache::kWays);  // one set: every user shares it
  cache.Validate(*shard);
  const int64_t n = static_cast<int64_t>(SeenCache::kWays);
  for (int64_t u = 1; u <= n; ++u) cache.Put(*shard, u, u * 10);
  REQUIRE(cache.size() == SeenCache::kWays);
  REQUIRE(Found(cache, 0, 1) == 10);  // 1 is now the most recently used: 2 goes next
  cache.Put(*shard, n + 1, 99);
  REQUIRE(cache.size() == SeenCache::kWays);
  REQUIRE(Found(cache, 0, 2) == -1);
  REQUIRE(Found(cache, 0, 1) == 10);
  REQUIRE(Found(cache, 0, n + 1) == 99);
  cache.Put(*shard, 3, 31);  // a second Put replaces, it does not grow the cache
  REQUIRE(cache.size() == SeenCache::kWays);
  REQUIRE(Found(cache, 0, 3) == 31);
  REQUIRE(cache.hits() == 4);
  REQUIRE(cache.misses() == 1);
  cache.Forget(3);
  REQUIRE(Found(cache, 0, 3) == -1);
  REQUIRE(cache.size() == SeenCache::kWays - 1);
}

TEST_CASE("seen cache: many users spread over the sets, each keeps its own id") {
  TempDir dir;
  auto shard = FreshShard(dir);
  SeenCache cache(1024);
  cache.Validate(*shard);
  // Ids in a stride, as one shard's users are: the hash must not crowd them into few sets.
  for (int64_t u = 0; u < 512; ++u) cache.Put(*shard, 4 * u + 1, u);
  REQUIRE(cache.size() == 512);
  int kept = 0;
  for (int64_t u = 0; u < 512; ++u) {
    const int64_t id = Found(cache, 0, 4 * u + 1);
    if (id != -1) {
      REQUIRE(id == u);
      ++kept;
    }
  }
  REQUIRE(kept == 512);  // half full: nothing was evicted
}

TEST_CASE("seen cache: stored only when watched, found only on its own shard") {
  TempDir dir;
  auto shard = FreshShard(dir);
  SeenCache cache(16);
  cache.Put(*shard, 1, 5);  // not watched yet: not kept
  REQUIRE(cache.size() == 0);
  cache.Validate(*shard);
  cache.Put(*shard, 1, 5);
  REQUIRE(Found(cache, 0, 1) == 5);
  REQUIRE(Found(cache, 1, 1) == -1);  // asked on another shard: a miss
}

TEST_CASE("seen cache: nothing is stored from inside a write transaction") {
  TempDir dir;
  auto shard = FreshShard(dir);
  SeenCache cache(16);
  cache.Validate(*shard);
  {
    WriteTxn txn(*shard);
    SetSeen(*shard, 1, kSeenNotify, 7, test::kNow);
    cache.Put(*shard, 1, GetSeen(*shard, 1, kSeenNotify)->last_id);  // uncommitted: ignored
    REQUIRE(Found(cache, 0, 1) == -1);
    // rolled back
  }
  REQUIRE_FALSE(GetSeen(*shard, 1, kSeenNotify));
}

TEST_CASE("seen cache: another connection's commit drops the shard's ids, ForgetShard too") {
  TempDir dir;
  auto shard = FreshShard(dir);
  auto other_shard = FreshShard(dir, "other.db", 1);
  SetSeen(*shard, 1, kSeenNotify, 3, test::kNow);
  SeenCache cache(16);
  cache.Validate(*shard);
  cache.Validate(*other_shard);
  cache.Put(*shard, 1, 3);
  cache.Put(*other_shard, 2, 4);
  cache.Validate(*shard);  // nobody else wrote: still there
  REQUIRE(Found(cache, 0, 1) == 3);
  RawDb(shard->path()).Exec("UPDATE last_seen SET last_id = 9 WHERE user_id = 1");
  REQUIRE(Found(cache, 0, 1) == 3);  // not validated yet: what Validate is for
  cache.Validate(*shard);
  REQUIRE(Found(cache, 0, 1) == -1);
  cache.Validate(*other_shard);  // another shard's ids stay
  REQUIRE(Found(cache, 1, 2) == 4);
  cache.Put(*shard, 1, GetSeen(*shard, 1, kSeenNotify)->last_id);
  REQUIRE(Found(cache, 0, 1) == 9);
  cache.ForgetShard(0);
  REQUIRE(Found(cache, 0, 1) == -1);
  REQUIRE(Found(cache, 1, 2) == 4);
}

}  // namespace
}  // namespace weibo
