// user: add, show, list.
//
// user_add touches three shards, and takes write locks in one fixed order so two adds
// never deadlock: the name's shard (BLAKE2b-64(name) mod N) first, where the unique name
// is claimed; then shard 0, whose meta row next_user_id hands out sequential ids; the
// counter commits first, so a crash in between burns an id but never hands one out twice.
// The user_info row on shard(id) is written by the user_create job enqueued with the name.
// A request with an id records it on the name's shard, in the transaction that claims the
// name, with the new id (tables/request_log.h); the same id again gets the same reply
// instead of user_exists.
#include <algorithm>
#include <optional>

#include "flows/flows.h"
#include "storage/failure.h"
#include "tables/user_info.h"
#include "tables/user_name.h"

namespace weibo {

Json UserJson(const UserRow& row) {
  return Json{{"id", std::to_string(row.id)},
              {"name", row.name},
              {"msg_count", row.msg_count},
              {"fans_count", row.fans_count},
              {"follow_count", row.follow_count}};
}

Json UserAdd(Context& ctx, const Json& args) {
  const std::string name = args.at("name").get<std::string>();
  Shard& name_shard = ctx.shards().At(ctx.shards().ShardOfName(name));
  WriteTxn name_txn(name_shard);
  if (auto done = ctx.Replayed(name_shard)) {
    name_txn.Commit();  // nothing written
    ctx.SettleReplayed();
    UserRow row;
    row.id = *done;
    row.name = name;
    return UserJson(row);
  }
  if (std::optional<int64_t> taken = LookupName(name_shard, name)) {
    if (!args.value("exist_ok", false)) Fail(Code::kUserExists, "the name @" + name + " is taken");
    // --exist-ok: the user of that name, as it is (the id alone while its user_create job
    // is still pending), and nothing written.
    name_txn.Commit();
    std::optional<UserRow> row = GetUser(ctx.shards().ForUser(*taken), *taken);
    if (row) return UserJson(*row);
    UserRow pending;
    pending.id = *taken;
    pending.name = name;
    return UserJson(pending);
  }
  std::optional<WriteTxn> counter_txn;
  Shard& shard0 = ctx.shards().At(0);
  if (&shard0 != &name_shard) counter_txn.emplace(shard0);
  int64_t id = AllocateUserId(shard0);
  if (id > 0xffffffffLL) Fail(Code::kStorageError, "user ids are exhausted (32 bits)");
  InsertName(name_shard, name, id);
  Enqueue(ctx, name_shard, static_cast<int>(id % ctx.shards().count()),
          UserCreateJob{id, name, ctx.now()});
  ctx.RecordApplied(name_shard, id);
  if (counter_txn) counter_txn->Commit();
  name_txn.Commit();
  ctx.Settle();
  UserRow row;
  row.id = id;
  row.name = name;
  return UserJson(row);
}

void ApplyUserCreate(Context&, Shard& target, const UserCreateJob& p) {
  UserRow row;
  row.id = p.id;
  row.name = p.name;
  row.created = row.last_active = p.time;
  InsertUser(target, row);
}

Json UserShow(Context& ctx, const Json& args) {
  return UserJson(ctx.RequireUser(ctx.ResolveUser(args.at("user"))));
}

Json UserList(Context& ctx, const Json&) {
  std::vector<UserRow> all;
  for (int i = 0; i < ctx.shards().count(); ++i)
    for (auto& row : ListUsers(ctx.shards().At(i))) all.push_back(std::move(row));
  std::sort(all.begin(), all.end(), [](const UserRow& a, const UserRow& b) { return a.id < b.id; });
  Json out = Json::array();
  for (const auto& row : all) out.push_back(UserJson(row));
  return out;
}

}  // namespace weibo
