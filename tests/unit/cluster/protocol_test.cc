// cluster/protocol.cc: a verb is read only with the frames it carries, wherever it sits in
// the message (first on a node's DEALER, after the routing id on the broker's ROUTER), and
// a job survives its JOB frame unchanged.
#include "cluster/protocol.h"

#include "test_support.h"

namespace weibo::cluster {
namespace {

TEST_CASE("protocol: a verb needs the frames it carries") {
  CHECK(ReadVerb({"REQ", "7", "client", "{}"}, 0) == Verb::kReq);
  CHECK(ReadVerb({"REQ", "7", "client"}, 0) == Verb::kNone);
  CHECK(ReadVerb({"node1", "HB", "{}"}, 1) == Verb::kHeartbeat);
  CHECK(ReadVerb({"node1", "HB"}, 1) == Verb::kNone);
  CHECK(ReadVerb({"node1", "BYE"}, 1) == Verb::kBye);
  CHECK(ReadVerb({"ACK", "3", "{}", ""}, 0) == Verb::kAck);  // a frame too many is ignored
  CHECK(ReadVerb({"ack", "3", "{}"}, 0) == Verb::kNone);
  CHECK(ReadVerb({"node1"}, 1) == Verb::kNone);
}

TEST_CASE("protocol: a job and its acknowledgements travel unchanged") {
  JobRow job;
  job.source_shard = 3;
  job.local_id = 42;
  job.target_shard = 5;
  job.kind = "deliver";
  job.payload = R"({"msg":"1"})";
  job.created = 1700000000000;
  const std::string body = EncodeJob(job);
  JobRow back = DecodeJob(body);
  CHECK(back.source_shard == 3);
  CHECK(back.local_id == 42);
  CHECK(back.target_shard == 5);
  CHECK(back.kind == "deliver");
  CHECK(back.payload == job.payload);
  CHECK(back.created == job.created);
  CHECK(JobTarget(body) == 5);
  CHECK(JobTarget("not json") == -1);
  CHECK(AckOk(AckApplied(false)));
  CHECK_FALSE(AckOk(AckRefused("node down")));
  CHECK_FALSE(AckOk("garbage"));
}

}  // namespace
}  // namespace weibo::cluster
