// discover: seed 001's random-posts cache ("随机文章的缓存优化"). Drawing n random posts
// for every visitor costs a scan per page view; caching one draw for t seconds shows every
// visitor the same n. The seed caches N draws instead: a visitor gets one of the N groups,
// picked at random, so the page still varies, and N and t trade freshness for work.
//
// Here the draw is a pure function of the pool and the clock: the pool is the
// discover_pool newest originals of all shards; the clock's bucket is now / t; group g of
// bucket b holds the n pool posts with the smallest BLAKE2b-64(b, g, id) (libsodium), a
// uniform sample without replacement that any process draws alike. Which group a request
// reads is BLAKE2b-64 of the clock's second, or --group. So the same data and clock give
// the same answer, embedded, through weibod or a cluster (golden-testable), and the groups
// still change every t seconds.
//
// The refresh (RefreshDiscover) adds the current bucket's groups to DATA/discover.json,
// a cache file (renamed into place: whole or absent) of the latest few buckets, from weibo-worker's
// drain, weibod's drain passes and the cluster node that owns shard 0. A read uses the file when it
// holds the request's bucket, and otherwise draws the groups itself without storing them (a cluster
// nobody refreshes still answers). Every post is re-read from its shard at read time: a post
// deleted since the draw is left out, never shown, so a group may show fewer than n.
#include <sodium.h>

#include <algorithm>
#include <fstream>
#include <sstream>

#include "flows/flows.h"
#include "flows/message.h"
#include "storage/failure.h"
#include "tables/msg_info.h"

namespace weibo {
namespace {

constexpr char kCacheFile[] = "discover.json";
constexpr size_t kCachedBuckets = 4;

struct Groups {
  int64_t bucket = -1;
  std::vector<std::vector<int64_t>> ids;
};

uint64_t Hash(std::initializer_list<int64_t> values) {
  std::string bytes;
  for (int64_t v : values)
    for (int i = 0; i < 8; ++i)
      bytes += static_cast<char>((static_cast<uint64_t>(v) >> (8 * i)) & 0xff);
  unsigned char out[8];
  crypto_generichash(out, sizeof out, reinterpret_cast<const unsigned char*>(bytes.data()),
                     bytes.size(), nullptr, 0);
  uint64_t h = 0;
  for (int i = 7; i >= 0; --i) h = (h << 8) | out[i];
  return h;
}

int64_t BucketOf(const Context& ctx) { return ctx.now() / 1000 / ctx.config().discover_refresh; }

// The discover_pool newest originals of the whole cluster, newest first.
std::vector<int64_t> Pool(Context& ctx) {
  const int64_t limit = ctx.config().discover_pool;
  std::vector<int64_t> pool;
  for (int i = 0; i < ctx.shards().count(); ++i) {
    Shard& shard = ctx.shards().At(i);
    ReadTxn txn(shard);
    for (int64_t id : NewestOriginals(shard, limit)) pool.push_back(id);
  }
  std::sort(pool.rbegin(), pool.rend());
  if (static_cast<int64_t>(pool.size()) > limit) pool.resize(static_cast<size_t>(limit));
  return pool;
}

Groups Draw(Context& ctx, int64_t bucket) {
  return Groups{bucket, DrawDiscoverGroups(Pool(ctx), bucket, ctx.config().discover_groups,
                                           ctx.config().discover_count)};
}

// The cache file of this configuration: {"refresh","count","pool","groups","buckets":
// {"<bucket>": [[ids of group 1], ...]}}, or an empty one when it is missing, unreadable
// or of other settings.
Json ReadCache(Context& ctx) {
  const ClusterConfig& c = ctx.config();
  const Json empty{{"refresh", c.discover_refresh},
                   {"count", c.discover_count},
                   {"pool", c.discover_pool},
                   {"groups", c.discover_groups},
                   {"buckets", Json::object()}};
  std::ifstream in(ctx.shards().dir() + "/" + kCacheFile);
  std::stringstream text;
  text << in.rdbuf();
  Json j = Json::parse(text.str(), nullptr, false);
  for (const char* key : {"refresh", "count", "pool", "groups"})
    if (!j.is_object() || j.value(key, Json()) != empty[key]) return empty;
  if (!j.contains("buckets") || !j["buckets"].is_object()) return empty;
  return j;
}

// The groups of bucket from the cache; bucket -1 when it does not hold them.
Groups CachedGroups(Context& ctx, int64_t bucket) {
  Groups g;
  const Json cache = ReadCache(ctx);
  auto it = cache["buckets"].find(std::to_string(bucket));
  if (it == cache["buckets"].end()) return g;
  try {
    g.ids = it->get<std::vector<std::vector<int64_t>>>();
  } catch (const Json::exception&) {
    return g;
  }
  if (g.ids.size() == static_cast<size_t>(ctx.config().discover_groups)) g.bucket = bucket;
  return g;
}

}  // namespace

std::vector<std::vector<int64_t>> DrawDiscoverGroups(const std::vector<int64_t>& pool,
                                                     int64_t bucket, int groups, int size) {
  std::vector<std::vector<int64_t>> out;
  std::vector<std::pair<uint64_t, int64_t>> keyed(pool.size());
  for (int g = 0; g < groups; ++g) {
    for (size_t i = 0; i < pool.size(); ++i) keyed[i] = {Hash({bucket, g, pool[i]}), pool[i]};
    const size_t n = std::min(keyed.size(), static_cast<size_t>(size));
    std::partial_sort(keyed.begin(), keyed.begin() + static_cast<std::ptrdiff_t>(n), keyed.end());
    std::vector<int64_t> group;
    for (size_t i = 0; i < n; ++i) group.push_back(keyed[i].second);
    out.push_back(std::move(group));
  }
  return out;
}

bool RefreshDiscover(Context& ctx) {
  const int64_t bucket = BucketOf(ctx);
  Json cache = ReadCache(ctx);
  Json& buckets = cache["buckets"];
  if (buckets.contains(std::to_string(bucket))) return false;
  buckets[std::to_string(bucket)] = Draw(ctx, bucket).ids;
  // The latest kCachedBuckets buckets are kept, not only the last: a process whose
  // requests bring their own clock (weibod --allow-clock, in golden runs) and one on the
  // wall clock (a cluster node's own refresh) then do not evict each other's.
  while (buckets.size() > kCachedBuckets) {
    auto oldest = buckets.begin();
    for (auto it = buckets.begin(); it != buckets.end(); ++it)
      if (std::stoll(it.key()) < std::stoll(oldest.key())) oldest = it;
    buckets.erase(oldest);
  }
  // Renamed into place from a temporary file of this process's own: whole or absent. A
  // cache: when it cannot be written (the disk is full), reads draw for themselves, and
  // the drain that asked goes on with its jobs.
  try {
    WriteAtomically(ctx.shards().dir() + "/" + kCacheFile, cache.dump() + "\n", ctx.now() / 1000);
  } catch (const Failure&) {
    return false;
  }
  return true;
}

Json Discover(Context& ctx, const Json& args) {
  const int64_t bucket = BucketOf(ctx);
  Groups groups = CachedGroups(ctx, bucket);
  if (groups.bucket != bucket) groups = Draw(ctx, bucket);
  const int64_t n = ctx.config().discover_groups;
  const int64_t chosen = args.value("group", int64_t{0});  // 1-based; 0: not given
  if (args.contains("group") && (chosen < 1 || chosen > n))
    Fail(Code::kInvalidArgument,
         "--group must be from 1 to " + std::to_string(n) + " (discover_groups in cluster.json)");
  const int64_t r = chosen > 0 ? chosen - 1 : static_cast<int64_t>(Hash({ctx.now() / 1000}) % n);
  const int64_t count = args.value("count", int64_t{ctx.config().discover_count});
  MessageView view(ctx);
  Json out = Json::array();
  for (int64_t id : groups.ids.at(static_cast<size_t>(r))) {
    if (static_cast<int64_t>(out.size()) >= count) break;
    Json m = view.Render(id);  // null once deleted
    if (!m.is_null()) out.push_back(std::move(m));
  }
  return out;
}

}  // namespace weibo
