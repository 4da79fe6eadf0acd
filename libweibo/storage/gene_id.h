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
// Ids without the gene, for the strategies that do not place by it (uid-mapping; seed 003's
// "distributed id" of its first two schemes):
//
//   bit 62..22  milliseconds since 2020-01-01, as a gene id's
//   bit 21..16  sequence within the millisecond (6 bits)
//   bit 15..8   the allocating shard: a Snowflake-style worker id, which keeps the ids of
//               different shards apart without coordination; placement never reads it
//   bit  7..0   a counter that keeps turning from one id to the next, across milliseconds,
//               so id mod N cycles through every shard rather than naming the author's
//
// Allocated inside the allocating shard's write transaction from its msg_seq row
// kPlainSeqKey: the next id is the counter's next value in the last id's millisecond (a
// full sequence borrows the next millisecond), or the clock's millisecond when that is
// later. So these ids too never repeat, always grow and never wait.
constexpr int64_t kPlainSeqKey = 256;  // msg_seq's key for them: no gene is 256
int64_t NextPlainId(Shard& shard, int64_t now_ms);
// The id of a new message of author: a gene id, or a plain one when gene is false.
int64_t NextMsgId(Shard& shard, int64_t author, int64_t now_ms, bool gene);
// msg_seq rows whose last id is above id: (gene, last id), for weibo-fsck's clock check.
std::vector<std::pair<int64_t, int64_t>> SequencesAbove(Shard& shard, int64_t id);
// Sets a gene's last id; 0 forgets the gene (its next id is the clock's first).
void ResetSequence(Shard& shard, int64_t gene, int64_t last_id);
// The millisecond an id was made in (Unix epoch).
int64_t GeneIdTimeMs(int64_t id);

}  // namespace weibo

#endif  // WEIBO_STORAGE_GENE_ID_H_
