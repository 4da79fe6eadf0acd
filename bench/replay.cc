#include "replay.h"

#include <chrono>

#include "counters.h"
#include "disk.h"
#include "probe.h"
#include "weibo/daemon.h"
#include "weibo/ops.h"
#include "weibo/time.h"

namespace weibo::bench {
namespace {

constexpr size_t kErrorSamples = 5;

// Errors after which going on would measure nothing.
bool Fatal(const Status& s) {
  return s.code() == Code::kStorageError || s.code() == Code::kUnavailable;
}

// The error that stops a run. A daemon's per-peer rate limit (weibod --rate, 1000 requests
// a second by default) refuses a bench, which sends as fast as it can: say how to measure.
Status Stopping(const Status& s) {
  if (s.code() != Code::kUnavailable ||
      s.message().find("over the rate limit") == std::string::npos)
    return s;
  return Status(s.code(), s.message() +
                              " (weibo-bench sends each op as soon as the last is answered: start "
                              "weibod with --rate 0 to measure it)");
}

int64_t Nanos(std::chrono::steady_clock::duration d) {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(d).count();
}

// Replaces a "#k" string by the id of the k-th message; false when k has no message (out
// of range, or its op failed). Other values stay as they are.
bool ResolveRef(Json& value, const std::vector<int64_t>& ids, std::string* bad) {
  if (!value.is_string()) return true;
  const std::string s = value.get<std::string>();
  if (s.size() < 2 || s.size() > 19 || s[0] != '#' ||
      s.find_first_not_of("0123456789", 1) != std::string::npos)
    return true;
  size_t k = std::stoull(s.substr(1));
  if (k < 1 || k > ids.size() || ids[k - 1] == 0) {
    *bad = s;
    return false;
  }
  value = std::to_string(ids[k - 1]);
  return true;
}

// "#k" only where the op table expects a message id (msg, max_id, since_id, msgs): a post
// whose text is "#1" stays a post saying "#1".
bool ResolveRefs(const std::string& op, Json& args, const std::vector<int64_t>& ids,
                 std::string* bad) {
  const OpSpec* spec = FindOperation(op);
  if (spec == nullptr) return true;
  for (const ArgSpec& arg : spec->args) {
    auto it = args.find(arg.name);
    if (it == args.end()) continue;
    if (arg.type == ArgType::kMsg && !ResolveRef(*it, ids, bad)) return false;
    if (arg.type == ArgType::kMsgList && it->is_array())
      for (auto& item : *it)
        if (!ResolveRef(item, ids, bad)) return false;
  }
  return true;
}

// The id in a message-creating op's result (a string of digits, or a number); 0 if none.
int64_t MessageId(const Result<Json>& result) {
  if (!result.ok() || !result.value().is_object()) return 0;
  auto id = result.value().find("id");
  if (id == result.value().end()) return 0;
  if (id->is_number_integer()) return id->get<int64_t>();
  if (!id->is_string()) return 0;
  const std::string s = id->get<std::string>();
  bool digits =
      !s.empty() && s.size() <= 19 && s.find_first_not_of("0123456789") == std::string::npos;
  return digits ? std::stoll(s) : 0;
}

}  // namespace

std::string StatsName(const Request& request) {
  if (request.op != "timeline" || !request.args.is_object()) return request.op;
  auto posts = request.args.find("posts");
  if (posts != request.args.end() && posts->is_boolean() && posts->get<bool>())
    return "user_timeline";
  return request.op;
}

Replayer::Replayer(const Trace& trace, const TraceModel& model, ReplayOptions options)
    : trace_(trace), model_(model), options_(std::move(options)) {
  run_.feed = options_.label.empty() ? options_.feed : options_.label;
}

Result<Request> Replayer::Prepare(size_t index) {
  Request request{trace_[index].op, trace_[index].args};
  if (!request.args.is_object()) request.args = Json::object();
  auto now = request.args.find("now");
  if (now != request.args.end()) {
    auto ms = ParseNow(*now);
    if (!ms || *ms < kEarliestTimeMs)
      return Status(
          Code::kInvalidRequest,
          "\"now\" must be epoch seconds or ISO 8601 from 2020-01-01 on, not " + now->dump());
    now_ms_ = *ms;
    request.args.erase(now);
  }
  std::string bad;
  if (!ResolveRefs(request.op, request.args, message_ids_, &bad))
    return Status(Code::kInvalidRequest, bad + " names no message made earlier in the trace");
  request.now_ms = now_ms_;
  return request;
}

void Replayer::Record(size_t index, const Result<Json>& result) {
  const std::string& op = trace_[index].op;
  if (CreatesMessage(op)) message_ids_.push_back(MessageId(result));
  if (result.ok()) return;
  if (run_.errors++ == 0) run_.first_error = result.status();
  if (run_.error_samples.size() < kErrorSamples)
    run_.error_samples.push_back("line " + std::to_string(index + 1) + ": " + op + ": " +
                                 CodeName(result.status().code()) + ": " +
                                 result.status().message());
}

Status Replayer::RunOne(size_t index, bool measured) {
  Result<Request> prepared = Prepare(index);
  if (!prepared.ok()) {
    Record(index, prepared.status());
    return Status::Ok();
  }
  Request& request = prepared.value();
  if (!measured) {
    Result<Json> result = executor_->Execute(request);
    Record(index, result);
    return result.ok() || !Fatal(result.status()) ? Status::Ok() : Stopping(result.status());
  }
  bool drain = options_.async && Writes(request.op);
  request.async = drain;
  Probe::ClearShards();
  ProbeCounters before = Probe::Read();
  int64_t io_before = WrittenBytes();
  const HomeReadTotals homes_before = HomeReadCounts();
  // A result the bench does not read (any op's but a new message's, whose id it keeps)
  // is taken as a server's client takes it for --json: through weibod, the reply's text,
  // validated but not built into objects (Executor::ExecuteForReply); embedded, the op's
  // Json all the same.
  std::string text;
  auto t0 = std::chrono::steady_clock::now();
  Result<Json> result = CreatesMessage(request.op) ? executor_->Execute(request)
                                                   : executor_->ExecuteForReply(request, &text);
  auto t1 = std::chrono::steady_clock::now();
  Result<Json> drained = Json();
  if (drain && result.ok()) drained = executor_->Execute(Request{"drain"});
  auto t2 = std::chrono::steady_clock::now();
  ProbeCounters after = Probe::Read();
  int64_t io_after = WrittenBytes();
  const HomeReadTotals homes_after = HomeReadCounts();

  Record(index, result);
  if (!result.ok() && Fatal(result.status())) return Stopping(result.status());
  if (!drained.ok()) return drained.status();  // async needs a working drain op
  OpStats& s = run_.ops[StatsName(request)];
  if (!result.ok()) {
    ++s.errors;
    return Status::Ok();
  }
  int64_t ns = Nanos(t1 - t0);
  // The slowest fan-out: with async, the post and the drain that delivered it.
  int64_t fan_out_ns = drain ? Nanos(t2 - t0) : ns;
  if (request.op == "post" && fan_out_ns > slowest_post_ns_) {
    run_.slowest_post_op = static_cast<int64_t>(index);
    slowest_post_ns_ = fan_out_ns;
  }
  s.latency.Add(ns);
  if (drain) s.completed.Add(Nanos(t2 - t0));
  s.rows_written += after.rows_written - before.rows_written;
  s.rows_read += after.rows_read - before.rows_read;
  s.statements += after.statements - before.statements;
  s.shards_touched += static_cast<int64_t>(after.shards.count());
  s.msg_shards_touched += static_cast<int64_t>(after.msg_shards.count());
  if (io_before >= 0 && io_after >= 0) s.bytes_written += io_after - io_before;
  if (homes_after.reads > homes_before.reads)
    s.pulled_authors.push_back(homes_after.pulled_authors - homes_before.pulled_authors);
  return Status::Ok();
}

Status Replayer::Take(ModeRun::Snapshot* snapshot) {
  if (!run_.storage_measured) return Status::Ok();
  Result<int64_t> rows = SumOverShards(options_.data_dir, kCountInboxRows);
  if (!rows.ok()) return rows.status();
  Result<int64_t> bytes = SumOverShards(options_.data_dir, kStoredBytes);
  if (!bytes.ok()) bytes = SumOverShards(options_.data_dir, kPagesInUse);
  if (!bytes.ok()) return bytes.status();
  // A trace with likes: its counter writes per like (metrics.h), counted by a trigger.
  bool likes = false;
  for (const Request& r : trace_) likes = likes || r.op == "like";
  if (likes) {
    Result<int64_t> updates = SumOverShards(options_.data_dir, kCounterUpdates);
    if (!updates.ok()) return updates.status();
    snapshot->counter_updates = updates.value();
  }
  snapshot->inbox_rows = rows.value();
  snapshot->db_bytes = bytes.value();
  snapshot->file_bytes = ClusterBytes(options_.data_dir);
  return Status::Ok();
}

void Replayer::OpenRemoteExecutor(const std::string& endpoint) {
  RemoteOptions remote;
  remote.endpoint = endpoint;
  remote.timeout_ms = options_.timeout_ms;
  remote.token = options_.token;
  executor_ = OpenRemote(remote);
  run_.storage_measured = false;
  // A remote request carries its clock: the default one goes with every op.
  if (now_ms_ == 0) now_ms_ = options_.default_now_ms;
}

void Replayer::OpenEmbeddedExecutor() {
  EmbeddedOptions embedded;
  embedded.data_dir = options_.data_dir;
  embedded.now_ms = options_.default_now_ms;
  embedded.group_commit = options_.cluster.group_commit;
  // A long-running process, as weibod: it keeps weibod's default message cache too. Not
  // when the reads are counted (weibo-sim, --strategy all): the shards and statements an
  // op needs are measured, not what a warm cache saves of them.
  embedded.message_cache =
      options_.count_reads ? 0 : static_cast<int64_t>(DaemonOptions{}.message_cache);
  // As weibod applies them (--background-applies), but not when reads are counted: the
  // applier's statements would land on whichever op happened to run beside them.
  embedded.background_applies = !options_.count_reads;
  Probe::Watch(true, options_.count_reads);
  executor_ = OpenEmbedded(embedded);
}

Status Replayer::Reopen() {
  if (!options_.connect.empty() || !executor_) return Status::Ok();
  Status settled = SettleWrites(*executor_);
  if (!settled.ok()) return settled;
  Close();
  OpenEmbeddedExecutor();
  return Status::Ok();
}

Status Replayer::Setup() {
  if (!options_.connect.empty()) {
    OpenRemoteExecutor(options_.connect);
  } else {
    Status created = CreateCluster(options_.data_dir, options_.feed, options_.cluster);
    // The counting trigger changes every shard's schema: installed before the executor
    // opens its connections, or their cached statements would all be prepared again, and
    // every schema read again, by the first measured op on each shard.
    if (created.ok()) created = InstallCounterUpdateCounter(options_.data_dir);
    if (!created.ok()) return created;
    OpenEmbeddedExecutor();
  }

  Progress* progress = options_.progress;
  size_t setup = model_.setup_ops;
  run_.setup_ops = static_cast<int64_t>(setup);
  if (progress) progress->Stage(options_.feed + ": setup", static_cast<int64_t>(setup));
  // A throwaway setup loads without fsyncs (weibo/request.h), unless --durable-setup; the
  // measured phase, and whatever runs after an error, commits durably again.
  struct Durable {
    ~Durable() { SetDurableCommits(true); }
  } durable_again;
  SetDurableCommits(options_.durable_setup);
  auto t0 = std::chrono::steady_clock::now();
  for (size_t i = 0; i < setup;) {
    size_t next = i;
    Status s = ImportFollows(i, setup, &next);
    if (s.ok() && next == i) s = RunOne(next++, false);
    if (!s.ok()) return s;
    i = next;
    if (progress) progress->Step(static_cast<int64_t>(i));
  }
  run_.setup_seconds = Nanos(std::chrono::steady_clock::now() - t0) / 1e9;
  SetDurableCommits(true);
  if (options_.connect.empty()) {
    if (executor_) {
      Status settled = SettleWrites(*executor_);
      if (!settled.ok()) return settled;
    }
    FlushShards(options_.data_dir);
  }
  return Take(&run_.before);
}

Status Replayer::ImportFollows(size_t from, size_t to, size_t* next) {
  Json edges = Json::array();
  size_t i = from;
  int64_t now_ms = now_ms_;
  // A daemon takes requests of at most RemoteOptions::max_msg_size bytes: through one, an
  // import stops well below it (kImportBatch edges are some 300 KB).
  const size_t max_bytes = options_.connect.empty() ? 0 : RemoteOptions().max_msg_size / 2;
  size_t bytes = 0;
  for (; i < to && edges.size() < kImportBatch && (max_bytes == 0 || bytes < max_bytes); ++i) {
    const Request& op = trace_[i];
    if (op.op != "follow" || !op.args.is_object() || !op.args.contains("user") ||
        !op.args.contains("target") || op.args.size() != 2u + op.args.count("now"))
      break;  // anything else (--exist-ok, a bad clock) runs as the op it is
    if (op.args.contains("now")) {
      auto ms = ParseNow(op.args["now"]);
      if (!ms || *ms < kEarliestTimeMs) break;
      now_ms = *ms;  // the import runs at its last follow's time
    }
    edges.push_back(Json::array({op.args["user"], op.args["target"]}));
    if (max_bytes != 0) bytes += edges.back().dump().size() + 1;
  }
  if (edges.empty()) return Status::Ok();
  now_ms_ = now_ms;
  Request request{"import", Json{{"edges", std::move(edges)}}};
  request.now_ms = now_ms_;
  Result<Json> result = executor_->Execute(request);
  Record(from, result);
  *next = i;
  return result.ok() || !Fatal(result.status()) ? Status::Ok() : Stopping(result.status());
}

void Replayer::Close() {
  if (executor_) executor_->Idle();
  executor_.reset();
}

void Replayer::Reconnect(const std::string& endpoint) {
  Close();
  OpenRemoteExecutor(endpoint);
}

Status Replayer::Measure(size_t from, size_t to) {
  Progress* progress = options_.progress;
  size_t setup = model_.setup_ops;
  if (progress && from == setup)
    progress->Stage(options_.feed + ": measured", static_cast<int64_t>(trace_.size() - setup));
  for (size_t i = from; i < to && i < trace_.size(); ++i) {
    Status s = RunOne(i, true);
    if (!s.ok()) return s;
    if (progress) progress->Step(static_cast<int64_t>(i + 1 - setup));
  }
  return Status::Ok();
}

Status Replayer::Finish() {
  // The deliveries still waiting for their group commit are synced and marked done, and the
  // jobs held back to merge applied, inside the measured time: their cost belongs to the
  // writes that made them.
  ProbeCounters before = Probe::Read();
  int64_t io_before = WrittenBytes();
  auto t1 = std::chrono::steady_clock::now();
  // A daemon's (--connect) held-back jobs are its own business: it may refuse a drain.
  Status settled = Status::Ok();
  if (options_.connect.empty())
    settled = SettleWrites(*executor_);
  else
    executor_->Idle();
  if (!settled.ok()) return settled;
  run_.settle_seconds = Nanos(std::chrono::steady_clock::now() - t1) / 1e9;
  auto post = run_.ops.find("post");
  if (post != run_.ops.end() && run_.storage_measured) {
    int64_t io_after = WrittenBytes();
    post->second.rows_written += Probe::Read().rows_written - before.rows_written;
    if (io_before >= 0 && io_after >= 0) post->second.bytes_written += io_after - io_before;
  }
  if (options_.progress) options_.progress->Clear();
  return Take(&run_.after);
}

Status Replayer::Run() {
  Status s = Setup();
  if (s.ok()) s = Measure(model_.setup_ops, trace_.size());
  if (s.ok()) s = Finish();
  return s;
}

}  // namespace weibo::bench
