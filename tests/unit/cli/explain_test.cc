// cli/explain.cc: weibo-explain's dry run does what the command would do — the same result,
// the statements, the outbox jobs, the drain — on a copy, and changes no file of the cluster.
#include "cli/explain.h"

#include <set>

#include "test_support.h"

namespace weibo::cli {
namespace {

using test::Cluster;
using test::kNow;

DryRun Planned(const Cluster& c, const std::string& op, Json args, bool with_drain) {
  DryRun run;
  run.request = Request{op, std::move(args)};
  run.request.now_ms = kNow;
  run.data_dir = c.dir();
  run.with_drain = with_drain;
  return run;
}

std::vector<const StatementRun*> Phase(const DryRun& run, const std::string& phase) {
  std::vector<const StatementRun*> runs;
  for (const StatementRun& r : run.log.runs())
    if (r.phase == phase) runs.push_back(&r);
  return runs;
}

const StatementRun* Find(const std::vector<const StatementRun*>& runs, const std::string& prefix) {
  for (const StatementRun* r : runs)
    if (r->sql.rfind(prefix, 0) == 0) return r;
  return nullptr;
}

TEST_CASE("RunDry: a post's statements, jobs and drain, with no file of the cluster changed") {
  Cluster c;  // 4 shards, push
  int64_t alice = c.AddUser("alice"), bob = c.AddUser("bob");
  c.Follow(bob, alice);
  const auto before = test::FileStates(c.dir());

  DryRun run = Planned(c, "post", Json{{"user", "@alice"}, {"content", "hello"}}, true);
  Status s = RunDry(&run);
  INFO(test::Describe(s));
  REQUIRE(s.ok());
  REQUIRE(test::FileStates(c.dir()) == before);
  REQUIRE(c.User(alice).at("msg_count") == 0);
  REQUIRE(run.result.at("content") == "hello");

  // The op: the message row on alice's shard (1 of 4), bound to its values.
  const auto op = Phase(run, "");
  const StatementRun* insert = Find(op, "INSERT INTO msg_info");
  REQUIRE(insert != nullptr);
  REQUIRE(insert->shard == "shard-01");
  REQUIRE(insert->rows_written == 1);
  REQUIRE(std::find(insert->values.begin(), insert->values.end(), "'hello'") !=
          insert->values.end());
  // Its jobs: at least the delivery to bob's inbox on shard 2 (push).
  const std::vector<PlannedJob> jobs = PlannedJobs(run.log);
  REQUIRE_FALSE(jobs.empty());
  bool to_bob = false;
  for (const PlannedJob& job : jobs) {
    REQUIRE(job.source == "shard-01");
    REQUIRE(job.payload.is_object());
    to_bob = to_bob || job.target == "shard-02";
  }
  REQUIRE(to_bob);
  // The drain applies them: bob's inbox row, on shard 2.
  const auto drain = Phase(run, "drain");
  const StatementRun* inbox = Find(drain, "INSERT");
  REQUIRE(inbox != nullptr);
  bool wrote_bob = false;
  for (const StatementRun* r : drain)
    wrote_bob = wrote_bob || (r->shard == "shard-02" && r->rows_written > 0);
  REQUIRE(wrote_bob);

  // The real post, on the same clock and state, is the post the dry run showed.
  Json real = c.Run("post", {{"user", alice}, {"content", "hello"}});
  REQUIRE(real == run.result);
}

TEST_CASE("RunDry: without --with-drain only the op runs, its jobs are still listed") {
  Cluster c;
  int64_t alice = c.AddUser("alice"), bob = c.AddUser("bob");
  c.Follow(bob, alice);
  int64_t msg = c.Post(alice, "the original");
  DryRun run = Planned(
      c, "comment", Json{{"user", "@bob"}, {"msg", std::to_string(msg)}, {"content", "hi"}}, false);
  REQUIRE(RunDry(&run).ok());
  REQUIRE(Phase(run, "drain").empty());
  REQUIRE_FALSE(PlannedJobs(run.log).empty());
  const Json j = ExplainJson(run);
  std::vector<std::string> keys;
  for (const auto& item : j.items()) keys.push_back(item.key());
  REQUIRE(keys == std::vector<std::string>{"op", "args", "data", "strategy", "result", "run",
                                           "jobs", "drain"});
  REQUIRE(j.at("drain").is_null());
  REQUIRE(j.at("run").at("statements") == Phase(run, "").size());
  const std::string text = ExplainText(run);
  REQUIRE(text.find("-- drain: not run (--with-drain shows it)") != std::string::npos);
  REQUIRE(text.find("x on 1 shard:  INSERT INTO msg_info") != std::string::npos);
}

TEST_CASE("RunDry: a read changes no file either, and a refusal is the op's own") {
  Cluster c;
  int64_t alice = c.AddUser("alice");
  c.Post(alice, "one");
  const auto before = test::FileStates(c.dir());
  DryRun read = Planned(c, "timeline", Json{{"user", "@alice"}}, true);
  REQUIRE(RunDry(&read).ok());
  REQUIRE(read.result.size() == 1);
  REQUIRE(PlannedJobs(read.log).empty());
  // A home timeline's only write is the reader's last-seen id (the red dot, weibo(7)).
  for (const StatementRun* r : Phase(read, ""))
    if (r->rows_written > 0) REQUIRE(r->sql.rfind("INSERT INTO last_seen", 0) == 0);

  DryRun nobody = Planned(c, "post", Json{{"user", "@nobody"}, {"content", "x"}}, true);
  Status s = RunDry(&nobody);
  REQUIRE(s.code() == Code::kNotFound);
  REQUIRE(s.message().find("weibo-explain.") == std::string::npos);  // never the copy's path

  DryRun missing = Planned(c, "show", Json{{"msg", "1"}}, false);
  missing.data_dir = c.dir() + "/nowhere";
  REQUIRE(RunDry(&missing).code() == Code::kStorageError);
  REQUIRE(test::FileStates(c.dir()) == before);
}

// The shards a dry run's op touched, by name.
std::set<std::string> Touched(const DryRun& run) {
  std::set<std::string> shards;
  for (const StatementRun* r : Phase(run, "")) shards.insert(r->shard);
  return shards;
}

TEST_CASE("RunDry shows the shards each strategy touches: a read by id, an author's list") {
  // SPEC §2, issue 14's targets: reading a post by id touches 1 shard under gene and 2 under
  // uid-mapping (its tid_map row on shard id mod N, then the author's); the author's list
  // touches 1 under both.
  const bool mapped = GENERATE(false, true);
  Cluster c;  // 4 shards
  if (mapped) c.EditConfig([](Json& j) { j["strategy"] = "uid-mapping"; });
  const int64_t alice = c.AddUser("alice");  // shard 1
  const int64_t msg = c.Post(alice, "where am I?");
  INFO("strategy " << (mapped ? "uid-mapping" : "gene") << ", message " << msg);
  // Under uid-mapping the first plain id of shard 1 ends in 0: its mapping is on shard 0.
  REQUIRE(static_cast<int>(msg % 4) == (mapped ? 0 : 1));

  DryRun show = Planned(c, "show", Json{{"msg", std::to_string(msg)}}, false);
  REQUIRE(RunDry(&show).ok());
  REQUIRE(show.result.at("content") == "where am I?");
  const std::set<std::string> by_id = Touched(show);
  if (mapped) {
    REQUIRE(by_id == std::set<std::string>{"shard-00", "shard-01"});
    const StatementRun* lookup = Find(Phase(show, ""), "SELECT uid FROM tid_map");
    REQUIRE(lookup != nullptr);
    REQUIRE(lookup->shard == "shard-00");
  } else {
    REQUIRE(by_id == std::set<std::string>{"shard-01"});
    REQUIRE(Find(Phase(show, ""), "SELECT uid FROM tid_map") == nullptr);
  }

  DryRun list =
      Planned(c, "timeline", Json{{"user", std::to_string(alice)}, {"posts", true}}, false);
  REQUIRE(RunDry(&list).ok());
  REQUIRE(list.result.size() == 1);
  REQUIRE(Touched(list) == std::set<std::string>{"shard-01"});
}

}  // namespace
}  // namespace weibo::cli
