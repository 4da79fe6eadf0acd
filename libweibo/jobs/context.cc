#include "jobs/context.h"

#include <set>

#include "jobs/jobs.h"
#include "storage/explain_log.h"
#include "storage/failure.h"
#include "tables/outbox.h"
#include "tables/request_log.h"
#include "tables/user_name.h"

namespace weibo {

void Context::Enqueue(Shard& source, int target, const char* kind, Json payload) {
  std::string text = payload.dump();
  int64_t id = InsertJob(source, target, kind, text, now());
  created_.push_back({source.index(), id});
  created_payloads_.push_back({std::move(text), std::move(payload)});
}

void Context::HoldFanOutPart(Shard& source, int target, const char* kind, Json payload) {
  HeldJob part;
  part.row.source_shard = source.index();  // local_id: the fanout job's, once it has one
  part.row.target_shard = target;
  part.row.kind = kind;
  part.row.created = now();
  part.payload = std::move(payload);
  part.part = true;
  parts_.push_back(std::move(part));
}

void Context::Settle() {
  if (drain_) Drain(DrainCreated);
}

void Context::Drain(int64_t (*drain)(Context&)) {
  // Tagged in the explain log: weibo-explain --with-drain tells these statements apart.
  ExplainLog* log = shards_.explain_log();
  if (log != nullptr) log->set_phase("drain");
  try {
    drain(*this);
  } catch (const std::exception& e) {
    LeftPending(e);
  }
  if (log != nullptr) log->set_phase("");
}

void Context::LeftPending(const std::exception& cause) {
  int64_t pending = 0;
  // The jobs the server holds back on purpose (GroupCommit) are not left by the failure.
  for (const JobRef& ref : created_) {
    if (group_commit().Held(ref.shard, ref.local_id)) continue;
    try {
      JobRow row;
      if (GetJob(shards_.At(ref.shard), ref.local_id, &row) && row.state == 0) ++pending;
    } catch (const std::exception&) {  // its source cannot be read: it is not done
      ++pending;
    }
  }
  created_.clear();
  created_payloads_.clear();
  bound_parts_.clear();
  warnings_.push_back("the write is committed, but " +
                      (pending > 0 ? std::to_string(pending) + " outbox job(s) are"
                                   : std::string("outbox jobs are")) +
                      " left pending for weibo-worker or weibod: " + cause.what());
}

std::optional<int64_t> Context::Replayed(Shard& home) {
  if (request_id_.empty()) return std::nullopt;
  auto row = FindRequest(home, request_id_);
  if (!row) return std::nullopt;
  // An empty fingerprint: a row from before schema version 9, matched on its op alone.
  if (row->op != request_op_ ||
      (!row->fingerprint.empty() && row->fingerprint != request_fingerprint_))
    Fail(Code::kInvalidRequest, kRequestIdReused);
  return row->result;
}

void Context::RecordApplied(Shard& home, int64_t result) {
  if (!request_id_.empty())
    RecordRequest(home, request_id_, request_op_, request_fingerprint_, result, Clock().NowMs());
}

void Context::SettleReplayed() {
  if (drain_) Drain([](Context& ctx) { return DrainAllPending(ctx); });
}

int64_t Context::ResolveUser(const Json& arg) {
  int64_t id = UserIdOf(arg);
  RequireUser(id);
  return id;
}

int64_t Context::UserIdOf(const Json& arg) {
  if (arg.is_number_integer()) return arg.get<int64_t>();
  const std::string text = arg.get<std::string>();
  if (text.empty() || text[0] != '@') return std::stoll(text);  // validated at the edge
  std::string name = text.substr(1);
  auto found = LookupName(shards_.At(shards_.ShardOfName(name)), name);
  if (!found) Fail(Code::kNotFound, "no user named @" + name);
  return *found;
}

UserRow Context::RequireUser(int64_t id) {
  auto user = GetUser(shards_.ForUser(id), id);
  if (!user) Fail(Code::kNotFound, "no user with id " + std::to_string(id));
  return *user;
}

MsgRow Context::RequireMsg(int64_t id) {
  auto msg = GetMsg(shards_.ForMsg(id), id);
  if (!msg) MsgGone(id);
  return *msg;
}

void Context::MsgGone(int64_t id) {
  Shard* archive = shards_.ArchiveForMsg(id);
  if (archive != nullptr && GetMsg(*archive, id))
    Fail(Code::kArchived, "message " + std::to_string(id) +
                              " is archived (weibo-archive): it can be read, not changed");
  Fail(Code::kNotFound, "no message with id " + std::to_string(id));
}

}  // namespace weibo
