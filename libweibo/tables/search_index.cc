#include "tables/search_index.h"

#include <limits>
#include <optional>

#include "storage/shard.h"

namespace weibo {
namespace {

// The byte length of the UTF-8 sequence that starts with lead (valid UTF-8: the edges
// refuse any other, ops/args.cc).
size_t SequenceLength(unsigned char lead) {
  if (lead < 0x80) return 1;
  if ((lead >> 5) == 0x6) return 2;
  if ((lead >> 4) == 0xe) return 3;
  return 4;
}

char Fold(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; }

// The spacing Renumber leaves between docids, so that later out-of-order messages find a
// free docid between their neighbours.
constexpr int64_t kRenumberStride = 16;

std::optional<int64_t> OneInt(Stmt& s) {
  std::optional<int64_t> v;
  if (s.Step()) v = s.Int(0);
  s.Reset();
  return v;
}

std::optional<int64_t> DocId(Shard& search, int64_t msg_id) {
  return OneInt(search.Query("SELECT docid FROM doc WHERE msg_id = ?").Bind(1, msg_id));
}

void PutRow(Shard& search, int64_t docid, const IndexedMsg& msg) {
  search.Query("INSERT INTO msg_fts(rowid, content, user_id, msg_id) VALUES (?, ?, ?, ?)")
      .BindAll(docid, msg.content, msg.user_id, msg.msg_id)
      .Run();
}

// Gives every message a new docid, kRenumberStride apart in msg_id order, moving its row.
void Renumber(Shard& search) {
  std::vector<IndexedMsg> rows = AllIndexed(search);
  ClearIndex(search);
  int64_t docid = 0;
  for (const IndexedMsg& row : rows) {
    docid += kRenumberStride;
    search.Query("INSERT INTO doc(msg_id, docid) VALUES (?, ?)").BindAll(row.msg_id, docid).Run();
    PutRow(search, docid, row);
  }
}

// A docid for a message not in doc, between those of its neighbours in msg_id order.
int64_t NewDocId(Shard& search, int64_t msg_id) {
  for (int attempt = 0;; ++attempt) {
    int64_t below =
        OneInt(search.Query("SELECT docid FROM doc WHERE msg_id < ? ORDER BY msg_id DESC LIMIT 1")
                   .Bind(1, msg_id))
            .value_or(0);
    auto above =
        OneInt(search.Query("SELECT docid FROM doc WHERE msg_id > ? ORDER BY msg_id LIMIT 1")
                   .Bind(1, msg_id));
    if (!above) return below + 1;  // the usual case: newer than everything indexed
    if (*above - below > 1) return below + (*above - below) / 2;
    if (attempt > 0) return below + 1;  // unreachable: Renumber spaced them out
    Renumber(search);
  }
}

// The lowest docid of a message with msg_id >= bound; nullopt when there is none.
std::optional<int64_t> DocIdFrom(Shard& search, int64_t bound) {
  return OneInt(search.Query("SELECT docid FROM doc WHERE msg_id >= ? ORDER BY msg_id LIMIT 1")
                    .Bind(1, bound));
}

}  // namespace

void IndexMsg(Shard& search, const IndexedMsg& msg) {
  auto docid = DocId(search, msg.msg_id);
  if (docid) {
    search.Query("DELETE FROM msg_fts WHERE rowid = ?").Bind(1, *docid).Run();
  } else {
    docid = NewDocId(search, msg.msg_id);
    search.Query("INSERT INTO doc(msg_id, docid) VALUES (?, ?)").BindAll(msg.msg_id, *docid).Run();
  }
  PutRow(search, *docid, msg);
}

void UnindexMsg(Shard& search, int64_t msg_id) {
  auto docid = DocId(search, msg_id);
  if (!docid) return;
  search.Query("DELETE FROM msg_fts WHERE rowid = ?").Bind(1, *docid).Run();
  search.Query("DELETE FROM doc WHERE msg_id = ?").Bind(1, msg_id).Run();
}

void ClearIndex(Shard& search) {
  search.Query("DELETE FROM msg_fts").Run();
  search.Query("DELETE FROM doc").Run();
}

void OptimizeIndex(Shard& search) {
  search.Query("INSERT INTO msg_fts(msg_fts) VALUES ('optimize')").Run();
}

std::vector<IndexedMsg> AllIndexed(Shard& search) {
  Stmt& s = search.Query(
      "SELECT d.msg_id, f.user_id, f.content FROM doc d JOIN msg_fts f ON f.rowid = d.docid "
      "ORDER BY d.msg_id");
  // (doc's msg_id, not msg_fts's copy: fsck compares the two stores through it)
  std::vector<IndexedMsg> rows;
  while (s.Step()) rows.push_back({s.Int(0), s.Int(1), s.Text(2)});
  return rows;
}

std::string TrigramQuery(const std::string& text) {
  std::vector<size_t> starts;  // byte offset of every code point
  for (size_t i = 0; i < text.size(); i += SequenceLength(static_cast<unsigned char>(text[i])))
    starts.push_back(i);
  starts.push_back(text.size());
  std::string query;
  for (size_t k = 0; k + 3 < starts.size(); ++k) {
    if (!query.empty()) query += " AND ";
    query += '"';
    for (size_t i = starts[k]; i < starts[k + 3]; ++i) {
      if (text[i] == '"') query += '"';
      query += text[i];
    }
    query += '"';
  }
  return query;
}

int64_t CodePoints(const std::string& text) {
  int64_t n = 0;
  for (size_t i = 0; i < text.size(); i += SequenceLength(static_cast<unsigned char>(text[i]))) ++n;
  return n;
}

bool Contains(const std::string& text, const std::string& needle) {
  if (needle.size() > text.size()) return false;
  for (size_t i = 0; i + needle.size() <= text.size(); ++i) {
    size_t k = 0;
    while (k < needle.size() && Fold(text[i + k]) == Fold(needle[k])) ++k;
    if (k == needle.size()) return true;
  }
  return false;
}

IndexCursor::IndexCursor(Shard& search, const std::string& query, int64_t author, int64_t lo,
                         int64_t hi) {
  auto first = DocIdFrom(search, lo);
  if (!first) return;  // nothing indexed from lo on
  const int64_t end = DocIdFrom(search, hi).value_or(std::numeric_limits<int64_t>::max());
  // The rowid range and ORDER BY rowid DESC are FTS5's own: no sort of the matches.
  stmt_ = author != 0 ? &search.Query(
                            "SELECT msg_id, user_id, content FROM msg_fts WHERE msg_fts MATCH ?1 "
                            "AND rowid >= ?2 AND rowid < ?3 AND user_id = ?4 ORDER BY rowid DESC")
                      : &search.Query(
                            "SELECT msg_id, user_id, content FROM msg_fts WHERE msg_fts MATCH ?1 "
                            "AND rowid >= ?2 AND rowid < ?3 ORDER BY rowid DESC");
  stmt_->BindAll(TrigramQuery(query), *first, end);
  if (author != 0) stmt_->Bind(4, author);
}

IndexCursor::~IndexCursor() {
  if (stmt_ != nullptr) stmt_->Reset();
}

bool IndexCursor::Next(IndexedMsg* out) {
  if (stmt_ == nullptr) return false;
  if (!stmt_->Step()) {
    stmt_->Reset();
    stmt_ = nullptr;
    return false;
  }
  *out = {stmt_->Int(0), stmt_->Int(1), stmt_->Text(2)};
  return true;
}

}  // namespace weibo
