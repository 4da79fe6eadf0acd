// GeneId: message ids by the gene method (seed 003, SPEC §2).
//
//   bit 62..22  milliseconds since 2020-01-01T00:00:00Z (41 bits, ~69 years)
//   bit 21..8   sequence within that millisecond (14 bits)
//   bit  7..0   the author's user_id mod 256 — the gene
//
// Because every allowed shard count divides 256, msg_id mod N == author mod N: a message
// is found from its id alone. Ids are allocated inside the author's shard's write
// transaction from msg_seq, per gene: next = max(last + 256, now's first id). "+256" is
// "sequence + 1", and a full sequence carries into the millisecond field, i.e. borrows the
// next millisecond. So ids never repeat, always grow, and never wait — even on a fixed
// clock, where they stay deterministic.
#ifndef WEIBO_STORAGE_GENE_ID_H_
#define WEIBO_STORAGE_GENE_ID_H_

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "weibo/time.h"

namespace weibo {

class Shard;

constexpr int64_t kGeneEpochMs = kEarliestTimeMs;  // 2020-01-01T00:00:00Z
// The last millisecond an id can count: 41 bits of milliseconds above the 22 low bits
// (2089-09-06T15:47:35.551Z). A clock given from outside (--now, a request's "now") must
// lie in the narrower [kGeneEpochMs, kClockLatestMs] (weibo/time.h, ClockInRange).
constexpr int64_t kGeneLatestMs = kLatestTimeMs;
static_assert(kGeneLatestMs == kGeneEpochMs + (int64_t{1} << 41) - 1, "41 bits of ms");
constexpr int64_t kGeneWeekMs = kWeekMs;

// The first id of millisecond now_ms for this author (sequence 0).
int64_t GeneIdFloor(int64_t now_ms, int64_t author);
// Allocates the next id; must run inside a WriteTxn on the author's shard.
// Failure(storage_error) when the gene's sequence has reached the end of the id range
// (a sequence pushed into the future by a bad clock: weibo-fsck --repair resets it).
int64_t NextGeneId(Shard& shard, int64_t author, int64_t now_ms);
// msg_seq rows whose last id is above id: (gene, last id), for weibo-fsck's clock check.
std::vector<std::pair<int64_t, int64_t>> SequencesAbove(Shard& shard, int64_t id);
// Sets a gene's last id; 0 forgets the gene (its next id is the clock's first).
void ResetSequence(Shard& shard, int64_t gene, int64_t last_id);
// The millisecond an id was made in (Unix epoch).
int64_t GeneIdTimeMs(int64_t id);

}  // namespace weibo

#endif  // WEIBO_STORAGE_GENE_ID_H_
