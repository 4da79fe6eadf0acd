// ParseShardList (weibo/cluster.h): weibod --shards.
#include <set>

#include "weibo/cluster.h"

namespace weibo {

Result<std::vector<int>> ParseShardList(const std::string& list, int count) {
  std::set<int> out;
  size_t pos = 0;
  auto bad = [&](const std::string& why) {
    return Status(Code::kInvalidArgument, "--shards '" + list + "': " + why);
  };
  if (list.empty()) return bad("empty");
  while (pos <= list.size()) {
    size_t comma = list.find(',', pos);
    std::string item =
        list.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
    size_t dash = item.find('-');
    auto number = [](const std::string& s, int* v) {
      if (s.empty() || s.size() > 3 || s.find_first_not_of("0123456789") != std::string::npos)
        return false;
      *v = std::stoi(s);
      return true;
    };
    int lo = 0, hi = 0;
    if (dash == std::string::npos) {
      if (!number(item, &lo)) return bad("'" + item + "' is not a shard number");
      hi = lo;
    } else if (!number(item.substr(0, dash), &lo) || !number(item.substr(dash + 1), &hi) ||
               lo > hi) {
      return bad("'" + item + "' is not a range of shards");
    }
    for (int s = lo; s <= hi; ++s) {
      if (count > 0 && s >= count)
        return bad("shard " + std::to_string(s) + " does not exist (the cluster has " +
                   std::to_string(count) + ")");
      out.insert(s);
    }
    if (comma == std::string::npos) break;
    pos = comma + 1;
  }
  return std::vector<int>(out.begin(), out.end());
}

}  // namespace weibo
