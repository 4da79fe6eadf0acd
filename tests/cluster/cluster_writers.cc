// Concurrent writers against a cluster's broker (weibo-cluster(1)).
//
//   cluster_writers ENDPOINT PROCS WRITES
//
// Creates PROCS writers and ceil(WRITES / 3) follow targets through ENDPOINT, then forks
// PROCS children; child i, as writer i, makes WRITES writes through its own remote executor:
// write k is a post (k mod 3 = 0), a follow of target k / 3 (1), or a comment on its first
// post (2). Every reply must be ok. The parent then waits until the cluster has applied
// every job (drain reports nothing pending) and checks, from user_list: the writers'
// msg_count + follow_count add up to PROCS x WRITES, and the targets' fans_count to the
// follows. Exits 0 when all holds; prints what failed otherwise.
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <iostream>
#include <string>
#include <thread>

#include "weibo/request.h"

namespace {

std::unique_ptr<weibo::Executor> Open(const std::string& endpoint) {
  weibo::RemoteOptions ro;
  ro.endpoint = endpoint;
  ro.timeout_ms = 20000;
  return weibo::OpenRemote(ro);
}

int Child(const std::string& endpoint, int writer, int writes, int first_target) {
  auto ex = Open(endpoint);
  int errors = 0;
  std::string first_post;
  for (int k = 0; k < writes; ++k) {
    weibo::Request r;
    if (k % 3 == 0) {
      r = {
          "post",
          {{"user", writer}, {"content", "w" + std::to_string(writer) + " #" + std::to_string(k)}}};
    } else if (k % 3 == 1) {
      r = {"follow", {{"user", writer}, {"target", first_target + k / 3}}};
    } else {
      r = {"comment",
           {{"user", writer}, {"msg", first_post}, {"content", "c" + std::to_string(k)}}};
    }
    auto result = ex->Execute(r);
    if (!result.ok()) {
      if (++errors <= 5)
        std::cerr << "writer " << writer << " write " << k << " (" << r.op
                  << "): " << result.status().message() << "\n";
      continue;
    }
    if (k == 0) first_post = result.value().at("id").get<std::string>();
  }
  return errors > 255 ? 255 : errors;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 4) {
    std::cerr << "usage: cluster_writers ENDPOINT PROCS WRITES\n";
    return 2;
  }
  const std::string endpoint = argv[1];
  const int procs = std::stoi(argv[2]), writes = std::stoi(argv[3]);
  const int targets = (writes + 2) / 3;
  {
    auto ex = Open(endpoint);
    for (int i = 0; i < procs + targets; ++i) {
      auto r = ex->Execute({"user_add", {{"name", "u" + std::to_string(i + 1)}}});
      if (!r.ok()) {
        std::cerr << "user_add: " << r.status().message() << "\n";
        return 1;
      }
    }
  }
  auto start = std::chrono::steady_clock::now();
  std::vector<pid_t> kids;
  for (int i = 0; i < procs; ++i) {
    pid_t pid = fork();
    if (pid == 0) _exit(Child(endpoint, i + 1, writes, procs + 1));
    kids.push_back(pid);
  }
  int failed = 0;
  for (pid_t pid : kids) {
    int status = 0;
    waitpid(pid, &status, 0);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) ++failed;
  }
  double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::cout << procs * writes << " writes by " << procs << " processes in " << secs << " s ("
            << procs * writes / secs << " writes/s); " << failed << " processes saw errors\n";
  auto ex = Open(endpoint);
  for (int tries = 0;; ++tries) {
    auto r = ex->Execute({"drain", weibo::Json::object()});
    if (r.ok() && r.value().value("pending", 1) == 0) break;
    if (tries > 200) {
      std::cerr << "FAIL: jobs still pending after 20 s\n";
      return 1;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  auto users = ex->Execute({"user_list", weibo::Json::object()});
  if (!users.ok()) {
    std::cerr << "user_list: " << users.status().message() << "\n";
    return 1;
  }
  long long writes_seen = 0, fans = 0;
  for (const auto& u : users.value()) {
    long long id = std::stoll(u.at("id").get<std::string>());
    if (id <= procs)
      writes_seen += u.at("msg_count").get<long long>() + u.at("follow_count").get<long long>();
    else
      fans += u.at("fans_count").get<long long>();
  }
  long long follows = 0;
  for (int k = 0; k < writes; ++k) follows += k % 3 == 1;
  follows *= procs;
  std::cout << "writes present: " << writes_seen << " (want " << procs * writes
            << "), fans: " << fans << " (want " << follows << ")\n";
  bool ok = failed == 0 && writes_seen == static_cast<long long>(procs) * writes && fans == follows;
  if (!ok) std::cerr << "FAIL\n";
  return ok ? 0 : 1;
}
