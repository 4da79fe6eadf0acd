#include "timelines.h"

#include <algorithm>
#include <unordered_map>

namespace weibo::bench {
namespace {

constexpr int64_t kPage = 200;

std::string Item(int64_t ref) {
  return ref > 0 ? "#" + std::to_string(ref) : "id " + std::to_string(-ref);
}

// "push has 23 items, pull 24; item 5 is #120 in push, #119 in pull"
std::string Difference(const std::string& a_name, const std::vector<int64_t>& a,
                       const std::string& b_name, const std::vector<int64_t>& b) {
  std::string text = a_name + " has " + std::to_string(a.size()) + " items, " + b_name + " " +
                     std::to_string(b.size());
  size_t i = 0;
  while (i < a.size() && i < b.size() && a[i] == b[i]) ++i;
  text += "; item " + std::to_string(i + 1) + " is ";
  text += (i < a.size() ? Item(a[i]) : std::string("missing")) + " in " + a_name + ", ";
  text += (i < b.size() ? Item(b[i]) : std::string("missing")) + " in " + b_name;
  return text;
}

}  // namespace

Result<Timelines> CollectTimelines(Executor& executor, int64_t users,
                                   const std::vector<int64_t>& message_ids, int64_t max_items) {
  std::unordered_map<int64_t, int64_t> ref_of;
  for (size_t k = 0; k < message_ids.size(); ++k)
    if (message_ids[k] != 0) ref_of[message_ids[k]] = static_cast<int64_t>(k) + 1;
  Timelines all(static_cast<size_t>(users));
  for (int64_t user = 1; user <= users; ++user) {
    auto& items = all[static_cast<size_t>(user - 1)];
    std::string max_id;
    while (static_cast<int64_t>(items.size()) < max_items) {
      Json args{{"user", std::to_string(user)}, {"count", kPage}};
      if (!max_id.empty()) args["max_id"] = max_id;
      Result<Json> page = executor.Execute(Request{"timeline", args});
      if (!page.ok()) return page.status();
      for (const auto& m : page.value()) {
        int64_t id = std::stoll(m.at("id").get<std::string>());
        auto it = ref_of.find(id);
        items.push_back(it != ref_of.end() ? it->second : -id);
        max_id = m.at("id").get<std::string>();
      }
      if (static_cast<int64_t>(page.value().size()) < kPage) break;
    }
    if (static_cast<int64_t>(items.size()) > max_items)
      items.resize(static_cast<size_t>(max_items));
  }
  return all;
}

Comparison CompareTimelines(const std::vector<std::string>& feeds,
                            const std::vector<Timelines>& timelines, size_t max_reports) {
  Comparison c;
  if (timelines.empty()) return c;
  const Timelines& first = timelines[0];
  c.users = static_cast<int64_t>(first.size());
  for (size_t u = 0; u < first.size(); ++u) {
    c.items += static_cast<int64_t>(first[u].size());
    bool differs = false;
    for (size_t m = 1; m < timelines.size(); ++m) {
      static const std::vector<int64_t> kEmpty;
      const auto& other = u < timelines[m].size() ? timelines[m][u] : kEmpty;
      if (other == first[u]) continue;
      differs = true;
      if (c.reports.size() < max_reports)
        c.reports.push_back("user " + std::to_string(u + 1) + ": " +
                            Difference(feeds[0], first[u], feeds[m], other));
    }
    if (differs) ++c.users_differing;
  }
  return c;
}

}  // namespace weibo::bench
