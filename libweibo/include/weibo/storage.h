// The part of the public API the bottom layer (libweibo/storage) implements, and all that
// it needs from the public headers besides weibo/status.h: the JSON type every layer
// exchanges, and bulk loading's durability switch. weibo/request.h includes it, so library
// users need not; the layers below ops include it instead of weibo/request.h, which belongs
// to ops and above (libweibo/LAYERS).
#ifndef WEIBO_STORAGE_H_
#define WEIBO_STORAGE_H_

#include <algorithm>
#include <cstdint>
#include <nlohmann/json.hpp>

namespace weibo {

using Json = nlohmann::ordered_json;

// Bulk loading: while off, every commit of this process's shard connections skips its
// fsync (synchronous=OFF), so a power cut may lose or corrupt what was written meanwhile.
// For loading a benchmark's setup, never for data that matters. On by default.
void SetDurableCommits(bool on);

// The WAL length past which a writer checkpoints a shard after its write (ShardSet::
// CheckpointOpened). That checkpoint keeps the WAL file at its length and the next commit
// writes over it from the start: a shard's WAL stays about this long while the cluster is
// open, and is truncated when the last writer closes it. weibo-bench(1) gives its baselines'
// files a WAL of this length too.
// kWalBudgetBytes shared among the cluster's shards, from 4 to 8 MiB each: 8 MiB at the
// default 16 shards. Fewer, longer checkpoints copy a page rewritten by many commits once,
// and fewer posts wait for one (retwis trace, 10 000 users, hybrid, durability normal:
// 4 MiB gave posts 1 989/s, p99 10.2 ms, 142 KB written a post; 8 MiB 2 338/s, 6.6 ms,
// 124 KB; 16 MiB 2 393/s, 5.5 ms, 112 KB). Not 16: a short run's shards then write into a
// WAL that is still growing, whose fsyncs flush its length too, and the fan-out bench's
// push fell from 0.58-0.63 of its same-commits baseline to 0.47-0.50 (8 MiB: 0.53-0.63).
// A cluster of 32 shards or more keeps 4 MiB a shard, as before.
constexpr int64_t kMinCheckpointWalBytes = int64_t{4} << 20;
constexpr int64_t kMaxCheckpointWalBytes = int64_t{8} << 20;
constexpr int64_t kWalBudgetBytes = int64_t{128} << 20;
constexpr int64_t CheckpointWalBytes(int shards) {
  return shards > 0
             ? std::clamp(kWalBudgetBytes / shards, kMinCheckpointWalBytes, kMaxCheckpointWalBytes)
             : kMaxCheckpointWalBytes;
}

}  // namespace weibo

#endif  // WEIBO_STORAGE_H_
