// A page's rows: the messages a timeline page shows, each with its counters (as
// GetLiveCounter sees them) and its author's name, read by one statement per shard instead
// of three point lookups per message (msg_info, msg_counter, user_info). By the gene
// method an author's user_info row is on the shard of each of their messages, so the join
// finds it there; where it does not (another strategy), the name is absent and the caller
// looks it up.
#ifndef WEIBO_TABLES_MSG_PAGE_H_
#define WEIBO_TABLES_MSG_PAGE_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "tables/msg_counter.h"
#include "tables/msg_info.h"
#include "weibo/storage.h"

namespace weibo {

class Shard;

struct PageRow {
  MsgRow msg;
  std::optional<CounterRow> counter;       // none when the message has no counter row
  std::optional<std::string> author_name;  // none when user_info is on another shard
  // The message's --attr's (its entity's body, tables/entity.h), when attrs_known: null for
  // a message that has none. Not known when the shard held too many entities in the page's
  // id range to read them in passing; the caller then looks the entity up.
  bool attrs_known = false;
  Json attrs;
  // A server's cached row (tables/message_cache.h) also keeps the message JSON's fields that
  // change only with an edit (which makes the cache forget the row), "id" through "time"
  // (and "edited", "edits"), as the JSON text a page is written with
  // (flows/message_view.cc); empty when not made.
  std::string head;
};

// The rows of the messages ids (all of this shard) that exist, in no particular order;
// like_count and view_count include the deltas pending in the shard's outbox (jobs of kind
// kCounterDeltaKind, tables/outbox.h), as GetLiveCounter's do. One statement: the ids go in
// as one JSON array (json_each), so the statement is prepared once whatever the page's size.
std::vector<PageRow> GetPageRows(Shard& shard, const std::vector<int64_t>& ids);

}  // namespace weibo

#endif  // WEIBO_TABLES_MSG_PAGE_H_
