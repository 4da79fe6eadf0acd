#include "net/wire.h"

#include <simdjson.h>

#include <algorithm>
#include <charconv>
#include <string_view>

#include "ops/args.h"
#include "storage/clock.h"
#include "storage/json_text.h"

namespace weibo::net {
namespace {

Status Invalid(const std::string& message) { return Status(Code::kInvalidRequest, message); }

// Whether arrays and objects nest at most max_depth deep, counting brackets outside
// strings. Runs before the parser, so a hostile nesting costs one pass over its bytes.
bool WithinDepth(const std::string& body, int max_depth) {
  int depth = 0;
  bool in_string = false, escaped = false;
  for (char c : body) {
    if (in_string) {
      if (escaped)
        escaped = false;
      else if (c == '\\')
        escaped = true;
      else if (c == '"')
        in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > max_depth) return false;
    } else if (c == ']' || c == '}') {
      --depth;
    }
  }
  return true;
}

Status ReadNow(const Json& value, int64_t* now_ms) {
  std::optional<int64_t> ms;
  if (value.is_number_unsigned())
    ms = ParseTime(std::to_string(value.get<uint64_t>()));
  else if (value.is_string())
    ms = ParseTime(value.get<std::string>());
  // Message ids count milliseconds from 2020-01-01 in 41 bits (the gene method), and
  // the last whole week of them is the last a clock may be in (storage/gene_id.h).
  if (!ms || !ClockInRange(*ms))
    return Status(
        ms ? Code::kInvalidArgument : Code::kInvalidRequest,
        "now must be epoch seconds or ISO 8601 " + ClockRange() + ", not " + value.dump());
  *now_ms = *ms;
  return Status::Ok();
}

// The fields of a parsed request object, each checked for its type; args is moved out of j
// (200 message ids for count), not copied.
Status ReadFields(Json& j, WireRequest* out) {
  for (auto it = j.begin(); it != j.end(); ++it) {
    const std::string& key = it.key();
    Json& v = it.value();
    if (key == "id") {
      // Read first by the caller; here only its type matters.
      if (!v.is_null() && !(v.is_string() && !v.get<std::string>().empty() &&
                            v.get<std::string>().size() <= kMaxIdBytes))
        return Invalid("id must be a string of 1 to " + std::to_string(kMaxIdBytes) + " bytes");
    } else if (key == "op") {
      if (!v.is_string()) return Invalid("op must be a string");
      out->request.op = v.get<std::string>();
    } else if (key == "args") {
      if (!v.is_object() && !v.is_null()) return Invalid("args must be a JSON object");
      if (v.is_object()) out->request.args = std::move(v);
    } else if (key == "token") {
      if (!v.is_string() && !v.is_null()) return Invalid("token must be a string or null");
      if (v.is_string()) out->token = v.get<std::string>();
    } else if (key == "now") {
      if (!v.is_null()) {
        Status s = ReadNow(v, &out->request.now_ms);
        if (!s.ok()) return s;
      }
    } else if (key == "async" || key == "explain") {
      if (!v.is_boolean()) return Invalid(key + " must be true or false");
      (key == "async" ? out->request.async : out->explain) = v.get<bool>();
    } else {
      return Invalid("a request has no field '" + key + "'");
    }
  }
  if (!j.contains("op")) return Invalid("a request needs an op");
  return Status::Ok();
}

std::string Dump(const Json& j) {
  std::string out;
  AppendJson(j, &out);
  return out;
}

// A reply's document, read with simdjson and built as nlohmann's own parser builds it
// (the same Json, compared by the wire tests): simdjson finds the structure and validates
// the UTF-8 and the numbers many times faster than nlohmann's lexer, which was half of a
// --connect client's time for a page of messages (README, Dependencies). Each object gets
// room for all of its fields up front: an ordered object is a vector of (const key, value)
// pairs, and growing it copies every pair, nested values included. A repeated key keeps
// its first place and its last value, as Json::parse does.
Json FromSimd(simdjson::dom::element e) {
  using simdjson::dom::element_type;
  switch (e.type()) {
    case element_type::OBJECT: {
      simdjson::dom::object object = e.get_object().value_unsafe();
      Json j = Json::object();
      auto& fields = *j.get_ptr<Json::object_t*>();
      fields.reserve(object.size());
      for (simdjson::dom::key_value_pair field : object) {
        auto same = std::find_if(fields.begin(), fields.end(),
                                 [&](const auto& f) { return f.first == field.key; });
        if (same != fields.end())
          same->second = FromSimd(field.value);
        else
          fields.emplace_back(std::string(field.key), FromSimd(field.value));
      }
      return j;
    }
    case element_type::ARRAY: {
      simdjson::dom::array array = e.get_array().value_unsafe();
      Json j = Json::array();
      auto& items = *j.get_ptr<Json::array_t*>();
      items.reserve(array.size());
      for (simdjson::dom::element item : array) items.push_back(FromSimd(item));
      return j;
    }
    case element_type::INT64: {
      // nlohmann makes every integer without a sign an unsigned one (a request's "now" is
      // checked for that), and only negative ones signed.
      const int64_t v = e.get_int64().value_unsafe();
      return v >= 0 ? Json(static_cast<uint64_t>(v)) : Json(v);
    }
    case element_type::UINT64:
      return Json(static_cast<uint64_t>(e.get_uint64().value_unsafe()));
    case element_type::DOUBLE:
      return Json(static_cast<double>(e.get_double().value_unsafe()));
    case element_type::STRING:
      return Json(std::string(e.get_string().value_unsafe()));
    case element_type::BOOL:
      return Json(static_cast<bool>(e.get_bool().value_unsafe()));
    case element_type::NULL_VALUE:
      break;
  }
  return Json(nullptr);
}

// Reads a request or reply body into j; false when it is not JSON. What simdjson refuses
// is read by nlohmann, which decides as before: a number too large for 64 bits (nlohmann
// makes it a double), nesting past simdjson's 1024 levels, or JSON that is not. A
// request of 200 message ids (count) is read several times faster so.
// simdjson accepts only valid UTF-8 (RFC 3629: no overlong forms, surrogates or code points
// past U+10FFFF, as CountCodePoints), so only a body it refuses is checked for that, when
// bad_utf8 is given: then false with *bad_utf8 set when the body is not UTF-8 at all.
bool ReadJson(const std::string& body, Json* j, bool* bad_utf8 = nullptr) {
  thread_local simdjson::dom::parser parser;  // reuses its buffers from reply to reply
  simdjson::dom::element root;
  simdjson::error_code error = parser.parse(body).get(root);
  if (error == simdjson::SUCCESS) {
    *j = FromSimd(root);
    return true;
  }
  if (bad_utf8 != nullptr && CountCodePoints(body) < 0) {
    *bad_utf8 = true;
    return false;
  }
  *j = Json::parse(body, nullptr, /*allow_exceptions=*/false);
  return !j->is_discarded();
}

}  // namespace

Status ParseRequest(const std::string& body, const WireLimits& limits, WireRequest* out) {
  *out = WireRequest{};
  if (body.size() > limits.max_msg_size)
    return Status(Code::kRequestTooLarge,
                  "a request is at most " + std::to_string(limits.max_msg_size) + " bytes");
  if (body.empty()) return Invalid("the request is empty");
  if (!WithinDepth(body, limits.max_depth))
    return Status(Code::kRequestTooLarge,
                  "a request nests at most " + std::to_string(limits.max_depth) + " deep");
  Json j;
  bool bad_utf8 = false;  // checked by ReadJson, in simdjson's pass over the bytes
  if (!ReadJson(body, &j, &bad_utf8))
    return Invalid(bad_utf8 ? "the request is not valid UTF-8" : "the request is not valid JSON");
  if (!j.is_object()) return Invalid("a request is a JSON object");
  auto id = j.find("id");
  if (id != j.end() && id->is_string() && !id->get<std::string>().empty() &&
      id->get<std::string>().size() <= kMaxIdBytes)
    out->id = *id;
  return ReadFields(j, out);
}

std::string EncodeRequest(const std::string& id, const Request& request, const std::string& token,
                          bool explain) {
  // Written piece by piece, as j.dump() of {id, op, args, token, now, async, explain}
  // would (the wire tests compare): the args are not copied into a request object first,
  // and count's 200 ids do not pass through nlohmann's serializer, which was a fifth of a
  // --connect client's time for a hot count.
  constexpr auto kStrict = Json::error_handler_t::strict;
  std::string out = "{\"id\":";
  AppendJson(Json(id), &out, kStrict);
  out += ",\"op\":";
  AppendJson(Json(request.op), &out, kStrict);
  out += ",\"args\":";
  AppendJson(request.args, &out, kStrict);
  if (!token.empty()) {
    out += ",\"token\":";
    AppendJson(Json(token), &out, kStrict);
  }
  if (request.now_ms != 0) {
    out += ",\"now\":";
    AppendJson(Json(FormatTime(request.now_ms)), &out, kStrict);
  }
  if (request.async) out += ",\"async\":true";
  if (explain) out += ",\"explain\":true";
  out += '}';
  return out;
}

std::string EncodeReplyText(const Json& id, const std::string& result,
                            const std::vector<std::string>* explain,
                            const std::vector<std::string>* warnings) {
  std::string reply = "{\"id\":";
  reply.reserve(result.size() + 64);
  AppendJson(id, &reply);
  reply += ",\"ok\":true,\"result\":";
  reply += result;
  if (explain) {
    reply += ",\"explain\":";
    AppendJson(Json(*explain), &reply);
  }
  if (warnings && !warnings->empty()) {
    reply += ",\"warnings\":";
    AppendJson(Json(*warnings), &reply);
  }
  reply += '}';
  return reply;
}

std::string EncodeReply(const Json& id, const Result<Json>& result,
                        const std::vector<std::string>* explain,
                        const std::vector<std::string>* warnings) {
  // Written piece by piece: a result can be large (a page of rendered messages), and
  // putting it into a reply object would copy it whole before dumping it.
  if (result.ok()) return EncodeReplyText(id, Dump(result.value()), explain, warnings);
  Json j = {{"id", id}, {"ok", false}};
  j["error"] = {{"code", CodeName(result.status().code())}, {"message", result.status().message()}};
  return Dump(j);
}

// The optional array of strings j[key] into *lines; false when it is something else.
static bool ReadLines(const Json& j, const char* key, std::vector<std::string>* lines) {
  auto it = j.find(key);
  if (it == j.end()) return true;
  if (!it->is_array()) return false;
  for (const auto& line : *it) {
    if (!line.is_string()) return false;
    lines->push_back(line.get<std::string>());
  }
  return true;
}

bool ParseReply(const std::string& body, WireReply* out) {
  *out = WireReply{};
  Json j;
  if (!ReadJson(body, &j)) return false;
  if (!j.is_object() || !j.contains("id") || !j.contains("ok") || !j["ok"].is_boolean())
    return false;
  out->id = j["id"];
  if (j["ok"].get<bool>()) {
    if (!j.contains("result")) return false;
    out->result = std::move(j["result"]);  // a page of messages: moved, not copied
    return ReadLines(j, "explain", &out->explain) && ReadLines(j, "warnings", &out->warnings);
  }
  const Json& error = j.contains("error") ? j["error"] : Json();
  if (!error.is_object() || !error.contains("code") || !error["code"].is_string() ||
      !error.contains("message") || !error["message"].is_string())
    return false;
  std::string name = error["code"].get<std::string>();
  std::optional<Code> code = CodeFromName(name);
  std::string message = error["message"].get<std::string>();
  out->status = code && *code != Code::kOk
                    ? Status(*code, message)
                    : Status(Code::kUnavailable,
                             "the daemon replied with an unknown error '" + name + "': " + message);
  return true;
}

bool ParseReplyText(const std::string& body, WireReply* out, std::string* result_text) {
  result_text->clear();
  // Validated whole, as ReadJson validates: structure, UTF-8, numbers. A body this does
  // not take as it expects (refused, an error reply, a repeated key, which Json::parse
  // resolves its own way) is read by ParseReply.
  thread_local simdjson::dom::parser parser;
  simdjson::dom::element root, result, id;
  simdjson::dom::object top;
  bool ok = false;
  if (parser.parse(body).get(root) != simdjson::SUCCESS ||
      root.get_object().get(top) != simdjson::SUCCESS ||
      top["ok"].get_bool().get(ok) != simdjson::SUCCESS || !ok ||
      top["id"].get(id) != simdjson::SUCCESS || top["result"].get(result) != simdjson::SUCCESS ||
      !(result.is_array() || result.is_object()))
    return ParseReply(body, out);
  std::vector<std::string_view> keys;
  for (simdjson::dom::key_value_pair field : top) {
    if (std::find(keys.begin(), keys.end(), field.key) != keys.end()) return ParseReply(body, out);
    keys.push_back(field.key);
  }
  *out = WireReply{};
  out->id = FromSimd(id);
  for (const char* key : {"explain", "warnings"}) {
    simdjson::dom::element lines;
    if (top[key].get(lines) != simdjson::SUCCESS) continue;
    simdjson::dom::array array;
    if (lines.get_array().get(array) != simdjson::SUCCESS) return false;
    auto* into = key[0] == 'e' ? &out->explain : &out->warnings;
    for (simdjson::dom::element line : array) {
      std::string_view text;
      if (line.get_string().get(text) != simdjson::SUCCESS) return false;
      into->emplace_back(text);
    }
  }
  // The result's bytes: simdjson's on-demand reader gives the raw text of an array or an
  // object without building it (the DOM above keeps no positions).
  thread_local simdjson::ondemand::parser reader;
  simdjson::padded_string padded(body);
  simdjson::ondemand::document doc;
  simdjson::ondemand::object object;
  simdjson::ondemand::value value;
  std::string_view raw;
  if (reader.iterate(padded).get(doc) != simdjson::SUCCESS ||
      doc.get_object().get(object) != simdjson::SUCCESS ||
      object.find_field_unordered("result").get(value) != simdjson::SUCCESS)
    return ParseReply(body, out);
  simdjson::ondemand::array items;
  simdjson::ondemand::object fields;
  const bool read = result.is_array() ? value.get_array().get(items) == simdjson::SUCCESS &&
                                            items.raw_json().get(raw) == simdjson::SUCCESS
                                      : value.get_object().get(fields) == simdjson::SUCCESS &&
                                            fields.raw_json().get(raw) == simdjson::SUCCESS;
  if (!read) return ParseReply(body, out);
  result_text->assign(raw);
  return true;
}

}  // namespace weibo::net
