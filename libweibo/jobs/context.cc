#include "jobs/context.h"

#include "jobs/jobs.h"
#include "storage/failure.h"
#include "tables/outbox.h"
#include "tables/request_log.h"
#include "tables/user_name.h"

namespace weibo {

void Context::Enqueue(Shard& source, int target, const char* kind, const Json& payload) {
  int64_t id = InsertJob(source, target, kind, payload.dump(), now());
  created_.push_back({source.index(), id});
}

void Context::Settle() {
  if (drain_) DrainCreated(*this);
}

std::optional<int64_t> Context::Replayed(Shard& home) {
  if (request_id_.empty()) return std::nullopt;
  auto row = FindRequest(home, request_id_);
  if (!row || row->op != request_op_) return std::nullopt;
  return row->result;
}

void Context::RecordApplied(Shard& home, int64_t result) {
  if (!request_id_.empty()) RecordRequest(home, request_id_, request_op_, result, Clock().NowMs());
}

void Context::SettleReplayed() {
  if (drain_) DrainAllPending(*this);
}

int64_t Context::ResolveUser(const Json& arg) {
  int64_t id = 0;
  if (arg.is_number_integer()) {
    id = arg.get<int64_t>();
  } else {
    const std::string text = arg.get<std::string>();
    if (!text.empty() && text[0] == '@') {
      std::string name = text.substr(1);
      auto found = LookupName(shards_.At(shards_.ShardOfName(name)), name);
      if (!found) Fail(Code::kNotFound, "no user named @" + name);
      id = *found;
    } else {
      id = std::stoll(text);  // validated at the edge
    }
  }
  RequireUser(id);
  return id;
}

UserRow Context::RequireUser(int64_t id) {
  auto user = GetUser(shards_.ForUser(id), id);
  if (!user) Fail(Code::kNotFound, "no user with id " + std::to_string(id));
  return *user;
}

MsgRow Context::RequireMsg(int64_t id) {
  auto msg = GetMsg(shards_.ForMsg(id), id);
  if (!msg) Fail(Code::kNotFound, "no message with id " + std::to_string(id));
  return *msg;
}

}  // namespace weibo
