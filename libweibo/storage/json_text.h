// JSON text written directly, byte for byte as nlohmann's dump writes it: a server's reply
// (net/wire.cc) and a page rendered straight to text (flows/message_view.cc, the timeline's
// OpSpec::text) append to one string instead of building objects to serialize.
#ifndef WEIBO_STORAGE_JSON_TEXT_H_
#define WEIBO_STORAGE_JSON_TEXT_H_

#include <cstdint>
#include <string>

#include "weibo/storage.h"

namespace weibo {

// Appends j as j.dump(-1, ' ', false, invalid) writes it. nlohmann's own serializer writes
// what only it decides (numbers with a fraction, strings with bytes to escape or invalid
// UTF-8), and the rest — the keys, ids, integers and plain text that make up most of a
// reply — is written here. Invalid UTF-8 is replaced (a reply) or, with kStrict, throws
// nlohmann's type_error as dump() does (a request).
void AppendJson(const Json& j, std::string* out,
                Json::error_handler_t invalid = Json::error_handler_t::replace);
// Appends the JSON string of s, quoted, as AppendJson(Json(s)) would.
void AppendJsonString(const std::string& s, std::string* out,
                      Json::error_handler_t invalid = Json::error_handler_t::replace);
// Appends n as a JSON number, and as a JSON string ("123"): ids are strings in SPEC §10.
void AppendJsonInt(int64_t n, std::string* out);
void AppendJsonIdString(int64_t n, std::string* out);

}  // namespace weibo

#endif  // WEIBO_STORAGE_JSON_TEXT_H_
