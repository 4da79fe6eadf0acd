// The text of weibo-index(1), weibo-cleaner(1) and weibo-archive(1):
//
//   index <name> on <property> sharded on <shard_on>       (index add, one per index: list)
//   dropped index <name>                                    (index drop)
//   cleaner: <E> entities and <R> index rows checked, <M> missing rows added, <S> stale
//   rows removed; done | stopped by --batch (run again to go on)
#include <sstream>

#include "render/text.h"

namespace weibo::render {

std::string Index(const Json& index) {
  return "index " + index.at("name").get<std::string>() + " on " +
         index.at("property").get<std::string>() + " sharded on " +
         index.at("shard_on").get<std::string>() + "\n";
}

std::string Indexes(const Json& list) {
  std::string out;
  for (const Json& index : list) out += Index(index);
  return out;
}

std::string IndexDropped(const Json& result) {
  return "dropped index " + result.at("name").get<std::string>() + "\n";
}

std::string Cleaner(const Json& r) {
  std::ostringstream out;
  out << "cleaner: " << r.at("entities").get<int64_t>() << " entities and "
      << r.at("rows").get<int64_t>() << " index rows checked, "
      << r.at("missing_added").get<int64_t>() << " missing rows added, "
      << r.at("stale_removed").get<int64_t>() << " stale rows removed; "
      << (r.at("complete").get<bool>() ? "done" : "stopped by --batch (run again to go on)")
      << "\n";
  return out.str();
}

// archive: <M> messages, <R> relation rows and <I> inbox rows archived before <TIME> in
// <B> batches over <S> shards; <N> left (0 unless writers with an older clock add some)
std::string Archive(const Json& r) {
  std::ostringstream out;
  out << "archive: " << r.at("messages").get<int64_t>() << " messages, "
      << r.at("relations").get<int64_t>() << " relation rows and " << r.at("inbox").get<int64_t>()
      << " inbox rows archived before " << r.at("before").get<std::string>() << " in "
      << r.at("batches").get<int64_t>() << " batches over " << r.at("shards").get<int64_t>()
      << " shards; " << r.at("remaining").get<int64_t>() << " left\n";
  return out.str();
}

}  // namespace weibo::render
