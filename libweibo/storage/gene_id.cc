#include "storage/gene_id.h"

#include <algorithm>

#include "storage/shard.h"

namespace weibo {

int64_t GeneIdFloor(int64_t now_ms, int64_t author) {
  // Clamped to the id's range (the edges refuse clocks outside it; this keeps the shift
  // defined whatever the clock): ids stay unique through NextGeneId's last + 256.
  int64_t ms = std::clamp<int64_t>(now_ms, kGeneEpochMs, kGeneLatestMs) - kGeneEpochMs;
  return (ms << 22) | (author & 0xff);
}

int64_t NextGeneId(Shard& shard, int64_t author, int64_t now_ms) {
  int64_t gene = author & 0xff;
  Stmt& get = shard.Query("SELECT last_id FROM msg_seq WHERE low8 = ?");
  get.Bind(1, gene);
  int64_t last = get.Step() ? get.Int(0) : -1;
  get.Reset();
  int64_t id = GeneIdFloor(now_ms, author);
  if (last >= 0) id = std::max(id, last + 256);
  shard.Query("INSERT OR REPLACE INTO msg_seq(low8, last_id) VALUES (?, ?)")
      .Bind(1, gene)
      .Bind(2, id)
      .Run();
  return id;
}

int64_t GeneIdTimeMs(int64_t id) { return (id >> 22) + kGeneEpochMs; }

}  // namespace weibo
