#include "net/wire.h"

#include "ops/args.h"
#include "storage/clock.h"
#include "storage/gene_id.h"

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
  // Message ids count milliseconds from 2020-01-01 (the gene method): no earlier clock.
  if (!ms || *ms < kGeneEpochMs)
    return Invalid("now must be epoch seconds or ISO 8601 from 2020-01-01 on, not " + value.dump());
  *now_ms = *ms;
  return Status::Ok();
}

// The fields of a parsed request object, each checked for its type.
Status ReadFields(const Json& j, WireRequest* out) {
  for (auto it = j.begin(); it != j.end(); ++it) {
    const std::string& key = it.key();
    const Json& v = it.value();
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
      if (v.is_object()) out->request.args = v;
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

std::string Dump(const Json& j) { return j.dump(-1, ' ', false, Json::error_handler_t::replace); }

// Builds the reply's document as nlohmann's own DOM parser does, but with room for a
// message's fields reserved in every object up front. An ordered object is a vector of
// (const key, value) pairs; growing it copies every pair, nested values included (a const
// key cannot be moved), and for a page of messages those copies were a fifth of parsing.
// A repeated key keeps its first place and its last value, as Json::parse does.
class ReservingDom : public nlohmann::json_sax<Json> {
 public:
  explicit ReservingDom(Json* root) : root_(root) {}
  bool null() override { return Put(nullptr) != nullptr; }
  bool boolean(bool v) override { return Put(v) != nullptr; }
  bool number_integer(number_integer_t v) override { return Put(v) != nullptr; }
  bool number_unsigned(number_unsigned_t v) override { return Put(v) != nullptr; }
  bool number_float(number_float_t v, const string_t&) override { return Put(v) != nullptr; }
  bool string(string_t& v) override { return Put(std::move(v)) != nullptr; }
  bool binary(binary_t& v) override { return Put(Json::binary(std::move(v))) != nullptr; }
  bool start_object(std::size_t) override {
    Json* object = Put(Json::object());
    object->get_ptr<Json::object_t*>()->reserve(kFields);
    stack_.push_back(object);
    return true;
  }
  bool key(string_t& k) override {
    Json::object_t& object = *stack_.back()->get_ptr<Json::object_t*>();
    for (auto& field : object)
      if (field.first == k) {
        slot_ = &field.second;
        return true;
      }
    object.emplace_back(std::move(k), nullptr);
    slot_ = &object.back().second;
    return true;
  }
  bool end_object() override {
    stack_.pop_back();
    return true;
  }
  bool start_array(std::size_t) override {
    stack_.push_back(Put(Json::array()));
    return true;
  }
  bool end_array() override {
    stack_.pop_back();
    return true;
  }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) override {
    return false;
  }

 private:
  static constexpr size_t kFields = 12;  // a rendered message has 10

  template <typename V>
  Json* Put(V&& v) {
    if (stack_.empty()) {
      *root_ = Json(std::forward<V>(v));
      return root_;
    }
    Json* top = stack_.back();
    if (top->is_array()) {
      top->get_ptr<Json::array_t*>()->emplace_back(std::forward<V>(v));
      return &top->back();
    }
    *slot_ = Json(std::forward<V>(v));
    return slot_;
  }

  Json* root_;
  std::vector<Json*> stack_;
  Json* slot_ = nullptr;
};

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
  if (CountCodePoints(body) < 0) return Invalid("the request is not valid UTF-8");
  Json j = Json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return Invalid("the request is not valid JSON");
  if (!j.is_object()) return Invalid("a request is a JSON object");
  auto id = j.find("id");
  if (id != j.end() && id->is_string() && !id->get<std::string>().empty() &&
      id->get<std::string>().size() <= kMaxIdBytes)
    out->id = *id;
  return ReadFields(j, out);
}

std::string EncodeRequest(const std::string& id, const Request& request, const std::string& token,
                          bool explain) {
  Json j = {{"id", id}, {"op", request.op}, {"args", request.args}};
  if (!token.empty()) j["token"] = token;
  if (request.now_ms != 0) j["now"] = FormatTime(request.now_ms);
  if (request.async) j["async"] = true;
  if (explain) j["explain"] = true;
  return j.dump();
}

std::string EncodeReply(const Json& id, const Result<Json>& result,
                        const std::vector<std::string>* explain) {
  if (result.ok()) {
    // Written piece by piece: a result can be large (a page of rendered messages), and
    // putting it into a reply object would copy it whole before dumping it.
    std::string reply = "{\"id\":" + Dump(id) + ",\"ok\":true,\"result\":" + Dump(result.value());
    if (explain) reply += ",\"explain\":" + Dump(Json(*explain));
    reply += '}';
    return reply;
  }
  Json j = {{"id", id}, {"ok", false}};
  j["error"] = {{"code", CodeName(result.status().code())}, {"message", result.status().message()}};
  return Dump(j);
}

bool ParseReply(const std::string& body, WireReply* out) {
  *out = WireReply{};
  Json j;
  ReservingDom dom(&j);
  if (!Json::sax_parse(body, &dom, nlohmann::detail::input_format_t::json, /*strict=*/true))
    return false;
  if (!j.is_object() || !j.contains("id") || !j.contains("ok") || !j["ok"].is_boolean())
    return false;
  out->id = j["id"];
  if (j["ok"].get<bool>()) {
    if (!j.contains("result")) return false;
    out->result = std::move(j["result"]);  // a page of messages: moved, not copied
    auto ex = j.find("explain");
    if (ex != j.end()) {
      if (!ex->is_array()) return false;
      for (const auto& line : *ex) {
        if (!line.is_string()) return false;
        out->explain.push_back(line.get<std::string>());
      }
    }
    return true;
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

}  // namespace weibo::net
