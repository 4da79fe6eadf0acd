#include "daemon/service.h"

#include "tables/request_log.h"
#include "weibo/ops.h"

namespace weibo::daemon {

using net::EncodeReply;
using net::EncodeReplyText;
using net::ParseRequest;
using net::WireRequest;

Service::Service(const DaemonOptions& options, JobTransport* transport,
                 std::function<void(const Json&)> on_event)
    : options_(options),
      transport_(transport),
      on_event_(std::move(on_event)),
      limits_{options.max_msg_size, options.max_depth},
      rate_(options.rate),
      replies_(options.dedup, options.dedup_bytes),
      executor_(Open(false)) {}

// Explained requests run on a fresh executor: the statements that open a shard are part
// of what --explain shows an embedded command doing, and a kept executor would not repeat
// them. Explain is for reading, not for speed.
std::unique_ptr<Executor> Service::Open(bool explain) const {
  EmbeddedOptions eo;
  eo.data_dir = options_.data_dir;
  eo.explain = explain;
  eo.transport = transport_;
  eo.on_event = on_event_;
  eo.group_commit = explain ? 0 : static_cast<int>(options_.group_commit);
  eo.background_applies = options_.background_applies;
  // An explained request runs cold: its statements are what an embedded command runs.
  eo.counter_cache = explain ? 0 : static_cast<int>(options_.counter_cache);
  eo.seen_cache = explain ? 0 : static_cast<int64_t>(options_.seen_cache);
  eo.message_cache = explain ? 0 : static_cast<int64_t>(options_.message_cache);
  return OpenEmbedded(eo);
}

void Service::DrainPending() {
  // A daemon taking its requests' clocks (--allow-clock: golden runs) leaves the 30-day
  // expiry of last-seen ids to drain requests that carry a clock: its own clock is not
  // the data's (weibo-notify(1)).
  Json args = Json::object();
  if (options_.allow_clock) args["keep_seen"] = true;
  // The counter deltas held back to merge stay held until due (Idle() applies them then):
  // a pass every --drain-interval applying them would cost a hot message one UPDATE of its
  // counter row per interval for as long as its likes last.
  args["keep_held"] = true;
  Result<Json> drained = executor_->Execute(Request{"drain", args});
  if (!options_.log) return;
  if (!drained.ok()) {
    options_.log("drain: " + drained.status().message());
    return;
  }
  int64_t applied = drained.value().value("applied", int64_t{0});
  if (applied > 0) options_.log("drain: applied " + std::to_string(applied) + " pending job(s)");
}

bool Service::TokenGood(const std::string& token) {
  return !token.empty() && executor_->Execute(Request{"token_check", {{"token", token}}}).ok();
}

std::string Service::Handle(const std::string& peer, const std::string& body) {
  std::string reply;
  Handle(peer, body, [&reply](const std::string& r) { reply = r; });
  return reply;
}

void Service::Handle(const std::string& peer, const std::string& body,
                     const std::function<void(const std::string& reply)>& answer) {
  WireRequest wire;
  Status parsed = ParseRequest(body, limits_, &wire);
  if (!parsed.ok()) return answer(EncodeReply(wire.id, parsed, nullptr));
  // Under --auth a client is its token, however many connections it opens (a token that
  // turns out invalid is refused on its own bucket, which costs it a reply all the same).
  if (!rate_.Allow(RateLimiter::KeyOf(options_.auth, wire.token, peer),
                   RateLimiter::Time::clock::now()))
    return answer(EncodeReply(wire.id, rate_.Refusal(), nullptr));
  const std::string id = wire.id.is_string() ? wire.id.get<std::string>() : "";
  // Under --auth a kept reply is the token's own (it may hold a token just issued), and is
  // given again only while the token is still good: a revocation is heard at once.
  const std::string kept_as = options_.auth && !id.empty() ? wire.token + " " + id : id;
  Request& request = wire.request;
  const OpSpec* op = FindOperation(request.op);
  const bool writes = op != nullptr && op->writes;
  std::string fingerprint;
  // Only writes are kept, so a read needs its fingerprint only to be refused for an id a
  // kept write has (kReused): a read's hot path (count) spends nothing on hashing its args.
  if (!id.empty() && (writes || replies_.Holds(kept_as))) {
    fingerprint = RequestFingerprint(request.op, request.args);
    const std::string* kept = nullptr;
    switch (replies_.Find(kept_as, fingerprint, &kept)) {
      case ReplyCache::Match::kSame:
        if (!options_.auth || TokenGood(wire.token)) return answer(*kept);
        break;  // the token is no longer good: Execute says why
      case ReplyCache::Match::kReused:
        return answer(
            EncodeReply(wire.id, Status(Code::kInvalidRequest, kRequestIdReused), nullptr));
      case ReplyCache::Match::kNone:
        break;
    }
  }
  request.id = id;  // recorded with the write it applies: the dedup window outlives a restart
  request.authenticate = options_.auth;
  if (options_.auth) request.token = wire.token;
  if (op != nullptr && op->local != nullptr)  // it would replace the files served here
    return answer(EncodeReply(wire.id,
                              Status(Code::kInvalidRequest,
                                     request.op + " is not served by the daemon: run weibo-" +
                                         op->command + " on its data directory before starting it"),
                              nullptr));
  if (request.now_ms != 0 && !options_.allow_clock)  // DaemonOptions::allow_clock
    return answer(EncodeReply(wire.id,
                              Status(Code::kInvalidArgument,
                                     "a request's now is refused: this weibod was not started "
                                     "with --allow-clock, which takes a fixed clock for tests"),
                              nullptr));
  std::unique_ptr<Executor> explaining = wire.explain ? Open(true) : nullptr;
  Executor& executor = explaining ? *explaining : *executor_;
  // count writes its own result's text (its hot items kept as text): taken as it is.
  std::string text;
  Result<Json> result = executor.ExecuteForReply(request, &text);
  std::vector<std::string> explain = executor.Explain();
  std::vector<std::string> warnings = executor.Warnings();
  std::string reply =
      result.ok() && !text.empty()
          ? EncodeReplyText(wire.id, text, wire.explain ? &explain : nullptr, &warnings)
          : EncodeReply(wire.id, result, wire.explain ? &explain : nullptr, &warnings);
  // Refused as a reused id by the shard's request_log: the id stays the recorded request's,
  // whose retry must still find its own reply, not be kept here under this one.
  const bool reused = !result.ok() && result.status().code() == Code::kInvalidRequest &&
                      result.status().message() == kRequestIdReused;
  if (!id.empty() && writes && !reused) replies_.Put(kept_as, fingerprint, reply);
  answer(reply);
}  // the result, the request and the explaining executor are freed here, after the answer

}  // namespace weibo::daemon
