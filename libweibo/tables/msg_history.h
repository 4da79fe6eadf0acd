// msg_history: the texts a message had before its edits (weibo-edit(1)), on the message's
// shard. Version n is the text edit n replaced; time is when that text was written (the
// message's time for version 1, edit n-1's for the others). The current text is msg_info's.
// Deleting a message deletes its history with it: a deleted message keeps no text.
#ifndef WEIBO_TABLES_MSG_HISTORY_H_
#define WEIBO_TABLES_MSG_HISTORY_H_

#include <cstdint>
#include <string>
#include <vector>

namespace weibo {

class Shard;

struct HistoryRow {
  int64_t msg_id = 0;
  int64_t version = 0;
  std::string content;
  int64_t time = 0;
};

void InsertHistory(Shard& shard, const HistoryRow& row);
// A message's earlier texts, oldest first.
std::vector<HistoryRow> MsgHistory(Shard& shard, int64_t msg_id);
void DeleteHistory(Shard& shard, int64_t msg_id);

}  // namespace weibo

#endif  // WEIBO_TABLES_MSG_HISTORY_H_
