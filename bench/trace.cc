#include "trace.h"

#include <cstdio>
#include <ctime>
#include <istream>
#include <ostream>

#include "weibo/ops.h"

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
  std::string text;
  if (value.is_number_unsigned() || (value.is_number_integer() && value.get<int64_t>() >= 0))
    text = std::to_string(value.get<int64_t>());
  else if (value.is_string())
    text = value.get<std::string>();
  else
    return std::nullopt;
  if (!text.empty() && text.size() <= 12 &&
      text.find_first_not_of("0123456789") == std::string::npos)
    return std::stoll(text) * 1000;
  std::tm tm{};
  int consumed = 0;
  if (std::sscanf(text.c_str(), "%4d-%2d-%2d%n", &tm.tm_year, &tm.tm_mon, &tm.tm_mday, &consumed) !=
          3 ||
      consumed != 10)
    return std::nullopt;
  int offset_min = 0;
  std::string rest = text.substr(10);
  if (!rest.empty()) {
    if ((rest[0] != 'T' && rest[0] != ' ') ||
        std::sscanf(rest.c_str() + 1, "%2d:%2d:%2d%n", &tm.tm_hour, &tm.tm_min, &tm.tm_sec,
                    &consumed) != 3 ||
        consumed != 8)
      return std::nullopt;
    std::string zone = rest.substr(9);
    int zh = 0, zm = 0;
    if (zone == "Z" || zone.empty()) {
    } else if ((zone[0] == '+' || zone[0] == '-') && zone.size() == 6 && zone[3] == ':' &&
               std::sscanf(zone.c_str() + 1, "%2d:%2d", &zh, &zm) == 2) {
      offset_min = (zone[0] == '+' ? 1 : -1) * (zh * 60 + zm);
    } else {
      return std::nullopt;
    }
  }
  if (tm.tm_mon < 1 || tm.tm_mon > 12 || tm.tm_mday < 1 || tm.tm_mday > 31 || tm.tm_hour > 23 ||
      tm.tm_min > 59 || tm.tm_sec > 60)
    return std::nullopt;
  tm.tm_year -= 1900;
  tm.tm_mon -= 1;
  return (static_cast<int64_t>(timegm(&tm)) - offset_min * 60) * 1000;
}

std::string FormatNow(int64_t ms) {
  std::time_t seconds = static_cast<std::time_t>(ms / 1000);
  std::tm tm{};
  gmtime_r(&seconds, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

}  // namespace weibo::bench
