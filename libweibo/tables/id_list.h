// IdList: ids as the text of a JSON array, "[3,17,42]": what the tables' statements over a
// whole batch of ids bind and read with json_each (one statement for the batch where one
// per id would be a statement each). Built directly, without a JSON value in between: a
// fan-out passes lists of many thousand ids.
#ifndef WEIBO_TABLES_ID_LIST_H_
#define WEIBO_TABLES_ID_LIST_H_

#include <cstdint>
#include <string>
#include <vector>

namespace weibo {

std::string IdList(const std::vector<int64_t>& ids);

}  // namespace weibo

#endif  // WEIBO_TABLES_ID_LIST_H_
