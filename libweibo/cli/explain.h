// weibo-explain(1)'s dry run: a request run on a Snapshot of the data directory with the
// explain log on, and what the log says, as text or JSON. Nothing of it writes to the
// data directory itself (storage/snapshot.h says why a copy, and how it stays consistent).
#ifndef WEIBO_CLI_EXPLAIN_H_
#define WEIBO_CLI_EXPLAIN_H_

#include <string>
#include <vector>

#include "storage/explain_log.h"
#include "weibo/request.h"

namespace weibo::cli {

struct DryRun {
  Request request;
  std::string data_dir;  // the cluster it explains (never written)
  std::string strategy;  // cluster.json's
  bool with_drain = false;
  Json result;     // what the command would have printed, as JSON
  ExplainLog log;  // the op's statements, then (with_drain) its drain's, tagged "drain"
};

// Runs request on a copy of run->data_dir, with the drain of its
// jobs when run->with_drain (and the request is not async), filling result and log. The
// op's own refusal (not_found, forbidden, ...) or storage_error; a message never names
// the copy, only data_dir.
Status RunDry(DryRun* run);

// An outbox job the op would create, read from its INSERT in the log (kInsertJobSql).
struct PlannedJob {
  std::string source, target;  // "shard-01"
  std::string kind;
  Json payload;
};
std::vector<PlannedJob> PlannedJobs(const ExplainLog& log);

// weibo-explain(1), OUTPUT: the text, and the JSON object with its keys in the documented
// order.
std::string ExplainText(const DryRun& run);
Json ExplainJson(const DryRun& run);

}  // namespace weibo::cli

#endif  // WEIBO_CLI_EXPLAIN_H_
