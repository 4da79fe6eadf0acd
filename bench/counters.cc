#include "counters.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <ostream>

#include "cluster.h"
#include "disk.h"
#include "rng.h"
#include "stats.h"
#include "table.h"
#include "weibo/cluster.h"
#include "weibo/daemon.h"
#include "weibod_child.h"

namespace weibo::bench {

const char kCounterUpdates[] = "SELECT n FROM bench_counter_updates";

Status InstallCounterUpdateCounter(const std::string& dir) {
  return ExecOnShards(dir,
                      "CREATE TABLE IF NOT EXISTS bench_counter_updates(n INTEGER NOT NULL);"
                      "INSERT INTO bench_counter_updates SELECT 0"
                      " WHERE NOT EXISTS (SELECT 1 FROM bench_counter_updates);"
                      "CREATE TRIGGER IF NOT EXISTS bench_count_counter_updates"
                      " AFTER UPDATE ON msg_counter"
                      " BEGIN UPDATE bench_counter_updates SET n = n + 1; END;");
}

namespace {

using SteadyClock = std::chrono::steady_clock;

int64_t Nanos(SteadyClock::time_point t0) {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(SteadyClock::now() - t0).count();
}

// Runs request on executor, timed into *lat when given; the result or its error.
Result<Json> Timed(Executor& executor, const Request& request, Latencies* lat) {
  auto t0 = SteadyClock::now();
  Result<Json> r = executor.Execute(request);
  if (lat != nullptr) lat->Add(Nanos(t0));
  return r;
}

// A count call as weibo-count --json makes it (Executor::ExecuteForReply: through weibod
// the reply's own text, validated by the client but not built into objects), timed into
// *lat when given; then, untimed, checked: one item per id asked, in order. The check scans
// the text for each `{"id":"<id>"` in turn instead of parsing it into objects: parsing
// 200 items allocated and freed some thousand nodes between two timed calls, work of the
// bench's own that evicted the daemon's data from the two processors' caches and landed
// in the next call's time, more in the hot call's (which is short) than in the cold one's.
Status TimedCount(Executor& executor, const Request& request, Latencies* lat) {
  std::string text;
  auto t0 = SteadyClock::now();
  Result<Json> r = executor.ExecuteForReply(request, &text);
  if (lat != nullptr) lat->Add(Nanos(t0));
  if (!r.ok()) return r.status();
  if (text.empty()) text = r.value().dump();
  const Json& ids = request.args.at("msgs");
  bool right = text.size() >= 2 && text.front() == '[' && text.back() == ']';
  size_t at = 0;
  for (size_t k = 0; right && k < ids.size(); ++k) {
    const std::string item = (k == 0 ? "[" : "},") + std::string("{\"id\":") + ids[k].dump();
    at = text.find(item, at);
    right = at != std::string::npos && (k > 0 || at == 0);
    if (right) at += item.size();
  }
  // No item after the last one asked.
  right = right && text.find("{\"id\":", at) == std::string::npos;
  if (!right) return Status(Code::kStorageError, "count replied " + text.substr(0, 200));
  return Status::Ok();
}

// Setup ops on an embedded executor, loaded without fsyncs (weibo/storage.h); Close
// flushes the files, so the measured phase is not charged for the setup's pages.
class Setup {
 public:
  Setup(std::string dir, int64_t now_ms) : dir_(std::move(dir)) {
    SetDurableCommits(false);
    EmbeddedOptions eo;
    eo.data_dir = dir_;
    eo.now_ms = now_ms;
    executor_ = OpenEmbedded(eo);
  }
  ~Setup() { Close(); }
  Result<Json> Run(const std::string& op, Json args) { return executor_->Execute({op, args}); }
  void Close() {
    if (!executor_) return;
    executor_.reset();
    SetDurableCommits(true);
    FlushShards(dir_);
  }

 private:
  std::string dir_;
  std::unique_ptr<Executor> executor_;
};

// A fresh cluster in dir and `users` users u1..uN made by user_add.
Status MakeUsers(const std::string& dir, int shards, int64_t users, int64_t now_ms, Setup** out,
                 std::unique_ptr<Setup>* owner) {
  ClusterOptions c;
  c.shards = shards;
  Status s = CreateCluster(dir, "hybrid", c);
  if (!s.ok()) return s;
  *owner = std::make_unique<Setup>(dir, now_ms);
  *out = owner->get();
  for (int64_t u = 1; u <= users; ++u) {
    auto r = (*out)->Run("user_add", Json{{"name", "u" + std::to_string(u)}});
    if (!r.ok()) return r.status();
  }
  return Status::Ok();
}

std::string IdOf(const Json& result) { return result.at("id").get<std::string>(); }

Result<std::unique_ptr<WeibodChild>> StartWeibod(const CountersOptions& o, const std::string& dir) {
  return WeibodChild::Start(o.weibod.empty() ? WeibodNextToProgram() : o.weibod, dir, 256,
                            dir + "/weibod.log");
}

std::unique_ptr<Executor> Client(const std::string& endpoint) {
  RemoteOptions remote;
  remote.endpoint = endpoint;
  remote.timeout_ms = 60000;
  return OpenRemote(remote);
}

// Hot against cold count calls through one weibod.
Status HotCold(const std::string& dir, const CountersOptions& o, Progress& progress,
               CountersResult* r) {
  Setup* setup = nullptr;
  std::unique_ptr<Setup> owner;
  // One author per shard, so the ids of a call spread over every shard.
  Status s = MakeUsers(dir, o.shards, o.shards, o.now_ms, &setup, &owner);
  if (!s.ok()) return s;
  const int64_t posts = o.ids * (kWarmRounds + o.rounds + 1);
  progress.Stage("counters: hot/cold setup", posts);
  std::vector<Json> ids;
  for (int64_t k = 0; k < posts; ++k) {
    auto p = setup->Run("post", Json{{"user", 1 + k % o.shards}, {"content", "count me"}});
    if (!p.ok()) return p.status();
    ids.push_back(IdOf(p.value()));
    progress.Step(k + 1);
  }
  setup->Close();
  auto weibod = StartWeibod(o, dir);
  if (!weibod.ok()) return weibod.status();
  auto client = Client(weibod.value()->endpoint());
  // Every request is made before the first call: building 200 ids' array between two timed
  // calls was, like parsing a reply, the bench's own work in the daemon's caches.
  std::vector<Request> batches;
  for (int64_t b = 0; b <= kWarmRounds + o.rounds; ++b)
    batches.push_back(
        Request{"count", Json{{"msgs", Json(std::vector<Json>(ids.begin() + b * o.ids,
                                                              ids.begin() + (b + 1) * o.ids))}}});
  const Request& hot = batches[0];
  Latencies hot_lat, cold_lat;
  Result<Json> warm = client->Execute(hot);  // read once: in the daemon's memory from now on
  Status done = warm.status();
  progress.Stage("counters: hot/cold", o.rounds);
  // Batches 1..kWarmRounds are the untimed pairs' cold ids; each timed pair's cold batch
  // is one never asked before.
  for (int64_t b = 1; done.ok() && b <= kWarmRounds + o.rounds; ++b) {
    const bool timed = b > kWarmRounds;
    done = TimedCount(*client, hot, timed ? &hot_lat : nullptr);
    if (done.ok()) done = TimedCount(*client, batches[b], timed ? &cold_lat : nullptr);
    if (timed) progress.Step(b - kWarmRounds);
  }
  Status stopped = weibod.value()->Stop();
  if (!done.ok()) return done;
  if (!stopped.ok()) return stopped;
  r->ids = o.ids;
  r->hot_calls_per_s = hot_lat.PerSecond();
  r->cold_calls_per_s = cold_lat.PerSecond();
  r->hot_p50_ms = hot_lat.PercentileMs(50);
  r->cold_p50_ms = cold_lat.PercentileMs(50);
  return Status::Ok();
}

// o.likes likes of one message through weibod, then a drain.
Status Likes(const std::string& dir, const CountersOptions& o, Progress& progress,
             CountersResult* r) {
  Setup* setup = nullptr;
  std::unique_ptr<Setup> owner;
  progress.Stage("counters: likes setup", 0);
  Status s = MakeUsers(dir, o.shards, o.likes + 1, o.now_ms, &setup, &owner);
  if (!s.ok()) return s;
  auto post = setup->Run("post", Json{{"user", 1}, {"content", "liked by everyone"}});
  if (!post.ok()) return post.status();
  const std::string msg = IdOf(post.value());
  setup->Close();
  s = InstallCounterUpdateCounter(dir);
  if (!s.ok()) return s;
  auto weibod = StartWeibod(o, dir);
  if (!weibod.ok()) return weibod.status();
  auto client = Client(weibod.value()->endpoint());
  progress.Stage("counters: likes", o.likes);
  Result<Json> done = Json();
  auto t0 = SteadyClock::now();
  for (int64_t u = 2; done.ok() && u <= o.likes + 1; ++u) {
    done = client->Execute({"like", Json{{"user", std::to_string(u)}, {"msg", msg}}});
    progress.Step(u - 1);
  }
  const double seconds = Nanos(t0) / 1e9;
  if (done.ok()) done = client->Execute({"drain", Json::object()});
  if (done.ok()) done = client->Execute({"count", Json{{"msgs", Json::array({msg})}}});
  Status stopped = weibod.value()->Stop();
  if (!done.ok()) return done.status();
  if (!stopped.ok()) return stopped;
  auto updates = SumOverShards(dir, kCounterUpdates);
  if (!updates.ok()) return updates.status();
  r->likes = o.likes;
  r->counter_updates = updates.value();
  r->like_count = done.value().at(0).at("counts").at("likes").get<int64_t>();
  r->likes_per_s = seconds > 0 ? o.likes / seconds : 0;
  return Status::Ok();
}

// Users 1..users, loaded with SQL: a user_info row on shard u mod N and a stored last-read
// notification id 0, as if each had read once before any notification was sent. No name
// rows: the bench names them by id only.
Status LoadUsers(const std::string& dir, int shards, int64_t users, int64_t now_ms) {
  return ExecOnShards(
      dir,
      "WITH RECURSIVE k(id) AS (SELECT ?1 UNION ALL SELECT id + ?2 FROM k WHERE id + ?2 <= ?3)"
      " INSERT INTO user_info(user_id, user_name, created, last_active)"
      " SELECT id, 'b' || id, ?4, ?4 FROM k WHERE id >= 1;"
      "WITH RECURSIVE k(id) AS (SELECT ?1 UNION ALL SELECT id + ?2 FROM k WHERE id + ?2 <= ?3)"
      " INSERT INTO last_seen(user_id, kind, last_id, time) SELECT id, 0, 0, ?4 FROM k"
      " WHERE id >= 1;",
      [&](int index) {
        return std::vector<int64_t>{index == 0 ? shards : index, shards, users, now_ms};
      });
}

// Write statements (INSERT, UPDATE, DELETE) in an --explain log.
int64_t Writes(const std::vector<std::string>& log) {
  int64_t n = 0;
  for (const std::string& line : log) {
    size_t sql = line.find(": ");
    std::string stmt = sql == std::string::npos ? line : line.substr(sql + 2);
    for (const char* verb : {"INSERT", "UPDATE", "DELETE"})
      if (stmt.rfind(verb, 0) == 0) ++n;
  }
  return n;
}

// One notify cluster: made, loaded, its send measured; then, untimed, one unread of every
// user in id order — the steady state of a long-running daemon, which has opened each
// shard's connection once and has read (so cached) the pages of the users it has served.
// Leaves two open executors for the timed unreads (NotifyUnreads): *executor keeps the
// users' last-read ids in memory as weibod does by default (--seen-cache, 2^20 ids: all
// of 10^6 users, bar those of a set that overflows); *uncached keeps none, so each of its
// unreads reads the user's last_seen row, as a one-shot command does.
Status NotifySetup(const std::string& dir, const CountersOptions& o, int64_t users,
                   Progress& progress, CountersResult::Notify* r,
                   std::unique_ptr<Executor>* executor, std::unique_ptr<Executor>* uncached) {
  ClusterOptions c;
  c.shards = o.shards;
  Status s = CreateCluster(dir, "hybrid", c);
  if (!s.ok()) return s;
  progress.Stage("counters: notify, " + std::to_string(users) + " users", 0);
  s = LoadUsers(dir, o.shards, users, o.now_ms);
  if (s.ok()) s = CheckpointShards(dir);
  if (!s.ok()) return s;
  FlushShards(dir);
  EmbeddedOptions eo;
  eo.data_dir = dir;
  eo.now_ms = o.now_ms;
  eo.explain = true;
  auto explained = OpenEmbedded(eo);
  Result<Json> done = explained->Execute({"notify_send", Json{{"content", "counted"}}});
  if (!done.ok()) return done.status();
  r->users = users;
  r->send_writes = Writes(explained->Explain());
  explained.reset();
  eo.explain = false;
  *uncached = OpenEmbedded(eo);
  eo.seen_cache = DaemonOptions{}.seen_cache;
  *executor = OpenEmbedded(eo);
  Latencies sends;
  for (int64_t k = 0; done.ok() && k < o.sends; ++k)
    done = Timed(**executor, {"notify_send", Json{{"content", "to everyone"}}}, &sends);
  for (int64_t user = 1; done.ok() && user <= users; ++user) {
    const Request unread{"notify_unread", Json{{"user", std::to_string(user)}}};
    done = (*executor)->Execute(unread);
    if (done.ok()) done = (*uncached)->Execute(unread);
  }
  if (!done.ok()) return done.status();
  r->send_p50_ms = sends.PercentileMs(50);
  return Status::Ok();
}

// The timed unreads of both clusters, alternated call by call (small, large, small, ...)
// as hot and cold are: whatever else the machine does in the meantime falls on both
// sides alike, so the p99 ratio compares the clusters and not two moments of the machine.
// Each cluster is asked through both of its executors, kept ids and none, alternated too.
// Random users of each; every one of them read before any send, so all sends are unread.
Status NotifyUnreads(const CountersOptions& o, Executor& small, Executor& large,
                     Executor& small_uncached, Executor& large_uncached, CountersResult* r) {
  struct Side {
    Executor& executor;
    CountersResult::Notify& result;
    bool uncached;
    Rng rng;
    Latencies unreads;
  };
  Side sides[4] = {{small, r->small, false, Rng(r->small.users), {}},
                   {large, r->large, false, Rng(r->large.users), {}},
                   {small_uncached, r->small, true, Rng(r->small.users + 1), {}},
                   {large_uncached, r->large, true, Rng(r->large.users + 1), {}}};
  for (int64_t k = 0; k < o.unreads; ++k) {
    for (Side& side : sides) {
      const int64_t user = 1 + static_cast<int64_t>(side.rng.Below(side.result.users));
      Result<Json> done = Timed(
          side.executor, {"notify_unread", Json{{"user", std::to_string(user)}}}, &side.unreads);
      if (!done.ok()) return done.status();
      if (done.value().at("unread").get<int64_t>() != o.sends + 1)
        return Status(Code::kStorageError, "user " + std::to_string(user) + " has " +
                                               done.value().at("unread").dump() + " unread, want " +
                                               std::to_string(o.sends + 1));
    }
  }
  for (Side& side : sides) {
    (side.uncached ? side.result.uncached_p50_ms : side.result.unread_p50_ms) =
        side.unreads.PercentileMs(50);
    (side.uncached ? side.result.uncached_p99_ms : side.result.unread_p99_ms) =
        side.unreads.PercentileMs(99);
  }
  return Status::Ok();
}

double Ratio(double a, double b) { return b > 0 ? a / b : NAN; }

Json NotifyJson(const CountersResult::Notify& n) {
  return Json{{"users", n.users},
              {"send_write_statements", n.send_writes},
              {"send_p50_ms", n.send_p50_ms},
              {"unread_p50_ms", n.unread_p50_ms},
              {"unread_p99_ms", n.unread_p99_ms},
              {"uncached_unread_p50_ms", n.uncached_p50_ms},
              {"uncached_unread_p99_ms", n.uncached_p99_ms}};
}

}  // namespace

Result<CountersResult> RunCounters(const std::string& work_dir, const CountersOptions& o,
                                   Progress& progress) {
  CountersResult r;
  Status s = HotCold(work_dir + "/count", o, progress, &r);
  if (s.ok()) s = Likes(work_dir + "/likes", o, progress, &r);
  std::unique_ptr<Executor> small, large, small_uncached, large_uncached;
  if (s.ok())
    s = NotifySetup(work_dir + "/notify-small", o, o.small_users, progress, &r.small, &small,
                    &small_uncached);
  if (s.ok())
    s = NotifySetup(work_dir + "/notify-large", o, o.large_users, progress, &r.large, &large,
                    &large_uncached);
  if (s.ok()) {
    progress.Stage("counters: unread, both clusters alternated", 0);
    s = NotifyUnreads(o, *small, *large, *small_uncached, *large_uncached, &r);
  }
  progress.Clear();
  if (!s.ok()) return s;
  return r;
}

Json CountersResult::ToJson() const {
  return Json{{"count",
               {{"ids", ids},
                {"hot_calls_per_s", hot_calls_per_s},
                {"cold_calls_per_s", cold_calls_per_s},
                {"hot_p50_ms", hot_p50_ms},
                {"cold_p50_ms", cold_p50_ms},
                {"hot_to_cold", Ratio(hot_calls_per_s, cold_calls_per_s)}}},
              {"likes",
               {{"likes", likes},
                {"counter_updates", counter_updates},
                {"like_count", like_count},
                {"likes_per_s", likes_per_s}}},
              {"notify",
               {{"small", NotifyJson(small)},
                {"large", NotifyJson(large)},
                {"send_writes_large_to_small", Ratio(static_cast<double>(large.send_writes),
                                                     static_cast<double>(small.send_writes))},
                {"unread_p99_large_to_small", Ratio(large.unread_p99_ms, small.unread_p99_ms)},
                {"uncached_unread_p99_large_to_small",
                 Ratio(large.uncached_p99_ms, small.uncached_p99_ms)}}}};
}

void CountersResult::Print(std::ostream& out) const {
  Table count;
  count.columns = {"hot", "cold", "hot/cold"};
  count.Add("count calls/s", "1/s",
            {hot_calls_per_s, cold_calls_per_s, Ratio(hot_calls_per_s, cold_calls_per_s)}, 2);
  count.Add("count p50 ms", "ms", {hot_p50_ms, cold_p50_ms, Ratio(cold_p50_ms, hot_p50_ms)}, 3);
  out << "count of " << ids
      << " ids through weibod: the same ids (hot) against ids never read "
         "(cold), alternated\n\n";
  count.Print(out);
  out << "\n"
      << likes << " likes of one message by as many users through weibod, then a drain\n"
      << "  UPDATE msg_counter statements: " << counter_updates << "\n"
      << "  like_count after the drain:    " << like_count << "\n"
      << "  likes/s:                       " << FormatNumber(likes_per_s, 0) << "\n\n";
  Table notify;
  notify.columns = {std::to_string(small.users) + " users", std::to_string(large.users) + " users",
                    "ratio"};
  notify.Add("notify send: write statements", "statements",
             {double(small.send_writes), double(large.send_writes),
              Ratio(double(large.send_writes), double(small.send_writes))},
             0);
  notify.Add("notify send p50 ms", "ms",
             {small.send_p50_ms, large.send_p50_ms, Ratio(large.send_p50_ms, small.send_p50_ms)},
             3);
  notify.Add(
      "unread p50 ms", "ms",
      {small.unread_p50_ms, large.unread_p50_ms, Ratio(large.unread_p50_ms, small.unread_p50_ms)},
      3);
  notify.Add(
      "unread p99 ms", "ms",
      {small.unread_p99_ms, large.unread_p99_ms, Ratio(large.unread_p99_ms, small.unread_p99_ms)},
      3);
  notify.Add("unread p50 ms, no kept ids", "ms",
             {small.uncached_p50_ms, large.uncached_p50_ms,
              Ratio(large.uncached_p50_ms, small.uncached_p50_ms)},
             3);
  notify.Add("unread p99 ms, no kept ids", "ms",
             {small.uncached_p99_ms, large.uncached_p99_ms,
              Ratio(large.uncached_p99_ms, small.uncached_p99_ms)},
             3);
  out << "notifications: one list for everyone, one last-read id per user; unread as weibod\n"
         "serves it (last-read ids kept, --seen-cache) and with none kept (--seen-cache 0)\n\n";
  notify.Print(out);
}

}  // namespace weibo::bench
