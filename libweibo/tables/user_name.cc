#include "tables/user_name.h"

#include "storage/shard.h"

namespace weibo {

std::optional<int64_t> LookupName(Shard& shard, const std::string& name) {
  Stmt& s = shard.Query("SELECT user_id FROM user_name WHERE user_name = ?");
  s.Bind(1, name);
  std::optional<int64_t> id;
  if (s.Step()) id = s.Int(0);
  s.Reset();
  return id;
}

void InsertName(Shard& shard, const std::string& name, int64_t id) {
  shard.Query("INSERT INTO user_name(user_name, user_id) VALUES (?, ?)").BindAll(name, id).Run();
}

int64_t AllocateUserId(Shard& shard0) {
  Stmt& s = shard0.Query("SELECT CAST(value AS INTEGER) FROM meta WHERE key = 'next_user_id'");
  int64_t id = s.Step() ? s.Int(0) : 1;
  s.Reset();
  shard0.Query("INSERT OR REPLACE INTO meta(key, value) VALUES ('next_user_id', ?)")
      .Bind(1, std::to_string(id + 1))
      .Run();
  return id;
}

}  // namespace weibo
