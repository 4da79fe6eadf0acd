#include "retwis.h"

#include <hiredis/hiredis.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <thread>

#include "child_process.h"
#include "weibo/cluster.h"

namespace weibo::bench {
namespace {

constexpr int kReadyMs = 10000;
constexpr int kStopMs = 30000;  // appendfsync always: the last writes are synced at exit

struct FreeReply {
  void operator()(redisReply* r) const { freeReplyObject(r); }
};
using Reply = std::unique_ptr<redisReply, FreeReply>;

int64_t Nanos(std::chrono::steady_clock::duration d) {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(d).count();
}

bool Executable(const std::string& path) { return access(path.c_str(), X_OK) == 0; }

// Reads the replies of the n commands appended (pipelined) since the last call.
Result<std::vector<Reply>> Replies(redisContext* c, int n) {
  std::vector<Reply> out;
  for (int i = 0; i < n; ++i) {
    void* raw = nullptr;
    if (redisGetReply(c, &raw) != REDIS_OK)
      return Status(Code::kUnavailable, std::string("redis: ") + c->errstr);
    Reply r(static_cast<redisReply*>(raw));
    if (r->type == REDIS_REPLY_ERROR)
      return Status(Code::kUnavailable, "redis: " + std::string(r->str, r->len));
    out.push_back(std::move(r));
  }
  return out;
}

std::string Text(const Json& v) { return v.is_string() ? v.get<std::string>() : v.dump(); }

}  // namespace

Result<std::string> RetwisPeer::FindServer() {
  const char* path = std::getenv("PATH");
  std::string dirs = path != nullptr ? path : "";
  for (size_t from = 0; from <= dirs.size();) {
    size_t colon = dirs.find(':', from);
    if (colon == std::string::npos) colon = dirs.size();
    std::string dir = dirs.substr(from, colon - from);
    if (!dir.empty() && Executable(dir + "/redis-server")) return dir + "/redis-server";
    from = colon + 1;
  }
  if (Executable("/usr/bin/redis-server")) return std::string("/usr/bin/redis-server");
  return Status(Code::kNotFound,
                "--peer retwis needs redis-server, which is neither on PATH nor in /usr/bin "
                "(Debian: apt-get install redis-server; scripts/setup.sh installs it)");
}

Result<std::unique_ptr<RetwisPeer>> RetwisPeer::Start(const std::string& server,
                                                      const std::string& given_dir,
                                                      const std::string& durability) {
  mkdir(given_dir.c_str(), 0700);
  // Absolute: redis-server changes into `dir` before it binds the socket, so a relative
  // path (weibo-bench --data d) would name a socket inside d/d, which does not exist.
  std::error_code ec;
  const std::string dir = std::filesystem::absolute(given_dir, ec).lexically_normal().string();
  if (ec)
    return Status(Code::kUnavailable, "--peer: cannot resolve " + given_dir + ": " + ec.message());
  const std::string socket = dir + "/redis.sock", config = dir + "/redis.conf";
  {
    std::ofstream conf(config);
    conf << "# weibo-bench --peer retwis: durability " << durability << "\n"
         << "port 0\nunixsocket " << socket << "\nunixsocketperm 700\n"
         << "dir " << dir << "\nsave \"\"\nappendonly yes\n"
         << "appendfsync " << (durability == "full" ? "always" : "everysec") << "\n"
         << "daemonize no\nlogfile \"\"\n";
    if (!conf) return Status(Code::kUnavailable, "cannot write " + config);
  }
  pid_t pid = SpawnChild({server, config}, -1, dir + "/redis.log");
  if (pid < 0) return Status(Code::kUnavailable, "cannot start redis-server: fork");
  std::unique_ptr<RetwisPeer> peer(new RetwisPeer(pid, dir));
  peer->run_.feed = kRetwisLabel;
  peer->run_.storage_measured = false;
  auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(kReadyMs);
  while (std::chrono::steady_clock::now() < deadline) {
    int status = 0;
    if (waitpid(pid, &status, WNOHANG) == pid) {
      peer->pid_ = 0;
      return Status(Code::kUnavailable,
                    "redis-server (" + server + ") exited: " + LogTail(dir + "/redis.log"));
    }
    redisContext* c = redisConnectUnix(socket.c_str());
    if (c != nullptr && c->err == 0) {
      Reply pong(static_cast<redisReply*>(redisCommand(c, "PING")));
      if (pong && pong->type == REDIS_REPLY_STATUS) {
        peer->redis_ = c;
        return peer;
      }
    }
    if (c != nullptr) redisFree(c);
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return Status(Code::kUnavailable, "redis-server (" + server + ") did not answer on " + socket);
}

RetwisPeer::~RetwisPeer() { (void)Finish(); }

Status RetwisPeer::Finish() {
  if (redis_ != nullptr) redisFree(redis_);
  redis_ = nullptr;
  pid_t pid = pid_;
  pid_ = 0;
  return StopChild(pid, "redis-server", kStopMs);
}

Result<int64_t> RetwisPeer::UserId(const Json& ref) {
  std::string text = Text(ref);
  if (text.empty() || text[0] != '@') return std::stoll(text);
  Reply r(static_cast<redisReply*>(
      redisCommand(redis_, "HGET users %b", text.data() + 1, text.size() - 1)));
  if (!r) return Status(Code::kUnavailable, std::string("redis: ") + redis_->errstr);
  if (r->type != REDIS_REPLY_STRING) return Status(Code::kNotFound, "no user named " + text);
  return std::stoll(std::string(r->str, r->len));
}

Status RetwisPeer::UserAdd(const Json& args) {
  const std::string name = Text(args.at("name"));
  Reply id(static_cast<redisReply*>(redisCommand(redis_, "INCR next_user_id")));
  if (!id) return Status(Code::kUnavailable, std::string("redis: ") + redis_->errstr);
  const long long uid = id->integer;
  const std::string auth = "auth" + std::to_string(uid);  // Retwis: a random secret
  redisAppendCommand(redis_, "HSET users %b %lld", name.data(), name.size(), uid);
  redisAppendCommand(redis_, "HMSET user:%lld username %b password %s auth %s", uid, name.data(),
                     name.size(), "secret", auth.c_str());
  redisAppendCommand(redis_, "HSET auths %s %lld", auth.c_str(), uid);
  redisAppendCommand(redis_, "ZADD users_by_time %lld %b", static_cast<long long>(time(nullptr)),
                     name.data(), name.size());
  return Replies(redis_, 4).status();
}

Status RetwisPeer::Follow(const Json& args, bool follow) {
  auto a = UserId(args.at("user"));
  auto b = a.ok() ? UserId(args.at("target")) : a;
  if (!b.ok()) return b.status();
  const long long user = a.value(), target = b.value();
  if (follow) {
    const long long t = time(nullptr);
    redisAppendCommand(redis_, "ZADD followers:%lld %lld %lld", target, t, user);
    redisAppendCommand(redis_, "ZADD following:%lld %lld %lld", user, t, target);
  } else {
    redisAppendCommand(redis_, "ZREM followers:%lld %lld", target, user);
    redisAppendCommand(redis_, "ZREM following:%lld %lld", user, target);
  }
  return Replies(redis_, 2).status();
}

Status RetwisPeer::Post(const Json& args) {
  auto author = UserId(args.at("user"));
  if (!author.ok()) return author.status();
  const long long user = author.value();
  const std::string body = Text(args.at("content"));
  Reply id(static_cast<redisReply*>(redisCommand(redis_, "INCR next_post_id")));
  if (!id) return Status(Code::kUnavailable, std::string("redis: ") + redis_->errstr);
  const long long post = id->integer;
  redisAppendCommand(redis_, "HMSET post:%lld user_id %lld time %lld body %b", post, user,
                     static_cast<long long>(time(nullptr)), body.data(), body.size());
  redisAppendCommand(redis_, "ZRANGE followers:%lld 0 -1", user);
  auto replies = Replies(redis_, 2);
  if (!replies.ok()) return replies.status();
  const redisReply* fans = replies.value()[1].get();
  for (size_t i = 0; i < fans->elements; ++i)
    redisAppendCommand(redis_, "LPUSH posts:%b %lld", fans->element[i]->str, fans->element[i]->len,
                       post);
  redisAppendCommand(redis_, "LPUSH posts:%lld %lld", user, post);
  redisAppendCommand(redis_, "LPUSH timeline %lld", post);
  redisAppendCommand(redis_, "LTRIM timeline 0 1000");
  return Replies(redis_, static_cast<int>(fans->elements) + 3).status();
}

Status RetwisPeer::Timeline(const Json& args) {
  auto reader = UserId(args.at("user"));
  if (!reader.ok()) return reader.status();
  const long long count = args.value("count", int64_t{20});
  Reply ids(static_cast<redisReply*>(
      redisCommand(redis_, "LRANGE posts:%lld 0 %lld", reader.value(), count - 1)));
  if (!ids) return Status(Code::kUnavailable, std::string("redis: ") + redis_->errstr);
  for (size_t i = 0; i < ids->elements; ++i)
    redisAppendCommand(redis_, "HGETALL post:%b", ids->element[i]->str, ids->element[i]->len);
  return Replies(redis_, static_cast<int>(ids->elements)).status();
}

Result<bool> RetwisPeer::Apply(const Request& op) {
  Status s;
  if (op.op == "user_add")
    s = UserAdd(op.args);
  else if (op.op == "follow" || op.op == "unfollow")
    s = Follow(op.args, op.op == "follow");
  else if (op.op == "post")
    s = Post(op.args);
  else if (op.op == "timeline" && !op.args.value("posts", false) && !op.args.contains("max_id"))
    s = Timeline(op.args);
  else
    return false;
  if (!s.ok()) return s;
  return true;
}

Status RetwisPeer::Setup(const Trace& trace, const TraceModel& model) {
  run_.setup_ops = static_cast<int64_t>(model.setup_ops);
  auto t0 = std::chrono::steady_clock::now();
  for (size_t i = 0; i < model.setup_ops && i < trace.size(); ++i) {
    auto applied = Apply(trace[i]);
    if (!applied.ok()) return applied.status();
    if (!applied.value()) ++skipped_;
  }
  run_.setup_seconds = Nanos(std::chrono::steady_clock::now() - t0) / 1e9;
  return Status::Ok();
}

Status RetwisPeer::Measure(const Trace& trace, size_t from, size_t to) {
  for (size_t i = from; i < to && i < trace.size(); ++i) {
    auto t0 = std::chrono::steady_clock::now();
    auto applied = Apply(trace[i]);
    auto t1 = std::chrono::steady_clock::now();
    if (!applied.ok()) return applied.status();
    if (!applied.value()) {
      ++skipped_;
      continue;
    }
    run_.ops[trace[i].op].latency.Add(Nanos(t1 - t0));
  }
  return Status::Ok();
}

}  // namespace weibo::bench
