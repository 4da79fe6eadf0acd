// Migrations: kMigrations[i] takes a shard from user_version i to i+1. Never edit a
// migration that has shipped; add the next one.
#include "storage/schema.h"

#include <string>

#include "storage/failure.h"
#include "storage/shard.h"

namespace weibo {
namespace {

const char* const kMigrations[] = {
    // 1: the tables of SPEC §3 (seed 000 names, without the t_ prefix).
    R"sql(
CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
CREATE TABLE user_info(
  user_id INTEGER PRIMARY KEY, user_name TEXT NOT NULL,
  msg_count INTEGER NOT NULL DEFAULT 0, fans_count INTEGER NOT NULL DEFAULT 0,
  follow_count INTEGER NOT NULL DEFAULT 0, created INTEGER NOT NULL,
  last_active INTEGER NOT NULL);
CREATE TABLE user_name(user_name TEXT PRIMARY KEY, user_id INTEGER NOT NULL) WITHOUT ROWID;
CREATE TABLE user_relation(
  user_id INTEGER NOT NULL, follow_id INTEGER NOT NULL, type INTEGER NOT NULL,
  time INTEGER NOT NULL, PRIMARY KEY(user_id, type, follow_id)) WITHOUT ROWID;
CREATE TABLE msg_index(
  user_id INTEGER NOT NULL, msg_id INTEGER NOT NULL, author_id INTEGER NOT NULL,
  time INTEGER NOT NULL, PRIMARY KEY(user_id, msg_id)) WITHOUT ROWID;
CREATE INDEX msg_index_by_author ON msg_index(user_id, author_id);
CREATE TABLE msg_info(
  msg_id INTEGER PRIMARY KEY, user_id INTEGER NOT NULL, content TEXT NOT NULL,
  type INTEGER NOT NULL, ref_msg_id INTEGER, ref_user_id INTEGER,
  root_msg_id INTEGER, root_user_id INTEGER, time INTEGER NOT NULL);
CREATE INDEX msg_info_by_user ON msg_info(user_id, msg_id);
CREATE TABLE msg_counter(
  msg_id INTEGER PRIMARY KEY,
  commented_count INTEGER NOT NULL DEFAULT 0, comment_count INTEGER NOT NULL DEFAULT 0,
  transferred_count INTEGER NOT NULL DEFAULT 0, transfer_count INTEGER NOT NULL DEFAULT 0,
  like_count INTEGER NOT NULL DEFAULT 0, view_count INTEGER NOT NULL DEFAULT 0);
CREATE TABLE msg_msg_relation(
  reference_id INTEGER NOT NULL, reference_msg_id INTEGER NOT NULL,
  referenced_id INTEGER NOT NULL, referenced_msg_id INTEGER NOT NULL,
  type INTEGER NOT NULL, time INTEGER NOT NULL, page_index INTEGER NOT NULL,
  PRIMARY KEY(reference_id, reference_msg_id)) WITHOUT ROWID;
CREATE INDEX msg_msg_relation_by_page
  ON msg_msg_relation(referenced_msg_id, type, page_index, reference_msg_id);
CREATE TABLE msg_seq(low8 INTEGER PRIMARY KEY, last_id INTEGER NOT NULL);
CREATE TABLE outbox(
  job_id INTEGER PRIMARY KEY AUTOINCREMENT, target_shard INTEGER NOT NULL,
  kind TEXT NOT NULL, payload TEXT NOT NULL, created INTEGER NOT NULL,
  state INTEGER NOT NULL DEFAULT 0);
CREATE INDEX outbox_pending ON outbox(job_id) WHERE state = 0;
CREATE TABLE job_applied(job_id INTEGER PRIMARY KEY, applied INTEGER NOT NULL);
)sql",
    // 2: the push inbox cap (SPEC §5). inbox_floor.floor_msg_id: below it the reader's
    // inbox was trimmed and may be incomplete, so timelines pull what lies below it.
    R"sql(
CREATE TABLE inbox_floor(user_id INTEGER PRIMARY KEY, floor_msg_id INTEGER NOT NULL);
)sql",
    // 3: hybrid's celebrity mark. Once an author's fans_count reaches the threshold the
    // author is pulled for good: posts made while pulled were never pushed, so pushing
    // again after a drop below the threshold would hide them.
    R"sql(
ALTER TABLE user_info ADD COLUMN pulled INTEGER NOT NULL DEFAULT 0;
)sql",
    // 4: deleted messages a shard has heard of (tables/msg_deleted.h), so that a delivery,
    // inbox merge or ref_add a crash left pending adds nothing once its message is gone.
    R"sql(
CREATE TABLE msg_deleted(msg_id INTEGER PRIMARY KEY);
)sql",
    // 5: the feed modes of SPEC §5 in full.
    //  author_feed / author_part: pull's time-partitioned author outboxes — every message
    //    of an author keyed by (author, part, msg_id), part = the id's week since the id
    //    epoch (tables/author_feed.h); author_part lists the partitions an author has, so a
    //    merge skips empty weeks without touching the messages.
    //  active_fan: hybrid's fixed-length LRU list of each author's active followers
    //    (seed 004), on the author's shard; touched is a per-author sequence.
    //  active_on: on the reader's shard, the authors whose active list holds the reader
    //    (since = the list entry's sequence): only those push to the reader.
    //  user_info.lists_touched: when the user last (re)joined their followees' lists.
    R"sql(
CREATE TABLE author_feed(
  user_id INTEGER NOT NULL, part INTEGER NOT NULL, msg_id INTEGER NOT NULL,
  type INTEGER NOT NULL, PRIMARY KEY(user_id, part, msg_id)) WITHOUT ROWID;
CREATE TABLE author_part(
  user_id INTEGER NOT NULL, part INTEGER NOT NULL, PRIMARY KEY(user_id, part)) WITHOUT ROWID;
INSERT INTO author_feed(user_id, part, msg_id, type)
  SELECT user_id, (msg_id >> 22) / 604800000, msg_id, type FROM msg_info;
INSERT OR IGNORE INTO author_part(user_id, part) SELECT user_id, part FROM author_feed;
CREATE TABLE active_fan(
  author_id INTEGER NOT NULL, fan_id INTEGER NOT NULL, touched INTEGER NOT NULL,
  PRIMARY KEY(author_id, fan_id)) WITHOUT ROWID;
CREATE INDEX active_fan_lru ON active_fan(author_id, touched);
CREATE TABLE active_on(
  user_id INTEGER NOT NULL, author_id INTEGER NOT NULL, since INTEGER NOT NULL,
  PRIMARY KEY(user_id, author_id)) WITHOUT ROWID;
ALTER TABLE user_info ADD COLUMN lists_touched INTEGER NOT NULL DEFAULT 0;
)sql",
    // 6: the durable request-id dedup window (tables/request_log.h): the ids of the write
    //    requests applied with this shard as their home, with what rebuilds their reply.
    R"sql(
CREATE TABLE request_log(
  seq INTEGER PRIMARY KEY, request_id TEXT NOT NULL UNIQUE, op TEXT NOT NULL,
  result INTEGER NOT NULL, time INTEGER NOT NULL);
)sql",
    // 7: author_feed by id alone, covering the type (the primary key adds user_id): a pull
    //    reader who follows many of a shard's authors scans the shard's outboxes newest
    //    first in one range instead of seeking each followee's (flows/timeline.cc).
    R"sql(
CREATE INDEX author_feed_by_id ON author_feed(msg_id, type);
)sql",
    // 8: no msg_index_by_author. Its only reader removed an unfollowed author's rows from
    //    one inbox, which the primary key's user_id range finds as well: an inbox holds at
    //    most inbox_cap rows and a few. Every delivery wrote a leaf of it for each reader,
    //    as many pages again as the inbox rows themselves.
    R"sql(
DROP INDEX msg_index_by_author;
)sql",
    // 9: request_log.fingerprint (tables/request_log.h): the same request id with another
    //    op or other args is refused instead of being answered with the first one's reply.
    //    Rows recorded before have '' and keep matching on the id and op, as they did.
    R"sql(
ALTER TABLE request_log ADD COLUMN fingerprint TEXT NOT NULL DEFAULT '';
)sql",
    // 10: apps and access tokens (SPEC §8, tables/access_token.h). app and app_event on the
    //     shard named by the app key's first byte (the app name's shard), access_token on
    //     its user's shard. Hashes are keyed BLAKE2b-256 in hex; a token or secret itself
    //     is never stored.
    R"sql(
CREATE TABLE app(
  app_key TEXT PRIMARY KEY, name TEXT NOT NULL UNIQUE, secret_hash TEXT NOT NULL,
  created INTEGER NOT NULL) WITHOUT ROWID;
CREATE TABLE access_token(
  user_id INTEGER NOT NULL, token_id TEXT NOT NULL, token_hash TEXT NOT NULL,
  app_key TEXT NOT NULL, scope INTEGER NOT NULL, issued INTEGER NOT NULL,
  expires INTEGER NOT NULL, revoked INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY(user_id, token_id)) WITHOUT ROWID;
CREATE TABLE app_event(
  seq INTEGER PRIMARY KEY, app_key TEXT NOT NULL, kind TEXT NOT NULL,
  token_id TEXT NOT NULL, user_id INTEGER NOT NULL, time INTEGER NOT NULL,
  UNIQUE(app_key, kind, token_id));
)sql",
    // 11: seed 004 (SPEC §6). msg_like: who likes a message, on the message's shard (its
    //     count is msg_counter.like_count); by time for the newest-first pages.
    //     notification: the one list of system notifications for everyone, on shard 0.
    //     last_seen: per user (on the user's shard) the id of the last item seen of a list
    //     (kind 0 notifications, 1 the home timeline's red dot) and when it was stored.
    R"sql(
CREATE TABLE msg_like(
  msg_id INTEGER NOT NULL, user_id INTEGER NOT NULL, time INTEGER NOT NULL,
  PRIMARY KEY(msg_id, user_id)) WITHOUT ROWID;
CREATE INDEX msg_like_by_time ON msg_like(msg_id, time, user_id);
CREATE TABLE notification(
  notify_id INTEGER PRIMARY KEY, content TEXT NOT NULL, time INTEGER NOT NULL);
CREATE TABLE last_seen(
  user_id INTEGER NOT NULL, kind INTEGER NOT NULL, last_id INTEGER NOT NULL,
  time INTEGER NOT NULL, PRIMARY KEY(user_id, kind)) WITHOUT ROWID;
CREATE INDEX last_seen_by_time ON last_seen(kind, time);
)sql",
    // 12: edits (seed 003's update, weibo-edit(1)). msg_info.edited: when the text was last
    //     changed (0: never), edit_count: how many times. msg_history: every text a message
    //     had before an edit, on the message's shard; version n is the text edit n replaced
    //     and time when that text was written (the post's time, or edit n-1's).
    R"sql(
ALTER TABLE msg_info ADD COLUMN edited INTEGER NOT NULL DEFAULT 0;
ALTER TABLE msg_info ADD COLUMN edit_count INTEGER NOT NULL DEFAULT 0;
CREATE TABLE msg_history(
  msg_id INTEGER NOT NULL, version INTEGER NOT NULL, content TEXT NOT NULL,
  time INTEGER NOT NULL, PRIMARY KEY(msg_id, version)) WITHOUT ROWID;
)sql",
    // 13 (issue 15; its number is this entry's place in the list): FriendFeed's schemaless
    //     entity store (seed 001, tables/entity.h). entities: added_id keeps the rows in
    //     insertion order on disk, id is the 16-byte entity id, body its zlib-compressed
    //     JSON object; by updated for the cleaner's newest-first walk. The index tables
    //     index_<name> are made by weibo-index(1), not here. cleaner_progress: where each
    //     of weibo-cleaner(1)'s walks over this shard stopped, so a killed run resumes.
    R"sql(
CREATE TABLE entities(
  added_id INTEGER PRIMARY KEY AUTOINCREMENT, id BLOB NOT NULL UNIQUE,
  updated INTEGER NOT NULL, body BLOB NOT NULL);
CREATE INDEX entities_by_updated ON entities(updated, added_id);
CREATE TABLE cleaner_progress(task TEXT PRIMARY KEY, cursor TEXT NOT NULL) WITHOUT ROWID;
)sql",
    // 14 (issue 14): the uid-mapping strategy's t_mapping of seed 003 (storage/shard_set.h,
    //     MsgShardIndex): tid -> uid, on shard tid mod N, written when the message is made
    //     (flows/placement.cc); deleted = 1 once the message is deleted: the row stays,
    //     since the comments and reposts of a deleted message stay on its shard and are
    //     still found through it. Empty under the other strategies.
    R"sql(
CREATE TABLE tid_map(tid INTEGER PRIMARY KEY, uid INTEGER NOT NULL,
                     deleted INTEGER NOT NULL DEFAULT 0);
)sql",
    // 15: no outbox_pending. A job that is done is deleted (tables/outbox.h), never kept
    //     with another state, so the partial index held every row of the outbox, in the
    //     table's own rowid order: each write that enqueued or finished a job wrote one page
    //     more to the WAL (a post: 14 pages instead of 13, then its done marks) for an index
    //     that no query needed. The rows an older build kept as done (state 1), which the
    //     index let the drains pass over, are deleted, as they are now when marked.
    R"sql(
DELETE FROM outbox WHERE state <> 0;
DROP INDEX outbox_pending;
)sql",
    // 16: outbox_counter_delta, the pending counter deltas (likes, views) by target shard.
    //     Reads add them to the counters (tables/msg_counter.h, msg_page.h); without an
    //     index each such read scanned the whole outbox, which under group commit holds
    //     the held jobs too, payloads and all. Partial: the other jobs, nearly all of
    //     them, cost no index write (tables/outbox.h, kCounterDeltaKind).
    R"sql(
CREATE INDEX outbox_counter_delta ON outbox(target_shard) WHERE kind = 'counter_delta';
)sql",
    // 17: user_relation_followers, a followee's followers on this shard in id order (the
    //     follow rows, type 1, only). A large delivery checks that its readers still follow
    //     the author with one range scan of it, where a seek of the primary key per reader
    //     cost three times as much (flows/fanout.cc, FollowersBetween).
    R"sql(
CREATE INDEX user_relation_followers ON user_relation(follow_id, user_id) WHERE type = 1;
)sql",
};

// The search files (search-NN.db, SPEC §7): derived data, rebuilt from msg_info at will
// (weibo-search --rebuild), so they have their own versions and no migration of the
// shards depends on them (tables/search_index.h says how they are used).
//   msg_fts: FTS5 with the trigram tokenizer, one row per message with text: the text, its
//     author (unindexed, for --author) and its msg_id (unindexed: a hit carries its id).
//     detail=none: no positions (a query of several trigrams is checked on the stored text);
//     columnsize=0: no bm25, no sizes to keep.
//   doc: msg_id -> docid, msg_fts's rowid. Docids follow msg_id order but are dense (1,
//     2, 3, ...): a doclist stores the gaps between rowids, and gene ids are 2^22 apart
//     per millisecond, so dense docids make the index about half as large.
const char* const kSearchMigrations[] = {
    R"sql(
CREATE VIRTUAL TABLE msg_fts USING fts5(
  content, user_id UNINDEXED, msg_id UNINDEXED, tokenize = 'trigram', detail = none,
  columnsize = 0);
CREATE TABLE doc(msg_id INTEGER PRIMARY KEY, docid INTEGER NOT NULL UNIQUE);
)sql",
};

constexpr int64_t kVersions = sizeof(kMigrations) / sizeof(kMigrations[0]);

}  // namespace

int64_t SchemaVersion() { return kVersions; }

void Migrate(Shard& shard, bool fresh) {
  if (fresh) {
    shard.Exec("PRAGMA journal_mode=WAL");
    shard.Exec(("PRAGMA application_id=" + std::to_string(kApplicationId)).c_str());
  } else {
    Stmt& s = shard.Query("PRAGMA application_id");
    s.Step();
    int64_t app = s.Int(0);
    s.Reset();
    if (app != kApplicationId)
      Fail(Code::kStorageError, shard.name() + " (" + shard.path() + ") is not a weibo shard");
  }
  int64_t version = shard.UserVersion();
  if (version > kVersions)
    Fail(Code::kStorageError, shard.name() + " has schema version " + std::to_string(version) +
                                  ", newer than this build (" + std::to_string(kVersions) + ")");
  while (version < kVersions) {
    WriteTxn txn(shard);
    if (shard.UserVersion() != version) {  // another process migrated it meanwhile
      version = shard.UserVersion();
      continue;
    }
    shard.Exec(kMigrations[version]);
    ++version;
    shard.Exec(("PRAGMA user_version=" + std::to_string(version)).c_str());
    txn.Commit();
  }
}

void MigrateSearch(Shard& shard) {
  constexpr int64_t versions = sizeof(kSearchMigrations) / sizeof(kSearchMigrations[0]);
  int64_t version = shard.UserVersion();
  if (version > versions)
    Fail(Code::kStorageError, shard.name() + " has search schema version " +
                                  std::to_string(version) + ", newer than this build");
  while (version < versions) {
    WriteTxn txn(shard);
    if (shard.UserVersion() != version) {  // another process created it meanwhile
      version = shard.UserVersion();
      continue;
    }
    if (version == 0) {
      Stmt& s = shard.Query("PRAGMA application_id");
      int64_t app = s.Step() ? s.Int(0) : 0;
      s.Reset();
      if (app != 0 && app != kSearchApplicationId)
        Fail(Code::kStorageError, shard.path() + " is not a weibo search file");
      shard.Exec(("PRAGMA application_id=" + std::to_string(kSearchApplicationId)).c_str());
    }
    shard.Exec(kSearchMigrations[version]);
    ++version;
    shard.Exec(("PRAGMA user_version=" + std::to_string(version)).c_str());
    txn.Commit();
  }
}

}  // namespace weibo
