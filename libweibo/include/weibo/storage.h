// The part of the public API the bottom layer (libweibo/storage) implements, and all that
// it needs from the public headers besides weibo/status.h: the JSON type every layer
// exchanges, and bulk loading's durability switch. weibo/request.h includes it, so library
// users need not; the layers below ops include it instead of weibo/request.h, which belongs
// to ops and above (libweibo/LAYERS).
#ifndef WEIBO_STORAGE_H_
#define WEIBO_STORAGE_H_

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
constexpr int64_t kCheckpointWalBytes = 4 << 20;

}  // namespace weibo

#endif  // WEIBO_STORAGE_H_
