// The text of weibo-app(1) and weibo-token(1). A token or a secret is printed only by the
// op that creates it (its result holds it); every other line names a token by its id.
//
//   app @<name> key <key> created <time>                  (app list, app register)
//   secret <secret>                                        (app register, once)
//   token <token>                                          (token issue, once)
//   <token_id> user <id> app <key> <scope> <state> issued <time> expires <time|never>
//     [revoked <time>]
//   #<id> <event> token <token_id> user <id> <time>        (app events)
#include <sstream>

#include "render/text.h"

namespace weibo::render {
namespace {

std::string AppLine(const Json& a) {
  return "app @" + a.at("name").get<std::string>() + " key " + a.at("key").get<std::string>() +
         " created " + a.at("created").get<std::string>() + "\n";
}

std::string TokenLine(const Json& t) {
  std::ostringstream out;
  out << t.at("token_id").get<std::string>() << " user " << t.at("user_id").get<std::string>()
      << " app " << t.at("app").get<std::string>() << " " << t.at("scope").get<std::string>() << " "
      << t.at("state").get<std::string>() << " issued " << t.at("issued").get<std::string>()
      << " expires " << (t.at("expires").is_null() ? "never" : t.at("expires").get<std::string>());
  if (!t.at("revoked").is_null()) out << " revoked " << t.at("revoked").get<std::string>();
  out << "\n";
  return out.str();
}

}  // namespace

std::string App(const Json& app) {
  std::string out = AppLine(app);
  if (app.contains("secret")) out += "secret " + app.at("secret").get<std::string>() + "\n";
  return out;
}

std::string Apps(const Json& list) {
  std::string out;
  for (const auto& app : list) out += AppLine(app);
  return out;
}

std::string AppEvents(const Json& list) {
  std::string out;
  for (const auto& e : list)
    out += "#" + e.at("id").get<std::string>() + " " + e.at("event").get<std::string>() +
           " token " + e.at("token_id").get<std::string>() + " user " +
           e.at("user_id").get<std::string>() + " " + e.at("time").get<std::string>() + "\n";
  return out;
}

std::string Token(const Json& token) {
  std::string out;
  if (token.contains("token")) out += "token " + token.at("token").get<std::string>() + "\n";
  return out + TokenLine(token);
}

std::string Tokens(const Json& list) {
  std::string out;
  for (const auto& token : list) out += TokenLine(token);
  return out;
}

}  // namespace weibo::render
