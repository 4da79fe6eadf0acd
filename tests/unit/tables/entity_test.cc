// tables/entity.cc: entity ids, the zlib-compressed JSON body and its limits, index values
// and the shard an index row goes to.
#include "tables/entity.h"

#include "storage/shard_set.h"
#include "test_support.h"

namespace weibo {
namespace {

using test::FailureCode;

TEST_CASE("entity: a message's entity id routes like the message and names it again") {
  const int64_t msg = 794354201395200001;
  const std::string id = MessageEntityId(msg);
  REQUIRE(id.size() == kEntityIdSize);
  REQUIRE(MessageOfEntity(id) == msg);
  REQUIRE(EntityRouteKey(id) % 16 == msg % 16);
  REQUIRE(EntityIdHex(id) == "6d736700000000000b061cf000000001");
  REQUIRE(EntityIdFromHex(EntityIdHex(id)) == id);
  // Newer messages have greater ids, so an index read backwards is newest first.
  REQUIRE(MessageEntityId(msg + 1) > id);
  REQUIRE(MessageOfEntity(std::string(16, 'x')) == 0);
  REQUIRE(FailureCode([] { EntityIdFromHex("6d73"); }) == Code::kInvalidArgument);
}

TEST_CASE("entity: a body is a JSON object, compressed, and decodes to the same object") {
  Json body{{"link", "https://example.com/a"}, {"title", "标题"}, {"n", 7}};
  const std::string blob = EncodeEntityBody(body);
  REQUIRE(blob != body.dump());
  REQUIRE(DecodeEntityBody(blob) == body);
  // Repetitive text compresses: the seed's reason for zlib.
  Json long_body{{"text", std::string(10000, 'a')}};
  REQUIRE(EncodeEntityBody(long_body).size() < 200);
  REQUIRE(DecodeEntityBody(EncodeEntityBody(long_body)) == long_body);
}

TEST_CASE("entity: refused bodies — not an object, over 64 KiB — and a corrupt one") {
  for (const Json& bad : {Json::array({1, 2}), Json("text"), Json(3), Json()})
    REQUIRE(FailureCode([&] { EncodeEntityBody(bad); }) == Code::kInvalidArgument);
  Json at_limit{{"t", std::string(kMaxEntityBody - 8, 'a')}};  // {"t":"..."} is 8 more
  REQUIRE(at_limit.dump().size() == kMaxEntityBody);
  REQUIRE(DecodeEntityBody(EncodeEntityBody(at_limit)) == at_limit);
  Json over{{"t", std::string(kMaxEntityBody - 7, 'a')}};
  REQUIRE(FailureCode([&] { EncodeEntityBody(over); }) == Code::kInvalidArgument);
  REQUIRE(FailureCode([] { DecodeEntityBody("not zlib"); }) == Code::kStorageError);
}

TEST_CASE("entity: index values are strings and integers, their shard stable") {
  Json body{{"link", "u"}, {"user_id", 35}, {"score", 1.5}, {"tags", Json::array()}};
  REQUIRE(IndexValue(body, "link") == std::optional<std::string>("u"));
  REQUIRE(IndexValue(body, "user_id") == std::optional<std::string>("35"));
  REQUIRE_FALSE(IndexValue(body, "score"));
  REQUIRE_FALSE(IndexValue(body, "tags"));
  REQUIRE_FALSE(IndexValue(body, "missing"));
  REQUIRE(EntityValueShard("35", 16) == 3);  // an integer: a user id lands on its user's shard
  REQUIRE(EntityValueShard("https://example.com/", 16) == ShardOfName("https://example.com/", 16));
}

TEST_CASE("entity: put keeps added_id, the walk is newest first, index rows by entity") {
  test::TempDir dir;
  auto shard = test::FreshShard(dir);
  const std::string a = MessageEntityId(10), b = MessageEntityId(20), c = MessageEntityId(30);
  PutEntity(*shard, a, 100, {{"k", "x"}});
  PutEntity(*shard, b, 300, {{"k", "y"}});
  PutEntity(*shard, c, 200, {{"k", "x"}});
  PutEntity(*shard, a, 400, {{"k", "z"}});  // updated: the same added_id, a newer time
  REQUIRE(GetEntity(*shard, a)->added_id == 1);
  REQUIRE(GetEntity(*shard, a)->body == Json{{"k", "z"}});
  std::vector<std::string> order;
  for (const auto& e : EntitiesBefore(*shard, INT64_MAX, INT64_MAX, 10)) order.push_back(e.id);
  REQUIRE(order == std::vector<std::string>{a, b, c});
  REQUIRE(EntitiesBefore(*shard, 300, 2, 10).at(0).id == c);  // resumes after b
  CreateIndexTable(*shard, "k");
  REQUIRE(IndexTableExists(*shard, "k"));
  REQUIRE(InsertIndexRow(*shard, "k", "x", a));
  REQUIRE_FALSE(InsertIndexRow(*shard, "k", "x", a));  // idempotent
  REQUIRE(InsertIndexRow(*shard, "k", "x", c));
  REQUIRE(IndexEntities(*shard, "k", "x", "", 10) == std::vector<std::string>{c, a});
  REQUIRE(IndexEntities(*shard, "k", "x", c, 10) == std::vector<std::string>{a});
  REQUIRE(IndexRowsAfter(*shard, "k", {"x", a}, 10).size() == 1);
  REQUIRE(DeleteIndexRow(*shard, "k", "x", a));
  REQUIRE(CountIndexRows(*shard, "k") == 1);
  DropIndexTable(*shard, "k");
  REQUIRE_FALSE(IndexTableExists(*shard, "k"));
}

}  // namespace
}  // namespace weibo
