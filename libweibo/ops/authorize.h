// Authorization of a request under weibod --auth (weibod(1), AUTHENTICATION), from the
// operation table alone: OpSpec::admin, the acting user (-u) of its args, OpSpec::writes.
#ifndef WEIBO_OPS_AUTHORIZE_H_
#define WEIBO_OPS_AUTHORIZE_H_

#include "jobs/context.h"
#include "weibo/ops.h"

namespace weibo {

// Returns when request.token grants the op with these validated args; else throws
// Failure: a token_* code for the token itself (flows/tokens.h, VerifyToken), forbidden
// for a valid token acting outside its user or scope. ctx's clock is the executor's own,
// never the request's "now", which is itself something only an admin token may send.
// explained: the statements run are sent back (--explain), which for a write is an admin's.
void Authorize(Context& ctx, const OpSpec& op, const Json& args, const Request& request,
               bool explained);

}  // namespace weibo

#endif  // WEIBO_OPS_AUTHORIZE_H_
