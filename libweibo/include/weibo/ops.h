// The operation table: one row per operation, the only list of them. Dispatch, argument
// validation, the commands' --help, the daemon and the bench's traces all read it, so an
// operation added here is known everywhere at once.
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
  const char* summary;  // one line, shown by --help
  std::vector<ArgSpec> args;
};

const std::vector<OpSpec>& Operations();
// The row for an op name, or nullptr.
const OpSpec* FindOperation(const std::string& name);

}  // namespace weibo

#endif  // WEIBO_OPS_H_
