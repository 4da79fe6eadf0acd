// The clusters a bench or sim run works in: one per feed mode, in a work directory that
// is either given (--data DIR, kept afterwards) or a fresh temporary one (removed).
#ifndef WEIBO_BENCH_CLUSTER_H_
#define WEIBO_BENCH_CLUSTER_H_

#include <cstdint>
#include <string>

#include "weibo/request.h"
#include "weibo/status.h"

namespace weibo::bench {

struct ClusterOptions {
  int shards = 16;
  int64_t celebrity_threshold = 0;  // 0: the library's default (10000)
  int64_t inbox_cap = 0;            // 0: the library's default (800)
  int64_t active_list = 0;          // 0: the library's default (1000)
  // The embedded executor's group commit (EmbeddedOptions::group_commit: deliveries whose
  // done marks wait for one shared sync), as a long-running weibod has it; 0: every post
  // syncs its own deliveries.
  int group_commit = 1024;
  std::string durability = "full";  // cluster.json's durability: full | normal (weibo-init(1))
  std::string strategy = "gene";    // message sharding (weibo-init --strategy)
};

// Initialises a fresh cluster in dir through the init op; an existing cluster there is
// refused. The init op takes no celebrity_threshold, inbox_cap or active_list, so those are written
// into cluster.json afterwards, before any other op opens it.
Status CreateCluster(const std::string& dir, const std::string& feed,
                     const ClusterOptions& options);

// Finishes the deferred work a server's writes left, as it is finished once they stop: the
// jobs it holds back to merge (counter deltas, search index jobs: applied by a drain
// request) and the group commit's sync (Executor::Idle). The bench runs it inside the time
// of the writes that left it, since its cost is theirs, and before a measured phase, so
// that it pays for none of the setup's.
Status SettleWrites(Executor& executor);

class WorkDir {
 public:
  // given == "": a new directory under $TMPDIR (else /tmp), removed by the destructor.
  static Result<WorkDir> Make(const std::string& given, const std::string& program);
  WorkDir(WorkDir&& other) noexcept;
  WorkDir& operator=(WorkDir&&) = delete;
  ~WorkDir();

  const std::string& path() const { return path_; }
  std::string Sub(const std::string& name) const { return path_ + "/" + name; }
  bool temporary() const { return temporary_; }

 private:
  WorkDir(std::string path, bool temporary) : path_(std::move(path)), temporary_(temporary) {}
  std::string path_;
  bool temporary_;
};

}  // namespace weibo::bench

#endif  // WEIBO_BENCH_CLUSTER_H_
