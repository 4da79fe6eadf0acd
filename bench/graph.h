// FollowGraph: the bench's own model of who follows whom.
//
// The generator uses it to emit only valid ops (no self-follow, no duplicate follow, an
// unfollow only of a followee), and the replayer rebuilds it from any trace to know, for
// each post, how many fans the author has and on which shards they live: the size of the
// fan-out's per-shard batches, which the baselines insert, and the fan count of
// the slowest post. Users are 1-based ids, as the k-th user_add op creates user id k.
#ifndef WEIBO_BENCH_GRAPH_H_
#define WEIBO_BENCH_GRAPH_H_

#include <cstdint>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace weibo::bench {

class FollowGraph {
 public:
  // Adds the next user (id = users() + 1) and returns its id.
  int64_t AddUser(const std::string& name);
  // The id of a name, or 0.
  int64_t IdOfName(const std::string& name) const;
  bool Exists(int64_t user) const { return user >= 1 && user <= users(); }
  // False (and no change) when the follow would be refused: self, unknown, duplicate.
  bool Follow(int64_t user, int64_t target);
  bool Unfollow(int64_t user, int64_t target);
  bool Follows(int64_t user, int64_t target) const;

  int64_t users() const { return static_cast<int64_t>(followees_.size()); }
  int64_t edges() const { return edges_; }
  const std::vector<int64_t>& Fans(int64_t user) const { return fans_[user - 1]; }
  const std::vector<int64_t>& Followees(int64_t user) const { return followees_[user - 1]; }

 private:
  static bool Erase(std::vector<int64_t>& list, int64_t value);
  std::vector<std::vector<int64_t>> followees_, fans_;
  std::unordered_set<uint64_t> edge_set_;  // (user << 32) | target
  std::unordered_map<std::string, int64_t> names_;
  int64_t edges_ = 0;
};

}  // namespace weibo::bench

#endif  // WEIBO_BENCH_GRAPH_H_
