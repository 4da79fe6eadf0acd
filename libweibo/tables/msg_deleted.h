// msg_deleted: messages of other shards that this shard has been told are deleted — by a
// purge (the undeliver job) or by the ref_remove job of a deleted comment or repost.
//
// Jobs of one message can reach a shard out of order after a crash: a delivery or an inbox
// merge left pending by a killed command may be applied after the purge of the same
// message, and a ref_add after the ref_remove of the same comment. The row written by the
// undoing job makes the late one add nothing (DeliverInbox and ref_add check it), so a
// crash at any point leaves no inbox row, relation row or count of a deleted message.
// One row per deleted message and shard it had fans or a referenced message on; never
// removed (message ids are never reused).
#ifndef WEIBO_TABLES_MSG_DELETED_H_
#define WEIBO_TABLES_MSG_DELETED_H_

#include <cstdint>

namespace weibo {

class Shard;

void RecordMsgDeleted(Shard& shard, int64_t msg_id);
bool MsgDeleted(Shard& shard, int64_t msg_id);

}  // namespace weibo

#endif  // WEIBO_TABLES_MSG_DELETED_H_
