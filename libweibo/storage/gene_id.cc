#include "storage/gene_id.h"

#include <algorithm>
#include <limits>

#include "storage/clock.h"
#include "storage/failure.h"
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
  // The id after last is last + 256; past the highest id there is none (no wrap-around
  // into negative ids, which would sort before every message).
  if (last > std::numeric_limits<int64_t>::max() - 256)
    Fail(Code::kStorageError, "message ids of gene " + std::to_string(gene) +
                                  " are used up to the end of the id range (" +
                                  FormatTime(GeneIdTimeMs(last)) +
                                  "): a clock moved its sequence ahead; weibo-fsck --repair "
                                  "resets it");
  if (last >= 0) id = std::max(id, last + 256);
  shard.Query("INSERT OR REPLACE INTO msg_seq(low8, last_id) VALUES (?, ?)")
      .Bind(1, gene)
      .Bind(2, id)
      .Run();
  return id;
}

int64_t NextPlainId(Shard& shard, int64_t now_ms) {
  Stmt& get = shard.Query("SELECT last_id FROM msg_seq WHERE low8 = ?");
  get.Bind(1, kPlainSeqKey);
  const int64_t last = get.Step() ? get.Int(0) : -1;
  get.Reset();
  const int64_t worker = static_cast<int64_t>(shard.index()) << 8;
  int64_t ms = std::clamp<int64_t>(now_ms, kGeneEpochMs, kGeneLatestMs) - kGeneEpochMs;
  int64_t seq = 0, turn = 0;
  if (last >= 0) {
    turn = ((last & 0xff) + 1) & 0xff;
    if (ms <= last >> 22) {  // the clock has not passed the last id's millisecond: after it
      ms = last >> 22;
      seq = ((last >> 16) & 0x3f) + (turn == 0 ? 1 : 0);
      if (seq > 0x3f) {
        seq = 0;
        ++ms;
      }
    }
  }
  if (ms > kGeneLatestMs - kGeneEpochMs)
    Fail(Code::kStorageError, shard.name() +
                                  ": message ids are used up to the end of the id range: a "
                                  "clock moved the sequence ahead; weibo-fsck --repair resets it");
  const int64_t id = (ms << 22) | (seq << 16) | worker | turn;
  shard.Query("INSERT OR REPLACE INTO msg_seq(low8, last_id) VALUES (?, ?)")
      .Bind(1, kPlainSeqKey)
      .Bind(2, id)
      .Run();
  return id;
}

int64_t NextMsgId(Shard& shard, int64_t author, int64_t now_ms, bool gene) {
  return gene ? NextGeneId(shard, author, now_ms) : NextPlainId(shard, now_ms);
}

std::vector<std::pair<int64_t, int64_t>> SequencesAbove(Shard& shard, int64_t id) {
  Stmt& s = shard.Query("SELECT low8, last_id FROM msg_seq WHERE last_id > ?");
  s.Bind(1, id);
  std::vector<std::pair<int64_t, int64_t>> out;
  while (s.Step()) out.push_back({s.Int(0), s.Int(1)});
  s.Reset();
  return out;
}

void ResetSequence(Shard& shard, int64_t gene, int64_t last_id) {
  if (last_id == 0) {
    shard.Query("DELETE FROM msg_seq WHERE low8 = ?").Bind(1, gene).Run();
    return;
  }
  shard.Query("UPDATE msg_seq SET last_id = ? WHERE low8 = ?").Bind(1, last_id).Bind(2, gene).Run();
}

int64_t GeneIdTimeMs(int64_t id) { return (id >> 22) + kGeneEpochMs; }

}  // namespace weibo
