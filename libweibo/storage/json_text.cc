#include "storage/json_text.h"

#include <simdjson.h>

#include <charconv>

namespace weibo {

void AppendJsonString(const std::string& s, std::string* out, Json::error_handler_t invalid) {
  // Written as it is when nlohmann would copy it unchanged: no byte it escapes (a control
  // character, '"', '\\'), and any byte past ASCII part of valid UTF-8 (dump's
  // ensure_ascii is false). A microblog's text in Chinese takes this path too.
  bool escapes = false, wide = false;
  for (unsigned char c : s) {
    escapes = escapes || c < 0x20 || c == '"' || c == '\\';
    wide = wide || c >= 0x80;
  }
  if (escapes || (wide && !simdjson::validate_utf8(s.data(), s.size()))) {
    out->append(Json(s).dump(-1, ' ', false, invalid));
    return;
  }
  out->push_back('"');
  out->append(s);
  out->push_back('"');
}

void AppendJsonInt(int64_t n, std::string* out) {
  char digits[24];
  // (pointer, length): the (first, last) overload goes through replace, at twice the cost.
  const char* end = std::to_chars(digits, digits + sizeof digits, n).ptr;
  out->append(digits, static_cast<size_t>(end - digits));
}

void AppendJsonIdString(int64_t n, std::string* out) {
  out->push_back('"');
  AppendJsonInt(n, out);
  out->push_back('"');
}

// The keys, ids and integers that make up most of a reply (count: eight keys, an id and
// six counters per message) are written here: nlohmann passes each byte through its UTF-8
// decoder, and made a string and a serializer for each null (a rendered message has three:
// ref, page_index, root), a quarter of a page's reply.
void AppendJson(const Json& j, std::string* out, Json::error_handler_t invalid) {
  bool first = true;
  switch (j.type()) {
    case Json::value_t::object:
      out->push_back('{');
      for (const auto& [key, value] : *j.get_ptr<const Json::object_t*>()) {
        if (!first) out->push_back(',');
        first = false;
        AppendJsonString(key, out, invalid);
        out->push_back(':');
        AppendJson(value, out, invalid);
      }
      out->push_back('}');
      break;
    case Json::value_t::array:
      out->push_back('[');
      for (const Json& item : *j.get_ptr<const Json::array_t*>()) {
        if (!first) out->push_back(',');
        first = false;
        AppendJson(item, out, invalid);
      }
      out->push_back(']');
      break;
    case Json::value_t::string:
      AppendJsonString(*j.get_ptr<const std::string*>(), out, invalid);
      break;
    case Json::value_t::number_integer:
      AppendJsonInt(*j.get_ptr<const int64_t*>(), out);
      break;
    case Json::value_t::number_unsigned: {
      char digits[24];
      const char* end =
          std::to_chars(digits, digits + sizeof digits, *j.get_ptr<const uint64_t*>()).ptr;
      out->append(digits, static_cast<size_t>(end - digits));
      break;
    }
    case Json::value_t::null:
      out->append("null");
      break;
    case Json::value_t::boolean:
      out->append(*j.get_ptr<const bool*>() ? "true" : "false");
      break;
    default:  // numbers with a fraction, binary, discarded: nlohmann's words
      out->append(j.dump(-1, ' ', false, invalid));
  }
}

}  // namespace weibo
