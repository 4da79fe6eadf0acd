#include "model.h"

#include <algorithm>
#include <functional>
#include <map>

namespace weibo::bench {
namespace {

// A user argument as the model knows it: an id (number or digits) or "@name"; 0 if unknown.
int64_t UserOf(const FollowGraph& graph, const Json& args, const char* key) {
  auto it = args.find(key);
  if (it == args.end()) return 0;
  if (it->is_number_integer()) return it->get<int64_t>();
  if (!it->is_string()) return 0;
  const std::string s = it->get<std::string>();
  if (!s.empty() && s[0] == '@') return graph.IdOfName(s.substr(1));
  if (s.empty() || s.size() > 18 || s.find_first_not_of("0123456789") != std::string::npos)
    return 0;
  return std::stoll(s);
}

}  // namespace

TraceModel ModelTrace(const Trace& trace, int shards) {
  TraceModel m;
  FollowGraph graph;
  m.author.assign(trace.size(), 0);
  m.fans.assign(trace.size(), 0);
  bool in_setup = true;
  for (size_t i = 0; i < trace.size(); ++i) {
    const Request& r = trace[i];
    bool history = r.op == "post" && graph.edges() == 0;  // nobody to fan out to yet
    if (in_setup && r.op != "user_add" && r.op != "follow" && !history) {
      in_setup = false;
      m.setup_ops = i;
      m.setup_users = graph.users();
      m.setup_follows = graph.edges();
    }
    if (in_setup && r.op == "post") ++m.setup_posts;
    if (r.op == "user_add") {
      graph.AddUser(r.args.value("name", std::string()));
    } else if (r.op == "follow") {
      graph.Follow(UserOf(graph, r.args, "user"), UserOf(graph, r.args, "target"));
    } else if (r.op == "unfollow") {
      graph.Unfollow(UserOf(graph, r.args, "user"), UserOf(graph, r.args, "target"));
    } else if ((r.op == "post" || r.op == "repost")) {
      int64_t author = UserOf(graph, r.args, "user");
      if (!graph.Exists(author)) continue;
      const auto& fans = graph.Fans(author);
      m.author[i] = author;
      m.fans[i] = static_cast<int64_t>(fans.size());
      if (in_setup) continue;
      m.fan_outs.push_back(FanOutOf(author, fans, shards));
    }
  }
  if (in_setup) {
    m.setup_ops = trace.size();
    m.setup_users = graph.users();
    m.setup_follows = graph.edges();
  }
  m.users = graph.users();
  m.follows = graph.edges();
  for (int64_t u = 1; u <= graph.users(); ++u) {
    m.final_fans.push_back(static_cast<int64_t>(graph.Fans(u).size()));
    m.final_followees.push_back(static_cast<int64_t>(graph.Followees(u).size()));
  }
  return m;
}

int64_t PostFanOut::Rows() const {
  int64_t rows = 1 + static_cast<int64_t>(own.size());
  for (const auto& [shard, fans] : far) rows += static_cast<int64_t>(fans.size());
  return rows;
}

PostFanOut FanOutOf(int64_t author, const std::vector<int64_t>& fans, int shards) {
  PostFanOut post;
  post.author = author;
  post.author_shard = static_cast<int>(author % shards);
  std::map<int, FanBatch> by_shard;
  for (int64_t fan : fans) {
    int shard = static_cast<int>(fan % shards);
    (shard == post.author_shard ? post.own : by_shard[shard]).push_back(fan);
  }
  // In id order, as the library reads a fan list (user_relation's key) and inserts it.
  std::sort(post.own.begin(), post.own.end());
  for (auto& [shard, batch] : by_shard) std::sort(batch.begin(), batch.end());
  post.far.assign(by_shard.begin(), by_shard.end());
  return post;
}

int64_t AutoCelebrityThreshold(const TraceModel& model) {
  std::vector<int64_t> fans = model.final_fans;
  if (fans.empty()) return 1;
  std::sort(fans.begin(), fans.end(), std::greater<int64_t>());
  size_t top = std::max<size_t>(1, fans.size() / 100);
  return std::max<int64_t>(1, fans[top - 1]);
}

}  // namespace weibo::bench
