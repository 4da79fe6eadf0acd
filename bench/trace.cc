#include "trace.h"

#include <istream>
#include <ostream>

#include "weibo/ops.h"
#include "weibo/time.h"

namespace weibo::bench {

void WriteTrace(std::ostream& out, const Trace& trace) {
  for (const Request& r : trace) out << Json{{"op", r.op}, {"args", r.args}}.dump() << "\n";
}

Result<Trace> ReadTrace(std::istream& in, const std::string& name) {
  Trace trace;
  std::string line;
  for (int64_t number = 1; std::getline(in, line); ++number) {
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    auto where = [&] { return name + ":" + std::to_string(number) + ": "; };
    Json j = Json::parse(line, nullptr, /*allow_exceptions=*/false);
    if (j.is_discarded()) return Status(Code::kInvalidRequest, where() + "not valid JSON");
    if (!j.is_object() || !j.contains("op") || !j["op"].is_string())
      return Status(Code::kInvalidRequest, where() + "not an object with a string \"op\"");
    Request r;
    r.op = j["op"].get<std::string>();
    for (auto it = j.begin(); it != j.end(); ++it) {
      if (it.key() == "op") continue;
      if (it.key() != "args" || !(it->is_object() || it->is_null()))
        return Status(Code::kInvalidRequest,
                      where() + "a trace line holds only \"op\" and an \"args\" object");
      if (it->is_object()) r.args = *it;
    }
    trace.push_back(std::move(r));
  }
  return trace;
}

bool CreatesMessage(const std::string& op) {
  return op == "post" || op == "repost" || op == "comment";
}

bool Writes(const std::string& op) {
  const OpSpec* spec = FindOperation(op);
  return spec == nullptr || spec->writes;
}

std::optional<int64_t> ParseNow(const Json& value) {
  if (value.is_number_unsigned() || (value.is_number_integer() && value.get<int64_t>() >= 0))
    return ParseTime(std::to_string(value.get<int64_t>()));
  if (value.is_string()) return ParseTime(value.get<std::string>());
  return std::nullopt;
}

}  // namespace weibo::bench
