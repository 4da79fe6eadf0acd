// Request and Executor: the one path every operation takes (SPEC §11, STYLE rule 2).
//
// A Request is {op, args} — the same value on the command line, on the wire and in a trace.
// An Executor runs it. The embedded executor opens the shard files; later executors talk to
// a daemon. Commands build a Request, run it, render the Result: nothing else.
#ifndef WEIBO_REQUEST_H_
#define WEIBO_REQUEST_H_

#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "weibo/status.h"

namespace weibo {

using Json = nlohmann::ordered_json;

struct Request {
  std::string op;
  Json args = Json::object();
};

// Options of an embedded executor.
struct EmbeddedOptions {
  std::string data_dir = "./shards";  // holds cluster.json and shard-NN.db
  // Fixed clock in milliseconds since the Unix epoch; 0 means the system clock.
  long long now_ms = 0;
  // Drain the outbox jobs a write created before returning (SPEC §5). false = --async.
  bool drain = true;
  // Record every statement each shard runs, for --explain.
  bool explain = false;
};

class Executor {
 public:
  virtual ~Executor() = default;
  // Runs one request. On success the result is the JSON of SPEC §10 for that op.
  virtual Result<Json> Execute(const Request& request) = 0;
  // The statements run by the last Execute, one line each ("shard-03: SELECT ..."),
  // when explain was asked for; empty otherwise.
  virtual std::vector<std::string> Explain() const { return {}; }
};

// An executor over the shard files in options.data_dir. Opening is lazy: a missing or
// corrupt cluster is reported by the first Execute as storage_error.
std::unique_ptr<Executor> OpenEmbedded(const EmbeddedOptions& options);

}  // namespace weibo

#endif  // WEIBO_REQUEST_H_
