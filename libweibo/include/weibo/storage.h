// The part of the public API the bottom layer (libweibo/storage) implements, and all that
// it needs from the public headers besides weibo/status.h: the JSON type every layer
// exchanges, and bulk loading's durability switch. weibo/request.h includes it, so library
// users need not; the layers below ops include it instead of weibo/request.h, which belongs
// to ops and above (libweibo/LAYERS).
#ifndef WEIBO_STORAGE_H_
#define WEIBO_STORAGE_H_

#include <nlohmann/json.hpp>

namespace weibo {

using Json = nlohmann::ordered_json;

// Bulk loading: while off, every commit of this process's shard connections skips its
// fsync (synchronous=OFF), so a power cut may lose or corrupt what was written meanwhile.
// For loading a benchmark's setup, never for data that matters. On by default.
void SetDurableCommits(bool on);

}  // namespace weibo

#endif  // WEIBO_STORAGE_H_
