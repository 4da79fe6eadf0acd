// Trace files (SPEC §13): JSON Lines, one operation a line, {"op": NAME, "args": {...}},
// where NAME and args are exactly a daemon request's (SPEC §11, the op table).
//
// Users are created by user_add ops in order, so in a fresh cluster the k-th user_add
// creates user id k. The message made by the k-th message-creating op (post, repost,
// comment) is referenced as the string "#k" wherever an id is expected. "now" in an op's
// args (epoch seconds or ISO 8601, as on the wire) pins the clock from that op on; it is
// not an argument of the op and is taken out before the op runs.
#ifndef WEIBO_BENCH_TRACE_H_
#define WEIBO_BENCH_TRACE_H_

#include <cstdint>
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

#include "weibo/request.h"
#include "weibo/status.h"

namespace weibo::bench {

using Trace = std::vector<Request>;

// Writes one {"op","args"} object a line.
void WriteTrace(std::ostream& out, const Trace& trace);
// Reads a trace; invalid_request naming the line for a line that is not such an object.
// Empty lines are skipped.
Result<Trace> ReadTrace(std::istream& in, const std::string& name);

// Whether an op creates a message that later ops may reference as "#k".
bool CreatesMessage(const std::string& op);
// Whether an op of the op table writes; unknown ops count as writes.
bool Writes(const std::string& op);

// A trace's "now": epoch seconds as a number, or any text weibo::ParseTime reads
// (weibo/time.h); nullopt when it is neither.
std::optional<int64_t> ParseNow(const Json& value);

}  // namespace weibo::bench

#endif  // WEIBO_BENCH_TRACE_H_
