// tables/outbox.cc: durable jobs and the job_applied marks that make them idempotent.
#include "tables/outbox.h"

#include "test_support.h"

namespace weibo {
namespace {

using test::FreshShard;
using test::TempDir;

TEST_CASE("outbox: jobs get increasing local ids and start pending") {
  TempDir dir;
  auto shard = FreshShard(dir, "shard.db", 5);
  int64_t a = InsertJob(*shard, 2, "fan_add", R"({"x":1})", 111);
  int64_t b = InsertJob(*shard, 5, "fanout", "{}", 222);
  REQUIRE(b > a);
  JobRow row;
  REQUIRE(GetJob(*shard, a, &row));
  REQUIRE(row.local_id == a);
  REQUIRE(row.source_shard == 5);
  REQUIRE(row.target_shard == 2);
  REQUIRE(row.kind == "fan_add");
  REQUIRE(row.payload == R"({"x":1})");
  REQUIRE(row.created == 111);
  REQUIRE(row.state == 0);
  REQUIRE_FALSE(GetJob(*shard, b + 1, &row));
  REQUIRE(CountJobs(*shard, 0) == 2);
  REQUIRE(CountJobs(*shard, 1) == 0);
}

TEST_CASE("outbox: pending jobs in order, limited, a done job's row is deleted") {
  TempDir dir;
  auto shard = FreshShard(dir);
  std::vector<int64_t> ids;
  for (int i = 0; i < 5; ++i) ids.push_back(InsertJob(*shard, 0, "k", "{}", i));
  MarkJobDone(*shard, ids[1]);
  auto pending = PendingJobs(*shard, 3);
  REQUIRE(pending.size() == 3);
  REQUIRE(pending[0].local_id == ids[0]);
  REQUIRE(pending[1].local_id == ids[2]);
  REQUIRE(pending[2].local_id == ids[3]);
  REQUIRE(CountJobs(*shard, 0) == 4);
  REQUIRE(CountJobs(*shard, 1) == 0);
  JobRow row;
  REQUIRE_FALSE(GetJob(*shard, ids[1], &row));
  // Its id is never handed out again (AUTOINCREMENT), even after the newest job is done.
  MarkJobDone(*shard, ids[4]);
  REQUIRE(InsertJob(*shard, 0, "k", "{}", 9) > ids[4]);
}

TEST_CASE("outbox: the global id is source shard << 40 | local id") {
  JobRow row;
  row.source_shard = 3;
  row.local_id = 17;
  REQUIRE(row.global_id() == (3LL << 40 | 17));
  row.source_shard = 255;
  REQUIRE(row.global_id() == (255LL << 40 | 17));
}

TEST_CASE("outbox: job_applied marks are recorded once") {
  TempDir dir;
  auto shard = FreshShard(dir);
  REQUIRE_FALSE(JobApplied(*shard, 42));
  RecordJobApplied(*shard, 42, 1);
  RecordJobApplied(*shard, 42, 2);
  REQUIRE(JobApplied(*shard, 42));
  REQUIRE_FALSE(JobApplied(*shard, 43));
}

}  // namespace
}  // namespace weibo
