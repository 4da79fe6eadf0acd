#include "flows/job_payloads.h"

namespace weibo {
namespace {

Json Items(const std::vector<MergeItem>& items) {
  Json out = Json::array();
  out.get_ptr<Json::array_t*>()->reserve(items.size());
  for (const MergeItem& item : items) out.push_back(Json::array({item.msg_id, item.time}));
  return out;
}

std::vector<MergeItem> ItemsFrom(const Json& j) {
  std::vector<MergeItem> out;
  out.reserve(j.size());
  for (const auto& item : j) out.push_back({item[0].get<int64_t>(), item[1].get<int64_t>()});
  return out;
}

std::vector<int64_t> Ids(const Json& j) { return j.get<std::vector<int64_t>>(); }

}  // namespace

Json UserCreateJob::Encode() const { return Json{{"id", id}, {"name", name}, {"time", time}}; }

UserCreateJob UserCreateJob::Decode(const Json& j) {
  return {j.at("id").get<int64_t>(), j.at("name").get<std::string>(), j.at("time").get<int64_t>()};
}

Json FanAddJob::Encode() const {
  Json j{{"user", user}, {"fan", fan}, {"time", time}, {"merge", merge}};
  if (!join) j["join"] = false;
  return j;
}

FanAddJob FanAddJob::Decode(const Json& j) {
  return {j.at("user").get<int64_t>(), j.at("fan").get<int64_t>(), j.at("time").get<int64_t>(),
          j.value("merge", false), j.value("join", true)};
}

Json FanRemoveJob::Encode() const { return Json{{"user", user}, {"fan", fan}}; }

FanRemoveJob FanRemoveJob::Decode(const Json& j) {
  return {j.at("user").get<int64_t>(), j.at("fan").get<int64_t>()};
}

Json InboxMergeJob::Encode() const {
  Json j{{"user", user}, {"author", author}, {"items", Items(items)}};
  if (floor) j["floor"] = *floor;
  return j;
}

InboxMergeJob InboxMergeJob::Decode(const Json& j) {
  InboxMergeJob job{j.at("user").get<int64_t>(), j.at("author").get<int64_t>(),
                    ItemsFrom(j.at("items")), std::nullopt};
  if (j.contains("floor")) job.floor = j.at("floor").get<int64_t>();
  return job;
}

Json FanOutJob::Encode() const {
  return Json{{"author", author}, {"msg_id", msg_id}, {"time", time}};
}

FanOutJob FanOutJob::Decode(const Json& j) {
  return {j.at("author").get<int64_t>(), j.at("msg_id").get<int64_t>(),
          j.at("time").get<int64_t>()};
}

Json DeliverJob::Encode() const {
  Json j{{"author", author}, {"msg_id", msg_id}, {"time", time}, {"users", users}};
  if (tier) j["tier"] = *tier;
  if (tiered) j["tiered"] = true;
  if (!later.empty()) j["later"] = later;
  if (of != 0) j["of"] = of;
  return j;
}

DeliverJob DeliverJob::Decode(const Json& j) {
  DeliverJob job;
  job.author = j.at("author").get<int64_t>();
  job.msg_id = j.at("msg_id").get<int64_t>();
  job.time = j.at("time").get<int64_t>();
  job.users = Ids(j.at("users"));
  if (j.contains("tier")) job.tier = j.at("tier").get<int>();
  job.tiered = j.value("tiered", false);
  if (j.contains("later")) job.later = Ids(j.at("later"));
  job.of = j.value("of", int64_t{0});
  return job;
}

// A plain deliver job (no tiers to enqueue) is idempotent by itself: the inbox key ignores a
// second insert, and its statement re-checks the follow and msg_deleted, so a late second
// application adds nothing an unfollow or a delete has removed (flows/fanout.cc). It needs
// no job_applied mark: one B-tree write less in every delivery transaction, the commonest
// transaction there is. Every other kind (counters, tier chains) is marked.
bool DeliverJob::Plain(const Json& j) { return !j.contains("tiered") && !j.contains("later"); }

Json PurgeJob::Encode() const { return Json{{"author", author}, {"msg_id", msg_id}}; }

PurgeJob PurgeJob::Decode(const Json& j) {
  return {j.at("author").get<int64_t>(), j.at("msg_id").get<int64_t>()};
}

Json UndeliverJob::Encode() const { return Json{{"msg_id", msg_id}, {"users", users}}; }

UndeliverJob UndeliverJob::Decode(const Json& j) {
  return {j.at("msg_id").get<int64_t>(), Ids(j.at("users"))};
}

Json RefAddJob::Encode() const {
  return Json{{"type", type},
              {"reference_id", reference_id},
              {"reference_msg_id", reference_msg_id},
              {"referenced_id", referenced_id},
              {"referenced_msg_id", referenced_msg_id},
              {"time", time}};
}

RefAddJob RefAddJob::Decode(const Json& j) {
  return {j.at("type").get<int>(),
          j.at("reference_id").get<int64_t>(),
          j.at("reference_msg_id").get<int64_t>(),
          j.at("referenced_id").get<int64_t>(),
          j.at("referenced_msg_id").get<int64_t>(),
          j.at("time").get<int64_t>()};
}

Json RefRemoveJob::Encode() const {
  return Json{{"type", type},
              {"reference_id", reference_id},
              {"reference_msg_id", reference_msg_id},
              {"referenced_msg_id", referenced_msg_id}};
}

RefRemoveJob RefRemoveJob::Decode(const Json& j) {
  return {j.at("type").get<int>(), j.at("reference_id").get<int64_t>(),
          j.at("reference_msg_id").get<int64_t>(), j.at("referenced_msg_id").get<int64_t>()};
}

Json CounterDeltaJob::Encode() const {
  return Json{{"msg_id", msg_id}, {"likes", likes}, {"views", views}};
}

CounterDeltaJob CounterDeltaJob::Decode(const Json& j) {
  return {j.at("msg_id").get<int64_t>(), j.value("likes", int64_t{0}),
          j.value("views", int64_t{0})};
}

Json ActiveJoinJob::Encode() const {
  return Json{{"fan", fan}, {"authors", authors}, {"floor", floor}};
}

ActiveJoinJob ActiveJoinJob::Decode(const Json& j) {
  return {j.at("fan").get<int64_t>(), Ids(j.at("authors")), j.value("floor", int64_t{0})};
}

Json ActiveMergeEntry::Encode() const {
  Json j{{"author", author}, {"seq", seq}, {"items", Items(items)}};
  if (floor) j["floor"] = *floor;
  return j;
}

ActiveMergeEntry ActiveMergeEntry::Decode(const Json& j) {
  ActiveMergeEntry entry{j.at("author").get<int64_t>(), j.at("seq").get<int64_t>(),
                         ItemsFrom(j.at("items")), std::nullopt};
  if (j.contains("floor")) entry.floor = j.at("floor").get<int64_t>();
  return entry;
}

Json ActiveMergeJob::Encode() const {
  // A first read's join merges dozens of entries: the array is moved into the object, not
  // copied as an lvalue in an initializer list would be.
  Json entries_json = Json::array();
  entries_json.get_ptr<Json::array_t*>()->reserve(entries.size());
  for (const ActiveMergeEntry& entry : entries) entries_json.push_back(entry.Encode());
  return Json{{"user", user}, {"entries", std::move(entries_json)}};
}

ActiveMergeJob ActiveMergeJob::Decode(const Json& j) {
  ActiveMergeJob job{j.at("user").get<int64_t>(), {}};
  const Json& entries = j.at("entries");
  job.entries.reserve(entries.size());
  for (const auto& entry : entries) job.entries.push_back(ActiveMergeEntry::Decode(entry));
  return job;
}

Json ActiveDropJob::Encode() const {
  return Json{{"user", user}, {"author", author}, {"upto", upto}};
}

ActiveDropJob ActiveDropJob::Decode(const Json& j) {
  return {j.at("user").get<int64_t>(), j.at("author").get<int64_t>(), j.at("upto").get<int64_t>()};
}

Json AppEventJob::Encode() const {
  return Json{
      {"app", app}, {"event", event}, {"token_id", token_id}, {"user", user}, {"time", time}};
}

AppEventJob AppEventJob::Decode(const Json& j) {
  return {j.at("app").get<std::string>(), j.at("event").get<std::string>(),
          j.at("token_id").get<std::string>(), j.at("user").get<int64_t>(),
          j.at("time").get<int64_t>()};
}

Json SearchIndexJob::Encode() const { return Json{{"msg", msg_id}}; }

SearchIndexJob SearchIndexJob::Decode(const Json& j) { return {j.at("msg").get<int64_t>()}; }

Json TidMapJob::Encode() const {
  Json j{{"msg", msg_id}, {"user", user_id}};
  if (deleted) j["deleted"] = true;
  return j;
}

TidMapJob TidMapJob::Decode(const Json& j) {
  return {j.at("msg").get<int64_t>(), j.at("user").get<int64_t>(), j.value("deleted", false)};
}

Json MsgWriteJob::Encode() const {
  Json j{{"msg", row.id},
         {"user", row.user_id},
         {"type", row.type},
         {"content", row.content},
         {"ref_msg", row.ref_msg_id},
         {"ref_user", row.ref_user_id},
         {"root_msg", row.root_msg_id},
         {"root_user", row.root_user_id},
         {"time", row.time}};
  if (!attrs.is_null()) j["attrs"] = attrs;
  return j;
}

MsgWriteJob MsgWriteJob::Decode(const Json& j) {
  MsgWriteJob job;
  job.row.id = j.at("msg").get<int64_t>();
  job.row.user_id = j.at("user").get<int64_t>();
  job.row.type = j.at("type").get<int>();
  job.row.content = j.at("content").get<std::string>();
  job.row.ref_msg_id = j.at("ref_msg").get<int64_t>();
  job.row.ref_user_id = j.at("ref_user").get<int64_t>();
  job.row.root_msg_id = j.at("root_msg").get<int64_t>();
  job.row.root_user_id = j.at("root_user").get<int64_t>();
  job.row.time = j.at("time").get<int64_t>();
  job.attrs = j.value("attrs", Json());
  return job;
}

Json AuthorDropJob::Encode() const {
  return Json{{"user", user_id}, {"msg", msg_id}, {"type", type}};
}

AuthorDropJob AuthorDropJob::Decode(const Json& j) {
  return {j.at("user").get<int64_t>(), j.at("msg").get<int64_t>(), j.at("type").get<int>()};
}

Json IndexRowJob::Encode() const {
  return Json{{"index", index}, {"value", value}, {"entity", entity}, {"remove", remove}};
}

IndexRowJob IndexRowJob::Decode(const Json& j) {
  return {j.at("index").get<std::string>(), j.at("value").get<std::string>(),
          j.at("entity").get<std::string>(), j.at("remove").get<bool>()};
}

}  // namespace weibo
