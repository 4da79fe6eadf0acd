// Job payloads (flows/job_payloads.h): each encodes to exactly the JSON an older build
// wrote — the keys, their order and which are left out — so jobs left pending across an
// upgrade still decode; and each decodes back to what was encoded.
#include "flows/job_payloads.h"

#include <tuple>

#include "test_support.h"

namespace weibo {
namespace {

template <typename Job>
void RoundTrip(const Job& job, const std::string& text) {
  INFO(Job::kKind);
  REQUIRE(job.Encode().dump() == text);
  REQUIRE(Job::Decode(Json::parse(text)).Encode().dump() == text);
}

TEST_CASE("job payloads: the encoding of every kind, and back") {
  RoundTrip(UserCreateJob{7, "ann", 100}, R"({"id":7,"name":"ann","time":100})");
  RoundTrip(FanAddJob{7, 8, 100, true}, R"({"user":7,"fan":8,"time":100,"merge":true})");
  RoundTrip(FanRemoveJob{7, 8}, R"({"user":7,"fan":8})");
  RoundTrip(InboxMergeJob{8, 7, {{300, 3}, {200, 2}}, std::nullopt},
            R"({"user":8,"author":7,"items":[[300,3],[200,2]]})");
  RoundTrip(InboxMergeJob{8, 7, {{300, 3}}, 300},
            R"({"user":8,"author":7,"items":[[300,3]],"floor":300})");
  RoundTrip(FanOutJob{7, 300, 3}, R"({"author":7,"msg_id":300,"time":3})");
  RoundTrip(PurgeJob{7, 300}, R"({"author":7,"msg_id":300})");
  RoundTrip(UndeliverJob{300, {8, 9}}, R"({"msg_id":300,"users":[8,9]})");
  RoundTrip(RefAddJob{1, 8, 400, 7, 300, 4},
            R"({"type":1,"reference_id":8,"reference_msg_id":400,"referenced_id":7,)"
            R"("referenced_msg_id":300,"time":4})");
  RoundTrip(RefRemoveJob{2, 8, 400, 300},
            R"({"type":2,"reference_id":8,"reference_msg_id":400,"referenced_msg_id":300})");
  RoundTrip(ActiveJoinJob{8, {7, 9}, 0}, R"({"fan":8,"authors":[7,9],"floor":0})");
  RoundTrip(ActiveMergeJob{8, {{7, 5, {{300, 3}}, std::nullopt}, {9, 6, {}, 250}}},
            R"({"user":8,"entries":[{"author":7,"seq":5,"items":[[300,3]]},)"
            R"({"author":9,"seq":6,"items":[],"floor":250}]})");
  RoundTrip(ActiveDropJob{8, 7, 12}, R"({"user":8,"author":7,"upto":12})");
  MsgWriteJob write;
  write.row.id = 300;
  write.row.user_id = 7;
  write.row.type = 2;
  write.row.content = "hi";
  write.row.ref_msg_id = 200;
  write.row.ref_user_id = 8;
  write.row.root_msg_id = 100;
  write.row.root_user_id = 9;
  write.row.time = 3;
  RoundTrip(write, R"({"msg":300,"user":7,"type":2,"content":"hi","ref_msg":200,"ref_user":8,)"
                   R"("root_msg":100,"root_user":9,"time":3})");
  write.attrs = Json{{"mood", "ok"}};
  RoundTrip(write, R"({"msg":300,"user":7,"type":2,"content":"hi","ref_msg":200,"ref_user":8,)"
                   R"("root_msg":100,"root_user":9,"time":3,"attrs":{"mood":"ok"}})");
  RoundTrip(AuthorDropJob{7, 300, 0}, R"({"user":7,"msg":300,"type":0})");
}

TEST_CASE("job payloads: a delivery's tiers, and which deliveries are plain") {
  DeliverJob plain;
  plain.author = 7;
  plain.msg_id = 300;
  plain.time = 3;
  plain.users = {8, 9};
  RoundTrip(plain, R"({"author":7,"msg_id":300,"time":3,"users":[8,9]})");
  REQUIRE(DeliverJob::Plain(plain.Encode()));

  DeliverJob tiered = plain;
  tiered.tiered = true;
  RoundTrip(tiered, R"({"author":7,"msg_id":300,"time":3,"users":[8,9],"tiered":true})");
  REQUIRE_FALSE(DeliverJob::Plain(tiered.Encode()));

  DeliverJob tier1 = plain;
  tier1.tier = 1;
  tier1.later = {10};
  RoundTrip(tier1, R"({"author":7,"msg_id":300,"time":3,"users":[8,9],"tier":1,"later":[10]})");
  REQUIRE_FALSE(DeliverJob::Plain(tier1.Encode()));
  tier1.of = 5;  // the fan-out listed 5 fans of this shard (flows/fanout.cc, ScanFollowers)
  RoundTrip(tier1,
            R"({"author":7,"msg_id":300,"time":3,"users":[8,9],"tier":1,"later":[10],"of":5})");
  REQUIRE_FALSE(DeliverJob::Plain(tier1.Encode()));

  DeliverJob tier2 = plain;
  tier2.tier = 2;  // the last tier carries nothing along: plain again
  RoundTrip(tier2, R"({"author":7,"msg_id":300,"time":3,"users":[8,9],"tier":2})");
  REQUIRE(DeliverJob::Plain(tier2.Encode()));
}

TEST_CASE("job payloads: a delivery's readers, users then later, from any field order") {
  using Seen = std::vector<std::tuple<int64_t, int64_t, int64_t>>;  // (msg, author, user)
  auto each = [](const Json& j) {
    Seen seen;
    DeliverJob::ForEachDelivery(j, [&](int64_t msg, int64_t author, int64_t user) {
      seen.emplace_back(msg, author, user);
    });
    return seen;
  };
  DeliverJob tier1;
  tier1.author = 7;
  tier1.msg_id = 300;
  tier1.users = {8, 9};
  tier1.tier = 1;
  tier1.later = {10};
  const Seen all{{300, 7, 8}, {300, 7, 9}, {300, 7, 10}};
  REQUIRE(each(tier1.Encode()) == all);
  // Parsed text (unsigned numbers), fields in another order: the same deliveries.
  REQUIRE(each(Json::parse(R"({"later":[10],"users":[8,9],"tier":1,"msg_id":300,"author":7})")) ==
          all);
  REQUIRE(each(Json::parse(R"({"msg_id":300,"author":7})")).empty());
  // A payload without its message or author is refused as at() refuses it.
  REQUIRE_THROWS_AS(each(Json::parse(R"({"author":7,"users":[8]})")), Json::out_of_range);
  REQUIRE_THROWS_AS(each(Json::parse(R"({"msg_id":300,"users":[8]})")), Json::out_of_range);
  REQUIRE_THROWS_AS(each(Json::parse("[1,2]")), Json::type_error);
}

}  // namespace
}  // namespace weibo
