// Request and Executor: the one path every operation takes, in-process or through a daemon.
//
// A Request is {op, args} — the same value on the command line, on the wire and in a trace.
// An Executor runs it. The embedded executor opens the shard files; the remote executor
// sends the same Request to a daemon, weibod(1). Commands build a Request, run it, render
// the Result: nothing else.
#ifndef WEIBO_REQUEST_H_
#define WEIBO_REQUEST_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "weibo/status.h"
#include "weibo/storage.h"  // Json, SetDurableCommits

namespace weibo {

class JobTransport;  // a cluster node's (libweibo/jobs/transport.h); not for library users
class ExplainLog;    // libweibo/storage/explain_log.h: weibo-explain's; not for library users

struct Request {
  std::string op;
  Json args = Json::object();
  // How to run it, whichever executor does: on the wire these are the request's "now"
  // and "async" fields (weibod(1)).
  int64_t now_ms = 0;  // fixed clock in ms since the Unix epoch; 0: the executor's own
  bool async = false;  // return before the outbox jobs this write created are applied
  // The request's id: on the wire the request's "id" (weibod(1)). A remote executor sends
  // it (a new random one when empty). An embedded executor given one records it with the
  // write it applies, on the write's home shard and in the same transaction, so that the
  // same request run again with that id — even by another process, after a restart —
  // applies nothing and gets the first run's result, rebuilt (tables/request_log.h;
  // weibod(1), Retries, says what may differ). Commands leave it empty: an embedded
  // command is never deduplicated.
  std::string id{};  // (an initializer, so that Request{op, args} stays warning-free)
  // Set by weibod --auth (weibod(1), AUTHENTICATION): the executor runs the request only
  // if token (the request's "token") grants it, and refuses it with a token_* code or
  // forbidden before anything is read or written for it. Commands leave it unset: on the
  // files themselves, their permissions are the boundary.
  bool authenticate = false;
  std::string token{};
};

// Options of an embedded executor.
struct EmbeddedOptions {
  std::string data_dir = "./shards";  // holds cluster.json and shard-NN.db
  // Fixed clock in milliseconds since the Unix epoch; 0 means the system clock. A
  // request's own now_ms, when not 0, wins.
  long long now_ms = 0;
  // Drain the outbox jobs a write created before returning, so the caller sees a finished
  // state (weibo(7), THE OUTBOX AND IDEMPOTENT JOBS); a request with async set is not
  // drained either way.
  bool drain = true;
  // Record every statement each shard runs, for --explain.
  bool explain = false;
  // With explain: the log to record them in, with their bound values and rows, owned by
  // the caller and outliving the executor (weibo-explain(1)). nullptr: the executor's own.
  ExplainLog* explain_log = nullptr;
  // Set by a cluster node (weibod --shards) only: jobs for shards it does not own go
  // through it. nullptr: every job is applied here.
  JobTransport* transport = nullptr;
  // Group commit of deliveries (weibod(1) --group-commit): a delivery to another shard commits
  // without an fsync, and its outbox job stays pending until one sync of that shard's WAL,
  // shared by every delivery since: once this many such jobs have gathered, at Idle(), and
  // when the executor closes. 0: every request syncs its own deliveries before it returns.
  // Long-running servers (weibod, the bench) set it; a power cut loses no job either way,
  // since a job is marked done only once its delivery is synced.
  int group_commit = 0;
  // With group_commit: apply the deliveries and list joins a server holds back on a thread
  // with connections of its own (weibod(1) --background-applies), one batch at a time,
  // rather than on the request that finds the batch due (jobs.h, background applies).
  bool background_applies = false;
  // Hot counters (weibod(1) --counter-cache): weibo-count serves the counters of this many
  // recently read messages from memory, kept exact by the rules of weibo(7), HOT AND COLD
  // COUNTERS. 0: none, every read goes to its shard (a one-shot command gains nothing).
  int counter_cache = 0;
  // Last-read ids (weibod(1) --seen-cache): notify unread keeps the stored last-read ids
  // of up to this many users in memory, kept exact by the rules of weibo(7), NOTIFICATIONS
  // AND THE RED DOT. 0: none, every unread reads its user's row.
  int64_t seen_cache = 0;
  // Page rows (weibod(1) --message-cache): the timelines and other message lists read the
  // rows of up to this many recently shown messages (with counters, author name and attrs)
  // from memory, kept exact by the rules of weibo(7), THE MESSAGE CACHE. 0: none, every
  // page reads its rows from the shards.
  int64_t message_cache = 0;
  // Called with each event as the job that records it is applied here, once per event:
  // {"event":"token_revoked","app","token_id","user_id","time"} when a revocation reaches
  // its app's events (weibo-app(1)). weibod --events publishes them. Default: none.
  std::function<void(const Json& event)> on_event;
  // Told how far a long op has got (fsck's passes over the shards, a drain's jobs): the
  // stage's name, steps done, steps in all. The commands draw it as a progress bar.
  std::function<void(const char* stage, int64_t done, int64_t total)> progress;
};

class Executor {
 public:
  virtual ~Executor() = default;
  // Runs one request. On success the result is that op's JSON object, as --json prints it
  // (weibo(7) and each command's page describe it).
  virtual Result<Json> Execute(const Request& request) = 0;
  // Runs one request for a server's reply: as Execute, except that a result written as
  // JSON text comes back as a null Json and that text in *text, byte for byte the dump of
  // what Execute returns: embedded, an op that writes its result so (OpSpec::text: count);
  // through a daemon, every array or object result (the reply's own bytes, validated).
  // *text is left empty otherwise.
  virtual Result<Json> ExecuteForReply(const Request& request, std::string* text) {
    text->clear();
    return Execute(request);
  }
  // The statements run by the last Execute, one line each ("shard-03: SELECT ..."),
  // when explain was asked for; empty otherwise.
  virtual std::vector<std::string> Explain() const { return {}; }
  // What the last Execute warns of, one line each, when it succeeded all the same: a
  // write that committed but could not apply all of its outbox jobs, which stay pending
  // for weibo-worker or a daemon (weibo(7), WRITES THAT LEAVE JOBS PENDING). Empty
  // otherwise. A remote executor returns the daemon's (the reply's "warnings").
  virtual std::vector<std::string> Warnings() const { return {}; }
  // Called by a server with nothing to do: finishes deferred work (the group commit).
  virtual void Idle() {}
  // Called by a server under steady load, at least every few tens of milliseconds: does
  // the deferred work that is due without making the next request wait for a batch
  // (ops/embedded.cc says what that is). By default, as Idle().
  virtual void Tick() { Idle(); }
  // Called by a server with nothing to do, in place of Idle(): does one step of the same
  // work (one target's held deliveries, one sync) and returns whether more remains, so
  // that the server can stop between steps when a request arrives rather than make it
  // wait for all of it. By default, all of it at once.
  virtual bool IdleStep() {
    Idle();
    return false;
  }
};

// What the home timeline reads of this process's embedded executors have merged since it
// started: reads, and followees pulled (merged from their own posts, not read from the
// inbox: every followee in pull; celebrities and the authors whose active list lacks the
// reader in hybrid). weibo-bench(1) and weibo-sim(1) report pulled authors per read from
// the difference around each read; a daemon's reads count in the daemon's process.
struct HomeReadTotals {
  int64_t reads = 0, pulled_authors = 0;
};
HomeReadTotals HomeReadCounts();

// An executor over the shard files in options.data_dir. Opening is lazy: a missing or
// corrupt cluster is reported by the first Execute as storage_error.
std::unique_ptr<Executor> OpenEmbedded(const EmbeddedOptions& options);

// Options of a remote executor.
struct RemoteOptions {
  std::string endpoint;  // a daemon's ZeroMQ endpoint, e.g. "tcp://127.0.0.1:5550"
  // Total time to wait for a reply, in milliseconds. The request is sent `attempts` times
  // with the same id, each attempt waiting timeout_ms / attempts on a fresh socket.
  int timeout_ms = 10000;
  int attempts = 4;
  // A request larger than this is not sent (the daemon would drop the connection without
  // a reply): it fails with the error its arguments earn, else request_too_large. Keep
  // equal to the daemon's --max-msg-size.
  size_t max_msg_size = 64 * 1024;
  std::string token;     // sent as the request's "token" when not empty
  bool explain = false;  // ask for the statements run; Explain() returns them
};

// An executor that sends each Request to the daemon at options.endpoint (the Lazy Pirate
// pattern). No reply after every attempt is Status(unavailable); a malformed endpoint is
// invalid_argument; otherwise the Result is the daemon's, exactly as the embedded
// executor would have returned it.
std::unique_ptr<Executor> OpenRemote(const RemoteOptions& options);

}  // namespace weibo

#endif  // WEIBO_REQUEST_H_
