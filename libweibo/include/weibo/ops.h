// The operation table (STYLE rule 2): one row per operation. The CLI, the daemon, --help
// and weibo-explain all read it; nothing else lists operations.
#ifndef WEIBO_OPS_H_
#define WEIBO_OPS_H_

#include <string>
#include <vector>

namespace weibo {

enum class ArgType { kUser, kMsg, kMsgList, kText, kName, kCount, kPage, kFlag, kString };

struct ArgSpec {
  const char* name;
  ArgType type;
  bool required;
  const char* help;
};

struct OpSpec {
  const char* name;     // "post", "user_add", ...
  bool writes;          // takes write transactions
  const char* summary;  // one line, shown by --help and weibo-explain
  std::vector<ArgSpec> args;
};

const std::vector<OpSpec>& Operations();
// The row for an op name, or nullptr.
const OpSpec* FindOperation(const std::string& name);

}  // namespace weibo

#endif  // WEIBO_OPS_H_
