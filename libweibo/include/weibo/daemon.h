// weibod: every operation of the operation table served over a ZeroMQ ROUTER socket.
// The protocol — framing, request and reply objects, limits, retries — is the document
// weibod(1); this header is the whole API of the server side. The client side is
// OpenRemote() in weibo/request.h.
#ifndef WEIBO_DAEMON_H_
#define WEIBO_DAEMON_H_

#include <cstddef>
#include <functional>
#include <string>

#include "weibo/status.h"

namespace weibo {

struct DaemonOptions {
  std::string data_dir = "./shards";          // an initialised cluster (weibo-init)
  std::string bind = "tcp://127.0.0.1:5550";  // "tcp://127.0.0.1:*" picks a free port
  size_t max_msg_size = 64 * 1024;            // largest request frame: ZMQ_MAXMSGSIZE (64 KiB)
  int max_depth = 32;                         // deepest JSON nesting of a request
  double rate = 1000;             // requests a second per peer, and the burst; 0: no limit
  size_t dedup = 10000;           // replies to write requests kept by id; 0: none
  size_t dedup_bytes = 64 << 20;  // ... and at most this many bytes of them (64 MiB)
  int drain_ms = 60000;           // after a signal, time left to answer received requests
  // Group commit (EmbeddedOptions::group_commit): deliveries to other shards whose done
  // marks wait for one shared sync of each shard; synced when this many have gathered,
  // when no request has come for a few milliseconds, and at least every 50 ms (under
  // load on a thread of its own: Executor::Tick). 0: none.
  size_t group_commit = 1024;
  // With group commit: the held batches applied on a thread of the daemon's own
  // (EmbeddedOptions::background_applies); weibod --no-background-applies turns it off.
  bool background_applies = true;
  // Hot counters (EmbeddedOptions::counter_cache, weibod --counter-cache): the live
  // counters of this many recently read messages kept in memory for weibo-count; 0: none.
  size_t counter_cache = 100000;
  // Last-read ids (EmbeddedOptions::seen_cache, weibod --seen-cache): notify unread serves
  // the stored ids of this many users from memory (32 bytes each); 0: none.
  size_t seen_cache = size_t{1} << 20;
  // Page rows (EmbeddedOptions::message_cache, weibod --message-cache): the rows of this
  // many recently shown messages kept in memory for timelines and lists; 0: none.
  size_t message_cache = 100000;
  // Every this many milliseconds, between requests, one pass of the drain op over every
  // outbox: the jobs left pending by --async writes and by processes that crashed are
  // applied without waiting for weibo-worker, so a running daemon finishes them itself.
  // 0: never (the jobs wait for weibo-worker or a drain request).
  int drain_interval_ms = 1000;
  // Whether a request's "now" (a fixed clock) is taken. Off: such a request is refused
  // with invalid_argument, since any client could otherwise move a shard's id sequence
  // and pull partitions to any time up to 2089 (issue 11). weibod --allow-clock, for
  // tests and golden runs through a daemon.
  bool allow_clock = false;
  // weibod --auth (weibod(1), AUTHENTICATION): every request must carry an access token
  // that grants it (weibo-token(1)); rate limits count per token. Off: tokens are not
  // looked at, and the daemon binds a loopback or ipc:// endpoint only, since anyone who
  // can reach it can act as any user.
  bool auth = false;
  // weibod --events: a ZeroMQ PUB socket bound here publishes each token revocation as it
  // reaches its app's events, one frame "token_revoked {json}" (weibod(1), EVENTS), so a
  // subscriber may filter on the prefix. Empty: none.
  std::string events;
  // Called once the socket is bound, with the endpoint it is bound to (the port chosen
  // for a wildcard one). weibod prints it: the "ready" line.
  std::function<void(const std::string& endpoint)> on_ready;
  // Called with one line when the daemon starts and when it stops (no newline).
  std::function<void(const std::string& line)> log;
};

// Opens the cluster, binds, and serves requests one at a time until SIGTERM or SIGINT
// (handlers installed for the duration of the call; a second signal kills the process).
// Returns Ok after a signal, once the requests already received are answered;
// storage_error when the data directory is missing, not initialised or has a bad shard;
// invalid_argument for an endpoint ZeroMQ does not accept, or one beyond loopback without
// auth (net/router.h, CheckLoopbackOnly); unavailable when the endpoint
// cannot be bound (in use, or not a local address).
Status RunDaemon(const DaemonOptions& options);

}  // namespace weibo

#endif  // WEIBO_DAEMON_H_
