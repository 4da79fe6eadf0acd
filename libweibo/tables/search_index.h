// msg_fts and doc: the search index (SPEC §7, seed 003's tiezi-index), one per shard in its
// own file search-NN.db (ShardSet::SearchAt), never in the shard itself: the metadata and
// the index are separate stores, and the index is fed only through the outbox
// (flows/search.cc).
//
// One msg_fts row per message with text: the text as indexed and its author. FTS5's trigram
// tokenizer indexes every 3-character window, so any substring of 3 or more characters
// finds it, Chinese as well as English; detail=none keeps no positions, so a query of more
// than one trigram matches every row holding all of them and the exact substring is checked
// on the stored text (Contains). The row's rowid is a docid, not the message id: doc maps
// msg_id -> docid, and docids rise with msg_id, so "newest first" and a time range are
// FTS5's own descending rowid scan over a rowid range. Docids are dense — the next one
// after the highest — which keeps the doclists' rowid gaps one or two bytes long where gene
// ids would need six. A message indexed out of id order (a clock set back) takes the
// middle of its neighbours' docids, and when they are adjacent the shard's docids are
// renumbered, spaced out (Renumber, rare).
#ifndef WEIBO_TABLES_SEARCH_INDEX_H_
#define WEIBO_TABLES_SEARCH_INDEX_H_

#include <cstdint>
#include <string>
#include <vector>

namespace weibo {

class Shard;
class Stmt;

struct IndexedMsg {
  int64_t msg_id = 0, user_id = 0;
  std::string content;
};

// Puts or replaces the row of msg.msg_id (in the search file's open transaction).
void IndexMsg(Shard& search, const IndexedMsg& msg);
void UnindexMsg(Shard& search, int64_t msg_id);
void ClearIndex(Shard& search);
// FTS5's 'optimize': merges the index into one segment (after a rebuild).
void OptimizeIndex(Shard& search);
// Every row, by msg_id (fsck).
std::vector<IndexedMsg> AllIndexed(Shard& search);

// The FTS5 query of a text: the text's trigrams, each a quoted FTS5 string (a '"' doubled),
// joined by AND. Nothing in the text is FTS5 syntax: '"', '*', '-', ':', '^', NEAR, AND,
// OR, NOT and parentheses are characters to find. The text has at least 3 code points.
std::string TrigramQuery(const std::string& text);
// The code points of valid UTF-8 text.
int64_t CodePoints(const std::string& text);
// Whether text holds needle, ASCII letters compared without case (as the trigram
// tokenizer folds them; other characters exactly).
bool Contains(const std::string& text, const std::string& needle);

// The rows matching a query with lo <= msg_id < hi (and of author, when not 0), newest
// first, read one at a time: FTS5 walks the trigrams' lists backwards from hi and stops
// when the caller does, so a search merging many shards reads about as many rows as it
// shows. Holds the search file's statement until destroyed: one cursor per file at a time.
class IndexCursor {
 public:
  IndexCursor(Shard& search, const std::string& query, int64_t author, int64_t lo, int64_t hi);
  ~IndexCursor();
  IndexCursor(const IndexCursor&) = delete;
  IndexCursor& operator=(const IndexCursor&) = delete;
  // The next row; false when there are no more.
  bool Next(IndexedMsg* out);

 private:
  Stmt* stmt_ = nullptr;  // nullptr: nothing indexed in the range
};

}  // namespace weibo

#endif  // WEIBO_TABLES_SEARCH_INDEX_H_
