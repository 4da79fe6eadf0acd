#include "graph.h"

#include <algorithm>

namespace weibo::bench {
namespace {

uint64_t Key(int64_t user, int64_t target) {
  return (static_cast<uint64_t>(user) << 32) | static_cast<uint64_t>(target);
}

}  // namespace

int64_t FollowGraph::AddUser(const std::string& name) {
  followees_.emplace_back();
  fans_.emplace_back();
  names_.emplace(name, users());
  return users();
}

int64_t FollowGraph::IdOfName(const std::string& name) const {
  auto it = names_.find(name);
  return it == names_.end() ? 0 : it->second;
}

bool FollowGraph::Follows(int64_t user, int64_t target) const {
  return edge_set_.count(Key(user, target)) != 0;
}

bool FollowGraph::Follow(int64_t user, int64_t target) {
  if (user == target || !Exists(user) || !Exists(target)) return false;
  if (!edge_set_.insert(Key(user, target)).second) return false;
  followees_[user - 1].push_back(target);
  fans_[target - 1].push_back(user);
  ++edges_;
  return true;
}

bool FollowGraph::Erase(std::vector<int64_t>& list, int64_t value) {
  auto it = std::find(list.begin(), list.end(), value);
  if (it == list.end()) return false;
  *it = list.back();  // order does not matter to anyone
  list.pop_back();
  return true;
}

bool FollowGraph::Unfollow(int64_t user, int64_t target) {
  if (edge_set_.erase(Key(user, target)) == 0) return false;
  Erase(followees_[user - 1], target);
  Erase(fans_[target - 1], user);
  --edges_;
  return true;
}

}  // namespace weibo::bench
