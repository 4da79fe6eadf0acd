// A cluster node as its executor's JobTransport (cluster/node.h, jobs/transport.h): jobs
// for other nodes' shards go out through the broker and are done on their ACK; jobs sent
// here are applied by the jobs layer (ApplyDeliveredJob) and acknowledged.
#include <chrono>

#include "cluster/node.h"
#include "cluster/protocol.h"
#include "jobs/context.h"
#include "jobs/jobs.h"
#include "storage/failure.h"

namespace weibo::cluster {
namespace {

using net::Frames;
using net::RecvFrames;
using SteadyClock = std::chrono::steady_clock;

}  // namespace

bool Node::Deliver(const JobRow& job) {
  std::vector<bool> acked;
  DeliverBatch({job}, &acked);
  return acked[0];
}

// Sends every job, then waits (up to job_timeout_ms) for all their ACKs: the owners
// apply them in parallel. Meanwhile JOBs sent to this node are applied (two nodes
// delivering to each other never deadlock) and client requests wait in queue_.
void Node::DeliverBatch(const std::vector<JobRow>& jobs, std::vector<bool>* acked) {
  acked->assign(jobs.size(), false);
  std::map<std::string, size_t> waiting;  // tag -> index
  for (size_t i = 0; i < jobs.size(); ++i) {
    const std::string tag = std::to_string(++next_tag_);
    SendVerb(broker_, Verb::kJob, {tag, EncodeJob(jobs[i])});
    waiting[tag] = i;
  }
  const auto deadline = SteadyClock::now() + std::chrono::milliseconds(options_.job_timeout_ms);
  while (!waiting.empty() && SteadyClock::now() < deadline) {
    // ACKs a nested delivery (a JOB applied while waiting) read on this one's behalf.
    for (auto it = waiting.begin(); it != waiting.end();) {
      auto stray = stray_acks_.find(it->first);
      if (stray == stray_acks_.end()) {
        ++it;
        continue;
      }
      (*acked)[it->second] = stray->second;
      stray_acks_.erase(stray);
      it = waiting.erase(it);
    }
    if (waiting.empty()) break;
    zmq::pollitem_t item{broker_.handle(), 0, ZMQ_POLLIN, 0};
    try {
      zmq::poll(&item, 1, std::chrono::milliseconds(kPollMs));
    } catch (const zmq::error_t& e) {
      if (e.num() == EINTR) continue;
      throw;
    }
    Frames frames;
    while (!waiting.empty() && RecvFrames(broker_, &frames)) {
      const Verb verb = ReadVerb(frames, 0);
      if (verb == Verb::kAck) {
        bool ok = AckOk(frames[2]);
        auto it = waiting.find(frames[1]);
        if (it == waiting.end()) {
          // An outer delivery's (we are nested in it), or one given up on: kept for a
          // while, bounded.
          if (stray_acks_.size() > 10000) stray_acks_.clear();
          stray_acks_[frames[1]] = ok;
          continue;
        }
        (*acked)[it->second] = ok;
        waiting.erase(it);
      } else if (verb == Verb::kJob) {
        AnswerJob(frames[1], frames[2]);
      } else {
        queue_.push_back(std::move(frames));  // a client request: after this one
      }
    }
  }
}

// Applies a job sent by another node (idempotently: job_applied), follows up the jobs it
// created, and acknowledges. The source marks it done on this ACK.
void Node::AnswerJob(const std::string& tag, const std::string& body) {
  std::string ack;
  try {
    JobRow job = DecodeJob(body);
    if (!Owns(job.target_shard))
      Fail(Code::kUnavailable, "shard " + std::to_string(job.target_shard) + " is not mine");
    Context ctx(shards_, Clock(job.created));
    ctx.set_transport(this);
    ctx.set_event_sink(on_event_);
    ack = AckApplied(ApplyDeliveredJob(ctx, job));
  } catch (const Failure& f) {
    ack = AckRefused(f.status().message());
  } catch (const std::exception& e) {
    ack = AckRefused(e.what());
  }
  SendVerb(broker_, Verb::kAck, {tag, ack});
}

}  // namespace weibo::cluster
