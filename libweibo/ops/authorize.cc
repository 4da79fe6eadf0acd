#include "ops/authorize.h"

#include <cstring>

#include "flows/tokens.h"
#include "storage/failure.h"

namespace weibo {
namespace {

// The op's acting user: the argument a command spells -u (env WEIBO_USER), or nullptr.
const ArgSpec* ActingUser(const OpSpec& op) {
  for (const ArgSpec& spec : op.args)
    if (spec.env != nullptr && std::strcmp(spec.env, "WEIBO_USER") == 0) return &spec;
  return nullptr;
}

[[noreturn]] void Forbidden(const TokenRow& grant, const std::string& why) {
  Fail(Code::kForbidden, "token " + grant.token_id + " (user " + std::to_string(grant.user_id) +
                             ", " + ScopeName(grant.scope) + " scope) " + why);
}

}  // namespace

void Authorize(Context& ctx, const OpSpec& op, const Json& args, const Request& request,
               bool explained) {
  const TokenRow grant = VerifyToken(ctx, request.token);
  const char* admin_for = op.admin                 ? "the op"
                          : request.now_ms != 0    ? "a request's now"
                          : explained && op.writes ? "--explain of a write"
                                                   : nullptr;
  if (admin_for != nullptr) {
    if (grant.scope < kScopeAdmin)
      Forbidden(grant,
                std::string("may not: ") + admin_for + " of " + op.name + " needs admin scope");
    return;
  }
  const ArgSpec* acting = ActingUser(op);
  if (acting == nullptr || !args.contains(acting->name)) return;  // read scope suffices
  const int64_t user = ctx.ResolveUser(args.at(acting->name));
  if (user != grant.user_id) Forbidden(grant, "may not act for user " + std::to_string(user));
  if (op.writes && grant.scope < kScopeWrite)
    Forbidden(grant, "may not write: " + std::string(op.name));
}

}  // namespace weibo
