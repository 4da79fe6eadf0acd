#include "tables/id_list.h"

#include <charconv>

namespace weibo {

std::string IdList(const std::vector<int64_t>& ids) {
  std::string out;
  out.reserve(2 + ids.size() * 8);
  out += '[';
  char digits[24];
  for (size_t i = 0; i < ids.size(); ++i) {
    if (i > 0) out += ',';
    out.append(digits, std::to_chars(digits, digits + sizeof digits, ids[i]).ptr);
  }
  out += ']';
  return out;
}

}  // namespace weibo
