#include "ops/args.h"

#include <utf8proc.h>

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <optional>
#include <vector>

#include "flows/avatar_image.h"
#include "flows/entities.h"
#include "storage/failure.h"
#include "storage/shard_set.h"

namespace weibo {
namespace {

// Decodes UTF-8 strictly (no overlongs, no surrogates, nothing above U+10FFFF).
bool Decode(const std::string& s, std::vector<char32_t>* out) {
  for (size_t i = 0; i < s.size();) {
    unsigned char c = s[i];
    int len = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xe ? 3 : (c >> 3) == 0x1e ? 4 : 0;
    if (len == 0 || i + len > s.size()) return false;
    char32_t cp = len == 1 ? c : len == 2 ? (c & 0x1f) : len == 3 ? (c & 0x0f) : (c & 0x07);
    for (int k = 1; k < len; ++k) {
      unsigned char cc = s[i + k];
      if ((cc & 0xc0) != 0x80) return false;
      cp = (cp << 6) | (cc & 0x3f);
    }
    static const char32_t kMin[] = {0, 0, 0x80, 0x800, 0x10000};
    if (cp < kMin[len] || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return false;
    out->push_back(cp);
    i += len;
  }
  return true;
}

bool IsControl(char32_t c) { return c < 0x20 || (c >= 0x7f && c <= 0x9f); }

bool IsSpace(char32_t c) {
  return c == ' ' || c == 0xa0 || c == 0x1680 || (c >= 0x2000 && c <= 0x200b) || c == 0x2028 ||
         c == 0x2029 || c == 0x202f || c == 0x205f || c == 0x3000 || c == 0xfeff;
}

std::vector<char32_t> Text(const std::string& what, const Json& value) {
  if (!value.is_string()) Fail(Code::kInvalidArgument, what + " must be a string");
  std::vector<char32_t> cps;
  if (!Decode(value.get<std::string>(), &cps))
    Fail(Code::kInvalidUtf8, what + " is not valid UTF-8");
  for (char32_t c : cps)
    if (IsControl(c)) Fail(Code::kInvalidArgument, what + " contains a control character");
  return cps;
}

// The bidirectional embedding, override and isolate controls (U+202A-U+202E,
// U+2066-U+2069): they reorder the text shown after them, so a post could show its words
// other than as written ("Trojan Source"). Other format characters stay allowed in content:
// the zero-width joiner U+200D makes emoji sequences such as 👩‍💻.
bool IsBidiControl(char32_t c) {
  return (c >= 0x202a && c <= 0x202e) || (c >= 0x2066 && c <= 0x2069);
}

std::string CodePoint(char32_t c) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "U+%04X", static_cast<unsigned>(c));
  return buf;
}

// NFKC (compatibility composition) of valid UTF-8, by libutf8proc: full-width ａｌｉｃｅ,
// and the composed and decomposed forms of é, become one string.
std::string Nfkc(const std::string& text) {
  utf8proc_uint8_t* out = nullptr;
  utf8proc_ssize_t n = utf8proc_map(
      reinterpret_cast<const utf8proc_uint8_t*>(text.data()),
      static_cast<utf8proc_ssize_t>(text.size()), &out,
      static_cast<utf8proc_option_t>(UTF8PROC_STABLE | UTF8PROC_COMPOSE | UTF8PROC_COMPAT));
  if (n < 0) Fail(Code::kInvalidUtf8, "a name is not valid UTF-8");
  std::string normal(reinterpret_cast<const char*>(out), static_cast<size_t>(n));
  std::free(out);
  return normal;
}

Json Content(const Json& value, bool allow_empty) {
  auto cps = Text("content", value);
  for (char32_t c : cps)
    if (IsBidiControl(c))
      Fail(Code::kInvalidArgument, "content may not contain the bidirectional control " +
                                       CodePoint(c) + " (it reorders the text shown after it)");
  bool blank = true;
  for (char32_t c : cps) blank = blank && IsSpace(c);
  if (blank && !(allow_empty && cps.empty()))
    Fail(Code::kInvalidArgument, "content is empty or only whitespace");
  if (cps.size() > kMaxContent)
    Fail(Code::kContentTooLong, "content is " + std::to_string(cps.size()) +
                                    " characters; the limit is " + std::to_string(kMaxContent));
  return value;
}

// A name is stored, compared and shown in NFKC: one name, however it is typed. Format
// characters (category Cf: bidi controls, zero-width joiners and spaces, the BOM) are
// refused, as they let two names look alike. The rules apply to the NFKC form, which is
// what is kept (full-width ＠ is '@').
Json Name(const Json& value) {
  for (char32_t c : Text("name", value))  // valid UTF-8 without control characters
    if (utf8proc_category(static_cast<utf8proc_int32_t>(c)) == UTF8PROC_CATEGORY_CF)
      Fail(Code::kInvalidArgument, "a name may not contain the format character " + CodePoint(c));
  std::string normal = Nfkc(value.get<std::string>());
  auto cps = Text("name", Json(normal));
  if (cps.empty() || cps.size() > kMaxName)
    Fail(Code::kInvalidArgument, "a name has 1 to " + std::to_string(kMaxName) + " characters");
  for (char32_t c : cps)
    if (IsSpace(c) || c == '@')
      Fail(Code::kInvalidArgument, "a name may not contain spaces or '@'");
  return Json(normal);
}

// A positive decimal id, as a JSON integer or a string of digits.
int64_t Id(const std::string& what, const Json& value, int64_t max) {
  if (value.is_number_unsigned() || value.is_number_integer()) {
    if (value.is_number_integer() && value.get<int64_t>() >= 1 && value.get<int64_t>() <= max)
      return value.get<int64_t>();
  } else if (value.is_string()) {
    // Read in place (count: 200 ids a request), without a copy of the string.
    const std::string& s = value.get_ref<const std::string&>();
    // A loop, not find_first_not_of("0123456789"): that calls memchr over the ten digits
    // for every character, a tenth of a hot count's time in the daemon.
    bool digits = !s.empty() && s.size() <= 19 &&
                  std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
    uint64_t v = 0;
    if (digits && std::from_chars(s.data(), s.data() + s.size(), v).ec == std::errc() && v >= 1 &&
        v <= static_cast<uint64_t>(max))
      return static_cast<int64_t>(v);
  }
  std::string shown = value.is_string() ? value.get<std::string>() : value.dump();
  Fail(Code::kInvalidArgument, what + " must be a positive decimal id up to " +
                                   std::to_string(max) + ", not '" + shown + "'");
}

Json User(const Json& value) {
  if (value.is_string()) {
    const std::string s = value.get<std::string>();
    if (!s.empty() && s[0] == '@') return Json("@" + Name(Json(s.substr(1))).get<std::string>());
  }
  return Id("a user", value, 0xffffffffLL);
}

int64_t Number(const std::string& what, const Json& value, int64_t lo, int64_t hi) {
  int64_t v = 0;
  if (value.is_number_integer()) {
    v = value.get<int64_t>();
  } else if (value.is_string() && !value.get<std::string>().empty() &&
             value.get<std::string>().size() < 10 &&
             value.get<std::string>().find_first_not_of("0123456789") == std::string::npos) {
    v = std::stoll(value.get<std::string>());
  } else {
    Fail(Code::kInvalidArgument, what + " must be a number");
  }
  if (v < lo || v > hi)
    Fail(Code::kInvalidArgument,
         what + " must be from " + std::to_string(lo) + " to " + std::to_string(hi));
  return v;
}

// A file's bytes in base64 (weibo/ops.h, kFile): 1 to kMaxFileBytes of them. What they
// hold is the flow's to judge (a picture: flows/avatar_image.h).
Json File(const std::string& what, const Json& value) {
  std::optional<std::string> bytes;
  if (value.is_string()) bytes = DecodeBase64(value.get<std::string>());
  if (!bytes) Fail(Code::kInvalidArgument, what + " must be a file's bytes in base64");
  if (bytes->empty()) Fail(Code::kInvalidArgument, what + " is empty (0 bytes)");
  if (bytes->size() > kMaxFileBytes)
    Fail(Code::kRequestTooLarge, what + " is " + std::to_string(bytes->size()) +
                                     " bytes; the limit is " + std::to_string(kMaxFileBytes));
  return value;
}

// The range of a kPage argument, as its message states it: init's settings have their
// own (ShardSet::Create checks them again, with the power of two for shards), so that
// --page-size -1 is told 1 to 1000, the range that holds, not a page number's 0 to 1000000.
std::pair<int64_t, int64_t> PageRange(const OpSpec& op, const ArgSpec& spec) {
  if (std::string(op.name) != "init") return {0, 1000000};
  if (std::string(spec.name) == "shards") return {1, kMaxShards};
  if (std::string(spec.name) == "page_size") return {1, kMaxPageSize};
  return {1, 1000000};
}

Json One(const OpSpec& op, const ArgSpec& spec, const Json& value) {
  std::string what = std::string("--") + spec.name;  // as the command line spells it
  std::replace(what.begin(), what.end(), '_', '-');
  switch (spec.type) {
    case ArgType::kUser:
      return User(value);
    case ArgType::kMsg:
      return Id("a message id", value, std::numeric_limits<int64_t>::max());
    case ArgType::kMsgList: {
      if (!value.is_array() || value.empty() || value.size() > kMaxCount)
        Fail(Code::kInvalidArgument, "msgs must be a list of 1 to 200 message ids");
      Json out = Json::array();
      out.get_ptr<Json::array_t*>()->reserve(value.size());
      const std::string what = "a message id";
      for (const auto& v : value) out.push_back(Id(what, v, std::numeric_limits<int64_t>::max()));
      return out;
    }
    case ArgType::kText:
      return Content(value, !spec.required);
    case ArgType::kName:
      return Name(value);
    case ArgType::kCount:
      return Number(what, value, 1, kMaxCount);
    case ArgType::kPage: {
      auto [lo, hi] = PageRange(op, spec);
      return Number(what, value, lo, hi);
    }
    case ArgType::kFlag:
      if (!value.is_boolean()) Fail(Code::kInvalidArgument, what + " must be true or false");
      return value;
    case ArgType::kString:
      if (!value.is_string()) Fail(Code::kInvalidArgument, what + " must be a string");
      return value;
    case ArgType::kEdgeList: {
      if (!value.is_array()) Fail(Code::kInvalidArgument, "edges must be a list of user pairs");
      Json out = Json::array();
      for (const auto& v : value) {
        if (!v.is_array() || v.size() != 2)
          Fail(Code::kInvalidArgument, "edges must be a list of [follower, target] pairs");
        out.push_back(Json::array({User(v[0]), User(v[1])}));
      }
      return out;
    }
    case ArgType::kUserList: {
      if (!value.is_array() || value.empty())
        Fail(Code::kInvalidArgument, "the user list names no users (want an id or @name a line)");
      Json out = Json::array();
      for (const auto& v : value) out.push_back(User(v));
      return out;
    }
    case ArgType::kFile:
      return File(spec.name, value);
    case ArgType::kAttrList:
      AttrsOf(value);  // refuses what the flow would; the flow reads the pairs again
      return value;
  }
  return value;
}

}  // namespace

int64_t CountCodePoints(const std::string& text) {
  std::vector<char32_t> cps;
  return Decode(text, &cps) ? static_cast<int64_t>(cps.size()) : -1;
}

Json ValidateArgs(const OpSpec& op, const Json& args) {
  if (!args.is_object()) Fail(Code::kInvalidRequest, "args must be a JSON object");
  Json out = Json::object();
  for (const auto& spec : op.args) {
    auto it = args.find(spec.name);
    if (it == args.end() || it->is_null()) {
      if (spec.required)
        Fail(Code::kInvalidRequest,
             std::string(op.name) + " needs the argument '" + spec.name + "'");
      continue;
    }
    out[spec.name] = One(op, spec, *it);
  }
  for (auto it = args.begin(); it != args.end(); ++it) {
    bool known = false;
    for (const auto& spec : op.args) known = known || it.key() == spec.name;
    if (!known)
      Fail(Code::kInvalidRequest, std::string(op.name) + " has no argument '" + it.key() + "'");
  }
  return out;
}

}  // namespace weibo
