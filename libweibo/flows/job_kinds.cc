// The job-kind table: every kind of outbox job and the flow file whose handler applies it.
// The flows own it; the jobs layer below knows no kind and finds handlers only through the
// table registered here (jobs/jobs.h, RegisterJobKinds), so no call goes up. Each entry's
// name is its payload's (flows/job_payloads.h), decoded once before its handler runs.
#include "flows/entities.h"
#include "flows/flows.h"
#include "jobs/jobs.h"

namespace weibo {
namespace {

// A handler of typed payloads, as the jobs layer calls it: with the payload's JSON.
template <typename Job, void (*Apply)(Context&, Shard&, const Job&)>
void Decoded(Context& ctx, Shard& target, const Json& payload) {
  Apply(ctx, target, Job::Decode(payload));
}

template <typename Job, void (*Apply)(Context&, Shard&, const Job&)>
constexpr JobKind Kind(bool (*self_idempotent)(const Json&) = nullptr, bool target_only = false,
                       bool held_for_reads = false, bool held_to_batch = false) {
  JobKind kind{Job::kKind, Decoded<Job, Apply>, self_idempotent};
  kind.target_only = target_only;
  kind.held_for_reads = held_for_reads;
  kind.held_to_batch = held_to_batch;
  return kind;
}

// A kind whose jobs merge (jobs.h, JobKind::merge): Merge applies the decoded payloads of
// one drain's transaction at once.
template <typename Job, void (*Merge)(Context&, Shard&, const std::vector<Job>&)>
void DecodedAll(Context& ctx, Shard& target, const std::vector<const Json*>& payloads) {
  std::vector<Job> jobs;
  jobs.reserve(payloads.size());
  for (const Json* payload : payloads) jobs.push_back(Job::Decode(*payload));
  Merge(ctx, target, jobs);
}

// deferrable: a server may hold its jobs back to merge more of them (jobs.h); until_idle:
// only until it is idle.
template <typename Job, void (*Apply)(Context&, Shard&, const Job&),
          void (*Merge)(Context&, Shard&, const std::vector<Job>&)>
constexpr JobKind Merged(bool deferrable = false, bool until_idle = false) {
  JobKind kind{Job::kKind, Decoded<Job, Apply>, nullptr, DecodedAll<Job, Merge>, deferrable};
  kind.until_idle = until_idle;
  return kind;
}

const JobKind kJobKinds[] = {
    Kind<UserCreateJob, ApplyUserCreate>(),                                    // flows/user.cc
    Kind<FanAddJob, ApplyFanAdd>(),                                            // flows/follow.cc
    Kind<FanRemoveJob, ApplyFanRemove>(),                                      // flows/follow.cc
    Kind<InboxMergeJob, ApplyInboxMerge>(),                                    // flows/follow.cc
    Kind<FanOutJob, ApplyFanOut>(),                                            // flows/fanout.cc
    Kind<DeliverJob, ApplyDeliver>(DeliverJob::Plain, true, true),             // flows/fanout.cc
    Kind<PurgeJob, ApplyPurge>(),                                              // flows/fanout.cc
    Kind<UndeliverJob, ApplyUndeliver>(),                                      // flows/fanout.cc
    Merged<RefAddJob, ApplyRefAdd, ApplyRefAdds>(),                            // flows/refs.cc
    Merged<CounterDeltaJob, ApplyCounterDelta, MergeCounterDeltas>(true),      // flows/like.cc
    Kind<RefRemoveJob, ApplyRefRemove>(),                                      // flows/refs.cc
    Kind<ActiveJoinJob, ApplyActiveJoin>(nullptr, false, false, true),         // flows/active.cc
    Kind<ActiveMergeJob, ApplyActiveMerge>(nullptr, true),                     // flows/active.cc
    Kind<ActiveDropJob, ApplyActiveDrop>(),                                    // flows/active.cc
    Kind<AppEventJob, ApplyAppEvent>(),                                        // flows/tokens.cc
    Merged<SearchIndexJob, ApplySearchIndex, ApplySearchIndexes>(true, true),  // flows/search.cc
    Kind<IndexRowJob, ApplyIndexRow>(),                                        // flows/entities.cc
    Kind<TidMapJob, ApplyTidMap>(),                                            // flows/placement.cc
    Kind<MsgWriteJob, ApplyMsgWrite>(),      // flows/message_write.cc
    Kind<AuthorDropJob, ApplyAuthorDrop>(),  // flows/delete.cc
};

const JobKinds kTable{std::begin(kJobKinds), std::end(kJobKinds)};

}  // namespace

void RegisterFlowJobKinds() { RegisterJobKinds(kTable); }

}  // namespace weibo
