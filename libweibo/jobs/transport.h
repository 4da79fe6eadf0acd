// JobTransport: the cluster's hook into job draining (cluster/node.cc implements it).
//
// An embedded run has no transport: every job is applied here, on whichever shard it
// targets. A cluster node (weibod --shards) owns some shards only. With a transport in the
// Context, the drains in jobs.cc apply a job here only when this node owns its target
// shard; any other job is handed to Deliver, which sends it to the owner over ZeroMQ and
// returns true only once the owner acknowledged that it applied it (or had already: the
// owner's job_applied mark makes a second delivery a no-op). Only then is the job marked
// done at its source; an unacknowledged job stays pending and is retried by a later drain.
#ifndef WEIBO_JOBS_TRANSPORT_H_
#define WEIBO_JOBS_TRANSPORT_H_

#include <vector>

#include "tables/outbox.h"

namespace weibo {

class Context;

class JobTransport {
 public:
  virtual ~JobTransport() = default;
  // True when this process owns the shard: it applies jobs targeting it and drains the
  // outbox it holds.
  virtual bool Owns(int shard) const = 0;
  // Sends a job whose target shard another node owns; true once that node acknowledged it.
  virtual bool Deliver(const JobRow& job) = 0;
  // Sends several jobs at once (to one or more nodes) and waits for all the answers;
  // (*acked)[i] tells whether jobs[i] was acknowledged. By default one Deliver each.
  virtual void DeliverBatch(const std::vector<JobRow>& jobs, std::vector<bool>* acked) {
    acked->clear();
    for (const JobRow& job : jobs) acked->push_back(Deliver(job));
  }
};

}  // namespace weibo

#endif  // WEIBO_JOBS_TRANSPORT_H_
